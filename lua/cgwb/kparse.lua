--- cgwb.kparse: the front end of kernels written in the C subset of
-- doc/kernel-language.md.  Text -> the flat arrays of csrc/kernel/cg_kernel.h
-- in canonical form (Utke, Flattening, sec. 2: C1-C5), which
-- core.kernel_load checks and keeps.
--
--   parse(text [, name]) -> flat | nil, "name:line:col: message"
--   read(path)           -> flat | nil, message
--   unparse(flat)        -> C text of the canonical form
--
-- flat = {file=, names={strings}, func=, sym=, expr=, stmt=, list=, args=
-- (int arrays: rows back to back, field order from core.kernel_layout(),
-- ids 0-based, -1 for none), dconst={doubles}}.
-- @module cgwb.kparse
local errors = require "cgwb.util.errors"
local grammar = require "cgwb.kparse.grammar"
local lower = require "cgwb.kparse.lower"
require "cgwb.kparse.ctypes"
require "cgwb.kparse.stmt"
require "cgwb.kparse.heap"

local M = {}

local layout
--- The layout of the flat arrays (core.kernel_layout()), read once.
function M.layout()
  layout = layout or require("cgwb.core").kernel_layout()
  return layout
end

-- Brackets nested deeper than this are refused before matching: the
-- grammar's backtrack stack grows with nesting.
M.max_nesting = 256

-- Expected names that say more than the rest: a statement covers an
-- expression, and a missing closer is the likeliest mistake.
local function expected_text(exp)
  local seen, out = {}, {}
  for _, e in ipairs(exp) do seen[e] = true end
  for _, e in ipairs(exp) do
    local drop = (e == "an expression" and seen["a statement"])
      or (e == "end of input" and #exp > 1)
      or (e == "an identifier" and (seen["a statement"] or seen["an expression"]))
    if not drop then out[#out + 1] = e end
  end
  if #out == 0 then return "end of input" end
  return table.concat(out, " or ")
end

-- A token as a message shows it: bytes that are not printable ASCII as \xHH.
local function describe(tok)
  if not tok or tok == "" then return "end of input" end
  return "'" .. tok:gsub("[^\32-\126]", function(c) return ("\\x%02x"):format(c:byte()) end) .. "'"
end

--- A syntax error message, naming a refused C construct where the token
-- found is one.
local WHY = {
  struct = "no aggregate types", union = "no aggregate types", typedef = "no named types",
  enum = "no named constants", ["goto"] = "structured control flow only", switch = "structured control flow only",
  case = "structured control flow only", default = "structured control flow only",
  sizeof = "sizes are known constants", extern = "one file", register = "no storage classes",
  auto = "no storage classes", volatile = "no volatile memory",
}
local function syntax_error(lw, text, pos, exp)
  local tok = grammar.token_at(text, pos)
  if (not tok or tok == "") and pos <= #text then tok = text:sub(pos, pos) end -- a byte no token starts with (a NUL)
  if tok and grammar.refused[tok] then
    lw:outside(pos, "'" .. tok .. "'", WHY[tok] or "the types are double, int, char, signed and unsigned char, short, unsigned short, _Bool and pointers to them")
  end
  if text:sub(pos, pos + 1) == "/*" then lw:err(pos, "unterminated comment") end
  if tok == "..." then lw:outside(pos, "a variadic function", "a fixed number of arguments") end
  if tok and (tok:sub(1, 1) == '"' or tok:sub(1, 1) == "'") then
    lw:outside(pos, "a string or character literal", "numbers and character constants only")
  end
  -- two identifiers in a row where a declaration starts: the first can only be
  -- a type name C knows and the subset does not
  local h0 = math.max(1, pos - 256)
  local head = text:sub(h0, pos - 1) -- what precedes (a message on a 3 MB text scans no more)
  local b = head:match("()[%a_][%w_]*%s*$")
  local before = b and h0 + b - 1
  local prev = b and head:sub(b):match("^[%a_][%w_]*")
  local starts = function(upto) return upto == 1 or text:sub(math.max(1, upto - 64), upto - 1):match("[{};(,]%s*$") end
  local after = tok and tok:match("^[%a_][%w_]*$") and not grammar.keywords[tok] and starts(pos)
    and text:match("^%s*%**%s*[%a_]", pos + #tok)
  local unknown = (after and tok) or (prev and starts(before) and not grammar.keywords[prev] and tok
    and tok:match("^[%a_]") and prev)
  if unknown then
    lw:err(unknown == tok and pos or before, "unknown type name '%s' (no typedef declares it)", unknown)
  end
  lw:err(pos, "found %s, expected %s", describe(tok), expected_text(exp))
end

-- Where the nesting of brackets first passes limit (nil if it never
-- does); spec/18 checks it against a plain byte-by-byte scan.  Only brackets, comments and preprocessor lines matter, so the scan
-- jumps from one `( ) [ ] { } / #` to the next with string.find rather than
-- stepping through every byte (a 10^5-statement kernel is 3 MB of text); a
-- `/` or `#` skips what grammar.skip skips there (a comment, a directive),
-- so brackets inside them do not count.
local OPEN = { [40] = true, [91] = true, [123] = true }   -- ( [ {
local CLOSE = { [41] = true, [93] = true, [125] = true }  -- ) ] }

--- Where the nesting of brackets in text first passes limit: (text, limit) -> position | nil
-- (the scan described above).
function M.too_deep(text, limit)
  local skip, find, byte = grammar.skip, string.find, string.byte
  local depth = 0
  local pos = find(text, "[%(%)%[%]{}/#]", skip:match(text, 1))
  while pos do
    local c = byte(text, pos)
    local nxt = pos + 1
    if OPEN[c] then
      depth = depth + 1
      if depth > limit then return pos end
    elseif CLOSE[c] then depth = depth - 1
    else nxt = math.max(skip:match(text, pos), nxt) end -- `/` or `#`
    pos = find(text, "[%(%)%[%]{}/#]", nxt)
  end
end

local function parse(text, name, opts)
  local lay = M.layout()
  local lw = lower.new(lay, name, text, {}, grammar)
  if opts.map then lw:set_map(opts.map) end
  local deep = M.too_deep(text, M.max_nesting)
  if deep then
    lw:outside(deep, ("brackets nested deeper than %d"):format(M.max_nesting), "max_nesting")
  end
  local ok, tree, a, b = pcall(grammar.parse, text)
  if not ok then
    if errors.is(tree, "refused") then lw:outside(tree.data.pos, tree.msg, tree.data.why) end
    if tostring(tree):find("backtrack stack overflow", 1, true) then
      lw:outside(1, "a text nested this deeply", "the parser's stack: statements or operators nested "
        .. "thousands deep")
    end
    error(tree, 0)
  end
  if not tree then syntax_error(lw, text, a, b) end
  lw:pragma_index(a)
  return lw:unit(tree, opts or {}, b)
end

-- The collector's pause during a parse (Lua's default is 200: a cycle
-- starts when the heap has doubled).  400 parses a 10^5-statement kernel
-- 10-20% faster for about 40% more peak memory; both stay linear in the
-- text.  Set it to 200 to keep the caller's memory profile.
M.gc_pause = 400

--- Parses kernel text; name (default "kernel") names the file in messages.
-- opts: map (cgwb.kparse.cpp's map of preprocessor output to the user's files);
-- opts.functions: names of functions that, with every function they call,
-- must be lowered (else the parse fails with the first refusal among them);
-- the functions that cannot be lowered are listed in flat.left_alone.
function M.parse(text, name, opts)
  name = name or "kernel"
  opts = opts or {}
  if type(text) ~= "string" then error("kparse.parse: text must be a string", 2) end
  -- Most of what a parse allocates lives until it ends (the syntax tree,
  -- the rows), so the collector's default cycles mostly trace live data:
  -- wait longer between them, then restore the caller's setting.
  local pause = collectgarbage("setpause", M.gc_pause)
  local ok, res = pcall(parse, text, name, opts)
  collectgarbage("setpause", pause)
  if ok then return res end
  if errors.is(res, "input") then return nil, res.msg end
  -- the last line of defence: an internal error (a bug) still becomes a message, named as one
  return nil, ("%s: internal error of the kernel front end: %s"):format(name, tostring(res))
end

--- Reads and parses a kernel file: (path [, opts]) -> flat | nil, message; opts
-- as cgwb.kparse.cpp's (the preprocessor's flags) and M.parse's.
function M.read(path, opts)
  local f, why = io.open(path, "rb")
  if not f then return nil, ("%s: cannot open: %s"):format(path, (why or ""):gsub("^[^:]*: ", "")) end
  local text = f:read("a")
  f:close()
  return M.parse_c(text, path, opts, path)
end

--- Parses C text as the compiler sees it: the preprocessor first when the
-- text needs it (cgwb.kparse.cpp.needed): (text, name, opts [, path]) -> flat | nil, message.
function M.parse_c(text, name, opts, path)
  opts = opts or {}
  local cpp = require "cgwb.kparse.cpp"
  if not cpp.needed(text, opts) then return M.parse(text, name, opts) end
  local out, map = cpp.run_cached(text, name, opts, path)
  if not out then return nil, map end
  return M.parse_mapped(out, name, opts, map)
end

-- The rows of the last preprocessed texts parsed, by text, name, map and
-- functions: a process that reads one file again (through cpp.run_cached, the
-- same output and map) gets the rows again without a parse.  The rows are
-- read-only once made (core.kernel_load copies them).  Also `nil, message`.
local parsed, parsed_order = {}, {}
M.parsed_size = 16

--- M.parse of preprocessor output with its map, remembered: (out, name, opts, map) -> flat | nil, message.
function M.parse_mapped(out, name, opts, map)
  local fkey = table.concat(opts.functions or {}, "\0")
  local e = parsed[out]
  if e and e.name == name and e.map == map and e.functions == fkey then return e.flat, e.err end
  local flat, err = M.parse(out, name, setmetatable({ map = map }, { __index = opts }))
  if not parsed[out] then
    parsed_order[#parsed_order + 1] = out
    if #parsed_order > M.parsed_size then parsed[table.remove(parsed_order, 1)] = nil end
  end
  parsed[out] = { name = name, map = map, functions = fkey, flat = flat, err = err }
  return flat, err
end

--- The C text of flat rows (the front end's arrays): (flat) -> text.
function M.unparse(flat) return require("cgwb.ir.unparse").unparse(flat, M.layout()) end

return M
