--- cgwb.kparse.cpp: a C file as the compiler sees it.  The system's C
-- preprocessor (`cc -E`, or $CC) runs first, with the user's -I, -D, -U and
-- --std, so `#include`, `#define`, `#if` and header guards mean what they mean
-- to the compiler; its line markers (`# 12 "gmm.h" 2`) are kept and map every
-- position of the output back to the user's file:line:col.
--
--   needed(text, opts)            -> whether the text must be preprocessed
--   run(text, name, opts)         -> output, map | nil, message
--   map:locate(line, col, ltext)  -> file, line, col
--
-- opts (all optional): include = {DIR, ...}, define = {"N", "N=V", ...},
-- undef = {"N", ...}, std = "c99"|"c11", cc = "cc", preprocess = "auto"|"always"|"never".
-- A text with no directive but `#pragma` and line markers (a preprocessor's own
-- output) is passed as it is under "auto": the
-- preprocessor would give the same tokens (no macro can be defined), and
-- positions stay exact without mapping.
--
-- Columns: the preprocessor keeps a line's indentation but squeezes the spaces
-- between tokens and writes a macro's expansion where the macro was used.  A
-- position is mapped by aligning the output line's tokens with the source
-- line's: a token found in the source keeps its own column; a token of a
-- macro's expansion takes the column of the first source token not matched
-- before it (the macro's name, the place it is used).
-- @module cgwb.kparse.cpp
local M = {}

local STDS = { c99 = "-std=c99", c11 = "-std=c11" }

--- Whether text needs the preprocessor under opts: (text, opts) -> boolean.
function M.needed(text, opts)
  opts = opts or {}
  local mode = opts.preprocess or "auto"
  if mode == "never" then return false end
  if mode == "always" then return true end
  if (opts.include and opts.include[1]) or (opts.define and opts.define[1]) or (opts.undef and opts.undef[1])
    or opts.std then
    return true
  end
  for dir in ("\n" .. text):gmatch("[\r\n][ \t]*#[ \t]*([%w_]*)") do
    if dir ~= "pragma" and not dir:match("^%d") then return true end -- `# 12 "f.c"`: a preprocessor's own output
  end
  return false
end

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local slurp = require("cgwb.util.files").read_or_nil

-- The flags of opts as a shell word list; nil, message for a bad one.
local function flags(opts)
  local out = {}
  if opts.std then
    local f = STDS[opts.std]
    if not f then return nil, ("--std '%s': expected c99 or c11"):format(tostring(opts.std)) end
    out[#out + 1] = f
  end
  for _, d in ipairs(opts.include or {}) do out[#out + 1] = "-I" .. quote(d) end
  for _, d in ipairs(opts.define or {}) do
    if not tostring(d):match("^[%a_][%w_]*") then
      return nil, ("-D '%s': expected NAME or NAME=VALUE"):format(tostring(d))
    end
    out[#out + 1] = "-D" .. quote(d)
  end
  for _, u in ipairs(opts.undef or {}) do
    if not tostring(u):match("^[%a_][%w_]*$") then return nil, ("-U '%s': expected NAME"):format(tostring(u)) end
    out[#out + 1] = "-U" .. quote(u)
  end
  return table.concat(out, " ")
end

-- The first lines of the compiler's complaint: its own "file:line:col: error: ..."
-- (without the "In file included from" lines and the source excerpts).
local function complaint(err, name)
  local lines = {}
  for l in err:gmatch("[^\n]+") do
    if l:match(":%d+:%d+: ") or l:match("^[^ ]+: ") and not l:match("^In file included") then
      lines[#lines + 1] = l:gsub("<stdin>", name)
      if #lines == 3 then break end
    end
  end
  if #lines == 0 then lines[1] = (err:match("[^\n]+") or "failed") end
  return table.concat(lines, "\n")
end

-- {==== the map of positions ====}
local Map = {}
Map.__index = Map

local PUNCT3 = { ["..."] = true, ["<<="] = true, [">>="] = true }
local PUNCT2 = {}
for p in ("-> ++ -- << >> <= >= == != && || += -= *= /= %= &= |= ^= ##"):gmatch("%S+") do PUNCT2[p] = true end

-- A source line's tokens: {text, col} in order (comments and spaces skipped;
-- a comment opened on an earlier line is not seen: the alignment then falls
-- back to the first token).
local function tokens(line)
  local out, i, n = {}, 1, #line
  while i <= n do
    local c = line:sub(i, i)
    if c:match("%s") then i = i + 1
    elseif line:sub(i, i + 1) == "//" then break
    elseif line:sub(i, i + 1) == "/*" then
      local e = line:find("*/", i + 2, true)
      if not e then break end
      i = e + 2
    else
      local s, e = line:find("^[%a_][%w_]*", i)
      if not s then s, e = line:find("^%.?%d[%w_.]*", i) end -- numbers, with exponents' signs below
      if s and line:sub(e, e):match("[eEpP]") and line:sub(e + 1, e + 1):match("[+-]") then
        local _, e2 = line:find("^[%w_.]*", e + 2)
        e = e2
      end
      if not s and (c == '"' or c == "'") then
        s, e = i, i
        repeat
          e = e + 1
          if line:sub(e, e) == "\\" then e = e + 1 end
        until e >= n or line:sub(e, e) == c
      end
      if not s then -- a punctuator, longest first
        e = (PUNCT3[line:sub(i, i + 2)] and i + 2) or (PUNCT2[line:sub(i, i + 1)] and i + 1) or i
        s = i
      end
      out[#out + 1] = { line:sub(s, e), s }
      i = e + 1
    end
  end
  return out
end

-- The alignment of output line pline (text ltext) with its source line src:
-- {{output col, length, source col, matched}...} per output token, computed
-- once.  Source tokens are matched in order to the output's, as many as can
-- be (a longest common subsequence; a macro's name matches nothing); an output token nothing matched is part of an expansion
-- and takes the column of its macro: the unmatched identifier that follows the
-- last match before it, or else the last unmatched one up to that match.
local SAME = {} -- the alignment of a line the preprocessor wrote as it stands in the source
local LCS_MAX = 40000 -- output x source tokens up to which the alignment is an exact LCS

function Map:align(pline, ltext, src)
  local al = self.aligned[pline]
  if al then return al end
  if ltext == src then
    self.aligned[pline] = SAME
    return SAME
  end
  local out, ins = tokens(ltext), tokens(src)
  local of_out, matched = {}, {}
  if self.system[pline] and out[1] then -- gcc -E writes a system header's macro used in the user's line on a line
    local at, best = out[1][2] + 1, nil -- of its own, a column before the macro's name: the nearest name is it
    for _, u in ipairs(ins) do
      if u[1]:match("^[%a_]") and (not best or math.abs(u[2] - at) < math.abs(best - at)) then best = u[2] end
    end
    al = {}
    for i, t in ipairs(out) do al[i] = { t[2], #t[1], best or at, false } end
    self.aligned[pline] = al
    return al
  end
  if #out * #ins <= LCS_MAX then -- the longest common subsequence: a fragment after a line marker
    local m, n, L = #out, #ins, {} -- L[h][k]: the LCS of out[h..] and ins[k..]
    for h = m + 1, 1, -1 do
      local row, nxt = {}, L[h + 1]
      for k = n + 1, 1, -1 do
        if h > m or k > n then row[k] = 0
        elseif out[h][1] == ins[k][1] then row[k] = nxt[k + 1] + 1
        else row[k] = math.max(nxt[k], row[k + 1]) end
      end
      L[h] = row
    end
    local h, k = 1, 1
    while h <= m and k <= n do
      if out[h][1] == ins[k][1] and L[h][k] == L[h + 1][k + 1] + 1 then
        of_out[h], matched[k], h, k = k, true, h + 1, k + 1
      elseif L[h + 1][k] >= L[h][k + 1] then h = h + 1
      else k = k + 1 end
    end
  else -- a long line: each source token to the next output token like it
    local o = 1
    for k, t in ipairs(ins) do
      for h = o, math.min(#out, o + 256) do
        if out[h][1] == t[1] then
          of_out[h], matched[k], o = k, true, h + 1
          break
        end
      end
    end
  end
  local function macro(k0) -- the macro around output tokens after source token k0
    local nxt = ins[k0 + 1]
    if nxt and not matched[k0 + 1] and nxt[1]:match("^[%a_]") then return nxt[2] end
    for k = k0, 1, -1 do
      if not matched[k] and ins[k][1]:match("^[%a_]") then return ins[k][2] end
    end
    return (nxt or ins[k0] or { "", 1 })[2]
  end
  al = {}
  local last = 0 -- the source token of the last matched output token
  for i, t in ipairs(out) do
    local k = of_out[i]
    if k then
      last = k
      al[i] = { t[2], #t[1], ins[k][2], true }
    else
      al[i] = { t[2], #t[1], macro(last), false }
    end
  end
  self.aligned[pline] = al
  return al
end

--- The source place of a position of the output: (line of the output,
-- column, text) -> file, line, col; text: the output line's text, or a
-- function giving it (asked once per line).
function Map:locate(pline, pcol, text)
  local f, l = self.file[pline], self.line[pline]
  if not f then return self.name, pline, pcol end
  local al = self.aligned[pline]
  if al == SAME then return self:file_name(f), l, pcol end
  if not al then
    local src = self:source_line(f, l)
    if not src then return self:file_name(f), l, pcol end
    al = self:align(pline, type(text) == "function" and text(pline) or text, src)
    if al == SAME then return self:file_name(f), l, pcol end
  end
  for _, t in ipairs(al) do
    if pcol < t[1] + t[2] then -- the token the position is in, or the first after it
      if t[4] and pcol >= t[1] then return self:file_name(f), l, t[3] + (pcol - t[1]) end
      return self:file_name(f), l, t[3]
    end
  end
  local last = al[#al]
  return self:file_name(f), l, last and last[3] + last[2] or pcol
end

--- Whether line pline of the output comes from a system header (the
-- implementation's declarations, never the user's: not listed as left alone).
function Map:in_system(pline)
  return self.system[pline] == true
end

function Map:file_name(f)
  local s = self.files[f]
  if s == self.main or s == "<stdin>" then return self.name end
  return s
end

-- Line l of file f (the main text from memory, the others read once).
function Map:source_line(f, l)
  local lines = self.lines[f]
  if lines == nil then
    local s = self.files[f]
    local text = (s == self.main or s == "<stdin>") and self.text or slurp(s)
    lines = false
    if text then
      lines = {}
      for ln in (text .. "\n"):gmatch("([^\n]*)\r?\n") do lines[#lines + 1] = ln end
    end
    self.lines[f] = lines
  end
  return lines and lines[l]
end

-- The map of an output: the file and line of each of its lines.
local function build_map(out, name, main, text)
  local map = setmetatable({ name = name, main = main, text = text, files = {}, file_ix = {}, lines = {}, aligned = {}, system = {},
    file = {}, line = {} }, Map)
  local cur_f, cur_l, n, cur_sys = nil, 1, 0, false
  for ln in (out .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    local num, fname, fl = ln:match('^#%s*(%d+)%s+"(.-)"(.*)$')
    if num then
      local f = map.file_ix[fname]
      if not f then
        f = #map.files + 1
        map.files[f], map.file_ix[fname] = fname, f
      end
      cur_f, cur_l = f, tonumber(num)
      cur_sys = fl:match("%f[%d]3%f[%D]") ~= nil -- flag 3: a system header's text (or a macro of one)
    else
      map.file[n], map.line[n] = cur_f, cur_l
      if cur_sys then map.system[n] = true end
      cur_l = cur_l + 1
    end
  end
  return map
end
-- }====

-- {==== the cache ====}
-- A process reads the same text many times (a test suite, a driver that
-- rereads a kernel): run() is a function of the text, the flags, the
-- compiler and the files included, so a result is kept (the last M.cache_size)
-- and given again while every file the output came from still holds the
-- bytes it held (each is read again and compared: far cheaper than a
-- process).  spec/49 checks that a cached result is the plain path's.
M.cache_size = 16
local cache, order = {}, {}

local function cache_key(text, name, opts, path)
  local parts = { text, name, path or "", opts.cc or os.getenv("CC") or "cc", opts.std or "",
    os.getenv("CPATH") or "", os.getenv("C_INCLUDE_PATH") or "" }
  for _, l in ipairs { opts.include or {}, opts.define or {}, opts.undef or {} } do
    parts[#parts + 1] = table.concat(l, "\0")
  end
  return table.concat(parts, "\1")
end

-- The included files' bytes (not the main text's: it is part of the key).
local function sources(map)
  local out = {}
  for f, s in ipairs(map.files) do
    if f > 1 and not s:match("^<") then out[s] = slurp(s) or false end
  end
  return out
end

--- run() through the cache: same arguments and results (the map is shared
-- by the callers of one entry: it is read-only once built).
function M.run_cached(text, name, opts, path)
  opts = opts or {}
  local key = cache_key(text, name, opts, path)
  local e = cache[key]
  if e then
    local fresh = true
    for file, bytes in pairs(e.sources) do
      if (slurp(file) or false) ~= bytes then fresh = false break end
    end
    if fresh then return e.out, e.map end
  end
  local out, map = M.run(text, name, opts, path)
  if not out then return nil, map end
  if not cache[key] then
    order[#order + 1] = key
    if #order > M.cache_size then cache[table.remove(order, 1)] = nil end
  end
  cache[key] = { out = out, map = map, sources = sources(map) }
  return out, map
end

--- Forgets every cached result.
function M.clear_cache() cache, order = {}, {} end
-- }====

--- Runs the preprocessor on a file (path given) or on text: (text, name, opts
-- [, path]) -> output, map | nil, message.  With a path, the compiler reads the
-- file itself (so `#include "x.h"` is found beside it).
function M.run(text, name, opts, path)
  opts = opts or {}
  local fl, ferr = flags(opts)
  if not fl then return nil, ferr end
  local cc = opts.cc or os.getenv("CC") or "cc"
  local outp, errp = os.tmpname(), os.tmpname()
  local inp
  local src = path and quote(path)
  if not path then
    inp = os.tmpname()
    local fh = io.open(inp, "wb")
    if not fh then return nil, name .. ": cannot write a temporary file for the preprocessor" end
    fh:write(text)
    fh:close()
    src = "-x c - <" .. quote(inp)
  end
  local cmd = ("%s -E %s %s >%s 2>%s"):format(cc, fl, src, quote(outp), quote(errp))
  local ok = os.execute(cmd)
  local out, err = slurp(outp) or "", slurp(errp) or ""
  os.remove(outp)
  os.remove(errp)
  if inp then os.remove(inp) end
  if not ok then
    if err:match("not found") and not err:match(":%d+:") then
      return nil, ("%s: cannot run the C preprocessor '%s -E' (set CC to a C compiler)"):format(name, cc)
    end
    return nil, complaint(err, name)
  end
  return out, build_map(out, name, path or "<stdin>", text)
end

return M
