--- spec/recipes.lua: the extension recipes of doc/hacking.md as edits, for
-- spec/17-hacking_spec.lua (every edit applies to the tree as it is) and
-- spec/47-recipes_spec.lua (the edits applied to a scratch copy, which is
-- built and checked).
--
-- A recipe's edits are the page's ```diff blocks under its "### " heading.
-- A block holds hunks, each headed by "@@ PATH" ("@@ +PATH (new file)" for a
-- file the recipe creates), then lines starting with " " (context: a line
-- of the file as it is), "-" (a line the recipe removes) or "+" (a line it
-- adds); an empty line is an empty context line.  The context and removed
-- lines of a hunk must occur, consecutively and in that order, exactly once
-- in the file (trailing blanks ignored), after the page's earlier hunks
-- into the same file are applied; they are replaced by the context and
-- added lines.
--
--   local R = require "recipes"
--   local hunks = R.parse(H.read("doc/hacking.md"))
--   local texts = R.apply(hunks, read)   -- read(path) -> text or nil; path -> new text
local M = {}

local function rstrip(s) return (s:gsub("%s+$", "")) end

local function split_lines(text)
  local t = {}
  for l in (text .. "\n"):gmatch("(.-)\n") do t[#t + 1] = l end
  if text:sub(-1) == "\n" then t[#t] = nil end -- the last newline ends the last line
  return t
end

--- The hunks of the page's ```diff blocks, in page order: {section = the
-- "### " heading above the block, path =, new_file = bool, old = {lines},
-- new = {lines}, ops = {{" " | "-" | "+", line}...}, n = the hunk's number
-- among the page's hunks into path,
-- line = the page's line of its "@@" header}.  Raises on a malformed block.
function M.parse(page)
  local hunks, section, in_diff, cur, per_path = {}, nil, false, nil, {}
  local lineno = 0
  for l in (page .. "\n"):gmatch("(.-)\n") do
    lineno = lineno + 1
    if in_diff then
      if l:match("^```") then
        in_diff, cur = false, nil
      elseif l:match("^@@ ") then
        local plus, path, flag = l:match("^@@ (%+?)(%S+)%s*(.-)%s*$")
        assert(path and ((plus == "" and flag == "") or (plus == "+" and flag == "(new file)")),
          ("doc line %d: bad hunk header %q"):format(lineno, l))
        per_path[path] = (per_path[path] or 0) + 1
        cur = { section = section, path = path, new_file = plus == "+", old = {}, new = {}, ops = {}, n = per_path[path],
                line = lineno }
        hunks[#hunks + 1] = cur
      else
        assert(cur, ("doc line %d: a diff line before any @@ header"):format(lineno))
        local c, rest = l:sub(1, 1), l:sub(2)
        if l == "" then c, rest = " ", "" end
        assert(c == " " or c == "-" or c == "+", ("doc line %d: a diff line must start with ' ', '-' or '+'"):format(lineno))
        if c == " " or c == "-" then cur.old[#cur.old + 1] = rest end
        if c == " " or c == "+" then cur.new[#cur.new + 1] = rest end
        cur.ops[#cur.ops + 1] = { c, rest }
        assert(not (cur.new_file and c ~= "+"), ("doc line %d: a new file has only '+' lines"):format(lineno))
      end
    elseif l:match("^```diff%s*$") then
      in_diff = true
    else
      local h = l:match("^###? (.+)$")
      if h then section = rstrip(h) end
    end
  end
  assert(not in_diff, "an unclosed ```diff block")
  for _, h in ipairs(hunks) do
    assert(h.new_file or #h.old > 0, ("doc line %d: a hunk into an existing file needs context"):format(h.line))
  end
  return hunks
end

--- Where hunk h's old lines occur in lines (a list): the first index and the count.
function M.locate(h, lines)
  local at, count = nil, 0
  for i = 1, #lines - #h.old + 1 do
    local ok = true
    for j = 1, #h.old do
      if rstrip(lines[i + j - 1]) ~= rstrip(h.old[j]) then ok = false break end
    end
    if ok then count = count + 1; at = at or i end
  end
  return at, count
end

--- A hunk's name in messages and in CGWB_RECIPE_SKIP: "PATH#N".
function M.name(h) return h.path .. "#" .. h.n end

--- Applies the hunks in order (skip: {["PATH#N"] = true, ["PATH"] = true}
-- leaves hunks out); read(path) gives a file's text, nil if it does not
-- exist.  Returns {path -> new text} of every file a hunk changed or
-- created, or raises naming the hunk that does not apply.
function M.apply(hunks, read, skip)
  skip = skip or {}
  local files = {}
  for _, h in ipairs(hunks) do
    if not (skip[M.name(h)] or skip[h.path]) then
      local where = ("%s (doc/hacking.md line %d, %s)"):format(M.name(h), h.line, tostring(h.section))
      if h.new_file then
        assert(files[h.path] == nil and read(h.path) == nil, where .. ": the new file exists already")
        files[h.path] = split_lines(table.concat(h.new, "\n") .. "\n")
      else
        if not files[h.path] then
          local text = read(h.path)
          assert(text, where .. ": no such file")
          files[h.path] = split_lines(text)
        end
        local lines = files[h.path]
        local at, count = M.locate(h, lines)
        assert(count == 1, ("%s: its context occurs %d times in the file, not once"):format(where, count))
        local out, j = {}, at -- a context line keeps the file's own text (its blanks)
        for i = 1, at - 1 do out[#out + 1] = lines[i] end
        for _, op in ipairs(h.ops) do
          if op[1] == " " then out[#out + 1] = lines[j]; j = j + 1
          elseif op[1] == "-" then j = j + 1
          else out[#out + 1] = op[2] end
        end
        for i = at + #h.old, #lines do out[#out + 1] = lines[i] end
        files[h.path] = out
      end
    end
  end
  local texts = {}
  for path, lines in pairs(files) do texts[path] = table.concat(lines, "\n") .. "\n" end
  return texts
end

return M
