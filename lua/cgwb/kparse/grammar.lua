--- cgwb.kparse.grammar: the LPeg grammar of the kernel subset of C99
-- (doc/kernel-language.md): text -> syntax tree, or the position of the
-- farthest failure with what was expected there.
--
-- Two grammars are built from the same rules: a fast one, and one that
-- records, at every token it fails to match, the token it expected; the
-- second runs only on a text the first rejected, so a valid kernel pays no
-- bookkeeping.  Every repetition consumes input and alternatives are tried
-- on a token or two of lookahead, so matching is linear in the text.
--
-- Tree nodes are tables {k = kind, pos = byte offset, ...}; expression kinds
-- num id bin un post index call cast cond assign; statement kinds block if
-- for while do break continue return decl expr empty refused; top-level
-- func and gdecl.  Constructs outside the subset that are easier to name
-- than to reject by a syntax error (labels, function pointers, `...`) parse
-- into `refused` nodes that the lowering reports.
local errors = require "cgwb.util.errors"
local lpeg = require "lpeg"
local P, R, S, C, Cp, Cc, Ct, Cmt = lpeg.P, lpeg.R, lpeg.S, lpeg.C, lpeg.Cp, lpeg.Cc, lpeg.Ct, lpeg.Cmt

local M = {}

-- Keywords of the subset, and those of C99 that the subset refuses (named in
-- the error message rather than reported as a missing token).
M.keywords = {}
for w in ([[double int void const restrict static inline if else for while do break
  continue return]]):gmatch("%a+") do M.keywords[w] = true end
M.refused = {}
for w in ([[struct union typedef enum goto switch case default float long unsigned
  signed char short sizeof extern register volatile _Bool _Complex auto]]):gmatch("[%a_]+") do
  M.refused[w] = true
end

-- {==== lexical ====}
local alpha = R("az", "AZ") + P"_"
local alnum = alpha + R"09"
local nl = P"\r\n" + P"\n" + P"\r"
local space = S" \t\f\v" + nl
local line_comment = P"//" * (1 - nl)^0
local block_comment = P"/*" * (1 - P"*/")^0 * P"*/"
local pp_rest = (P"\\" * nl + (1 - nl))^0 -- a directive runs on past escaped newlines

-- The state of one match: where `#pragma cgwb` texts were seen (by the
-- position of the `#`), the farthest failure and what was expected there.
local st

local pragma = P"#" * S" \t"^0 * P"pragma" * S" \t"^1 * P"cgwb" * #(S" \t" + nl + -P(1))
  * S" \t"^0 * C(pp_rest)
local function note_pragma(_, i, text)
  if st then st.pragmas[i] = text end
  return true
end
local ppline = Cmt(Cp() * pragma, function(s, i, at, text) return note_pragma(s, at, text) end)
  + P"#" * pp_rest
M.skip = (space + line_comment + block_comment + ppline)^0
local skip = M.skip

local ident_raw = alpha * alnum^0
local digits = R"09"^1
local expo = S"eE" * S"+-"^-1 * digits
local decfloat = (digits * P"." * R"09"^0 + P"." * digits) * expo^-1 + digits * expo
local hexfloat = P"0" * S"xX" * (R("09", "af", "AF")^1 * (P"." * R("09", "af", "AF")^0)^-1)
  * S"pP" * S"+-"^-1 * digits
local hexint = P"0" * S"xX" * R("09", "af", "AF")^1
local number_raw = (hexfloat + decfloat + hexint + digits) * alnum^0 -- a suffix is kept and judged later

-- Punctuators by maximal munch, so `+` never matches the start of `+=`.
local puncts = { "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
  "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##",
  "(", ")", "[", "]", "{", "}", ";", ",", ":", "?", "=", "<", ">", "+", "-", "*", "/", "%",
  "!", "~", "&", "|", "^", ".", "#" }
local punct_raw = P(false)
for _, p in ipairs(puncts) do punct_raw = punct_raw + P(p) end

--- One token's text at a position, for "found X" (nil at the end).
local string_lit = P'"' * (P"\\" * 1 + (1 - S'"\n'))^0 * P'"'^-1
local char_lit = P"'" * (P"\\" * 1 + (1 - S"'\n"))^0 * P"'"^-1
local any_token = C(ident_raw + number_raw + string_lit + char_lit + punct_raw + 1)
function M.token_at(text, pos) return any_token:match(text, pos) end
-- }====

--- The tokens and capture helpers of one grammar (quiet or recording).
local function tokens(record)
  local function expect(name)
    if not record then return P(false) end
    return Cmt(Cp(), function(_, i)
      if i > st.far then st.far, st.expected, st.seen = i, { name }, { [name] = true }
      elseif i == st.far and not st.seen[name] then
        st.seen[name] = true
        st.expected[#st.expected + 1] = name
      end
      return false
    end) * P(false) -- never matches: the loops around it stay non-nullable
  end
  -- A punctuator token: the longest punctuator here must be exactly s.
  -- A punctuator token: the longest punctuator here must be exactly s.  A
  -- quiet token (an optional continuation: an operator, `else`, `,` in a
  -- list) is not worth naming in a message and expects nothing.
  local function T(s, quiet)
    local longer = P(false)
    for _, p in ipairs(puncts) do
      if #p > #s and p:sub(1, #s) == s then longer = longer + P(p) end
    end
    local t = (P(s) - longer) * skip
    return quiet and t or t + expect("'" .. s .. "'")
  end
  local function Q(s) return T(s, true) end
  local function K(w, quiet)
    local t = P(w) * -alnum * skip
    return quiet and t or t + expect("'" .. w .. "'")
  end
  local function KQ(w) return K(w, true) end
  -- An identifier is not a keyword (a pattern, not a match-time capture:
  -- those keep their values on the Lua stack until the match ends).
  local Kw = P(false)
  for w in pairs(M.keywords) do Kw = Kw + P(w) * -alnum end
  for w in pairs(M.refused) do Kw = Kw + P(w) * -alnum end
  local Name = -Kw * C(ident_raw) -- no skip: callers add the position first
  local Ident = Name * skip + expect("an identifier")

  -- Captures are flat: a construct's operands are captured in order and
  -- followed by a reducer (a sentinel table with an arity, Cc'd), so the
  -- match yields one postfix sequence that M.rebuild turns into the tree
  -- with an explicit stack.  Nested captures would hit LPeg's fixed limit of
  -- 200 levels (about 20 brackets); this has no limit but the stack's.
  local function R(n, f) -- f takes the n operands as arguments
    local unpack = table.unpack
    return Cc(M.reducer(n, function(st, b) return f(unpack(st, b, b + n - 1)) end))
  end
  local MARK, LIST = Cc(M.MARK), Cc(M.LIST) -- a variable-length list between them
  local function node(k, ...) -- a node {k = k, field = operand ...}; false operands are absent
    local fields = { ... }
    return Cc(M.reducer(#fields, M.node_maker(k, fields)))
  end

  return { expect = expect, T = T, Q = Q, K = K, KQ = KQ, Name = Name, Ident = Ident, R = R,
    node = node, MARK = MARK, LIST = LIST }
end

--- The expressions: C's precedence levels, unary operators, casts, postfix.
local function expressions(g, tk)
  local V = lpeg.V
  local expect, T, Q, K, KQ, Name, Ident = tk.expect, tk.T, tk.Q, tk.K, tk.KQ, tk.Name, tk.Ident
  local R, node, MARK, LIST = tk.R, tk.node, tk.MARK, tk.LIST
  local AssignOp = P(false)
  for _, o in ipairs({ "=", "+=", "-=", "*=", "/=", "%=" }) do
    AssignOp = AssignOp + Cp() * C(#Q(o) * P(o)) * skip
  end
  g.Expr = V"Assign"
  g.Assign = V"Cond" * (AssignOp * V"Assign" * node("assign", "lhs", "pos", "op", "rhs"))^-1
  g.Cond = V"Binary" * (Cp() * Q"?" * V"Expr" * T":" * V"Cond" * node("cond", "c", "pos", "a", "b"))^-1
  local BIN = node("bin", "a", "pos", "op", "b")
  -- C's binary operators by precedence, loosest first; all left-associative
  local levels = { { "||" }, { "&&" }, { "==", "!=" }, { "<=", ">=", "<", ">" }, { "+", "-" },
    { "*", "/", "%" } }
  for i, ops in ipairs(levels) do
    local op = P(false)
    for _, o in ipairs(ops) do op = op + Cp() * C(#Q(o) * P(o)) * skip end
    local nxt = i < #levels and V("Bin" .. (i + 1)) or V"Unary"
    g["Bin" .. i] = nxt * (op * nxt * BIN)^0
  end
  g.Binary = V"Bin1"
  local CastType = K"int" * Cc"int" + K"double" * Cc"double"
  local UN = node("un", "pos", "op", "a")
  g.Unary = Cp() * (Q"++" * Cc"pre++" + Q"--" * Cc"pre--") * V"Unary" * UN
    + Cp() * (Q"-" * Cc"-" + Q"+" * Cc"+" + Q"!" * Cc"!" + Q"*" * Cc"*" + Q"&" * Cc"&") * V"Unary" * UN
    + Cp() * Q"(" * #(P"int" + P"double") * CastType * T")" * V"Unary" * node("cast", "pos", "ty", "a")
    + V"Postfix"
  local Args = MARK * (V"Assign" * (Q"," * V"Assign")^0)^-1 * LIST
  -- a reducer of its own, not R's: one runs per subscript and call
  local SUFFIX = Cc(M.reducer(4, function(st, b) return M.suffix(st[b], st[b + 1], st[b + 2], st[b + 3]) end))
  g.Postfix = V"Primary" * (Cp() * (Q"[" * Cc"index" * V"Expr" * T"]"
      + Q"(" * Cc"call" * Args * T")"
      + Q"++" * Cc"post++" * Cc(false) + Q"--" * Cc"post--" * Cc(false)) * SUFFIX)^0
  -- A leaf is made by a function capture, not by a reducer: nesting one
  -- level deep costs nothing, and the sequence the rebuild walks holds one
  -- value per name or number instead of three (they are half its nodes).
  local Number = (Cp() * C(number_raw) * skip) / function(pos, text) return { k = "num", pos = pos, text = text } end
  local Id = (Cp() * Name * skip) / function(pos, name) return { k = "id", pos = pos, name = name } end
  g.Primary = Number + Id
    + Q"(" * V"Expr" * T")"
    + expect("an expression")
end

--- Specifiers, declarators, initializers, declarations.
local function declarations(g, tk)
  local V = lpeg.V
  local expect, T, Q, K, KQ, Name, Ident = tk.expect, tk.T, tk.Q, tk.K, tk.KQ, tk.Name, tk.Ident
  local R, node, MARK, LIST = tk.R, tk.node, tk.MARK, tk.LIST
  local Qual = KQ"const" * Cc"const" + KQ"static" * Cc"static" + KQ"inline" * Cc"inline"
    + KQ"restrict" * Cc"restrict"
  local Base = KQ"double" * Cc"double" + KQ"int" * Cc"int" + KQ"void" * Cc"void"
  g.Spec = Cp() * MARK * Qual^0 * LIST * Base * MARK * Qual^0 * LIST * R(4, function(pos, q1, base, q2)
    local t = { pos = pos, base = base, quals = {} }
    for _, q in ipairs(q1) do t.quals[q] = true end
    for _, q in ipairs(q2) do t.quals[q] = true end
    return t
  end)
  local Star = Q"*" * MARK * (KQ"const" * Cc"const" + KQ"restrict" * Cc"restrict")^0 * LIST
  local Stars = MARK * Star^0 * LIST
  local Dim = Cp() * Q"[" * (V"Expr" + Cc(false)) * T"]" * R(2, function(pos, e) return { pos = pos, e = e } end)
  local Dims = MARK * Dim^0 * LIST
  g.Stars, g.Dims = Stars, Dims -- shared with the file scope's parameters
  g.Declarator = Stars * Cp() * Ident * Dims * R(4, function(stars, pos, name, dims)
    local d = { pos = pos, name = name, ptr = #stars, dims = dims }
    for _, st in ipairs(stars) do
      for _, q in ipairs(st) do d["p" .. q] = true end
    end
    return d
  end)
  g.Init = Cp() * Q"{" * MARK * (V"Init" * (Q"," * V"Init")^0 * Q","^-1)^-1 * LIST * T"}" * node("list", "pos", "items")
    + V"Assign"
  g.InitDecl = V"Declarator" * (Q"=" * V"Init" + Cc(false)) * R(2, function(d, init)
    if init then d.init = init end
    return d
  end)
  g.Decl = V"Spec" * MARK * V"InitDecl" * (Q"," * V"InitDecl")^0 * LIST * T";"
    * R(2, function(spec, decls) return { k = "decl", pos = spec.pos, spec = spec, decls = decls } end)
end

--- The statements.
local function statements(g, tk)
  local V = lpeg.V
  local expect, T, Q, K, KQ, Name, Ident = tk.expect, tk.T, tk.Q, tk.K, tk.KQ, tk.Name, tk.Ident
  local R, node, MARK, LIST = tk.R, tk.node, tk.MARK, tk.LIST
  -- The statement's first token is tried quietly: a failure there expects
  -- "a statement", not each keyword.
  g.Stmt = V"Block" + V"If" + V"For" + V"While" + V"Do"
    + Cp() * KQ"break" * T";" * node("break", "pos")
    + Cp() * KQ"continue" * T";" * node("continue", "pos")
    + Cp() * KQ"return" * (V"Expr" + Cc(false)) * T";" * node("return", "pos", "e")
    + V"Decl"
    + Cp() * Name * skip * Cc"a label" * #(P":" * -P":") * T":" * node("refused", "pos", "name", "what")
    + Cp() * #(-S"{};") * V"Expr" * T";" * node("expr", "pos", "e")
    + Cp() * Q";" * node("empty", "pos")
    + expect("a statement")
  g.Block = Cp() * Q"{" * MARK * V"Stmt"^0 * LIST * T"}" * node("block", "pos", "items")
  g.If = Cp() * KQ"if" * T"(" * V"Expr" * T")" * V"Stmt" * (KQ"else" * V"Stmt" + Cc(false))
    * node("if", "pos", "c", "t", "e")
  local ForInit = V"Decl" + (V"Expr" + Cc(false)) * T";"
  g.For = Cp() * KQ"for" * T"(" * ForInit * (V"Expr" + Cc(false)) * T";"
    * (V"Expr" + Cc(false)) * T")" * V"Stmt" * node("for", "pos", "init", "c", "step", "body")
  g.While = Cp() * KQ"while" * T"(" * V"Expr" * T")" * V"Stmt" * node("while", "pos", "c", "body")
  g.Do = Cp() * KQ"do" * V"Stmt" * K"while" * T"(" * V"Expr" * T")" * T";" * node("do", "pos", "body", "c")
end

--- Functions and globals at file scope.
local function file_scope(g, tk)
  local V = lpeg.V
  local expect, T, Q, K, KQ, Name, Ident = tk.expect, tk.T, tk.Q, tk.K, tk.KQ, tk.Name, tk.Ident
  local R, node, MARK, LIST = tk.R, tk.node, tk.MARK, tk.LIST
  -- `double (*f)(double)`: refused at once, the rest need not parse
  local Param = Cmt(Cp() * V"Spec" * Q"(" * Q"*", function(_, _, pos)
      error(errors.refused("a function pointer", { pos = pos, why = "no calls through pointers" }))
    end)
    + V"Spec" * (V"Declarator" + V"Stars" * Cp() * V"Dims" * R(3, function(stars, pos, dims)
      return { pos = pos, ptr = #stars, dims = dims }
    end)) * R(2, function(spec, d) return { spec = spec, d = d } end)
    + Cp() * T"..." * Cc"a variadic function" * node("refused", "pos", "what")
  local Params = #(KQ"void" * Q")") * KQ"void" * MARK * LIST + MARK * (Param * (Q"," * Param)^0)^-1 * LIST
  g.Top = V"Spec" * V"Stars" * Cp() * Ident * Q"(" * Params * T")" * (V"Block" + T";" * Cc(false))
      * R(6, function(spec, stars, pos, name, params, body)
        return { k = "func", pos = pos, spec = spec, ptr = #stars, name = name, params = params, body = body }
      end)
    + V"Decl" * R(1, function(d) d.k = "gdecl"; return d end)
    + expect("a declaration")
end

--- Builds the grammar; with `record`, each failed token notes what it expected.
local function build(record)
  local tk = tokens(record)
  local V, MARK, LIST = lpeg.V, tk.MARK, tk.LIST
  local g = { "Unit" }
  g.Unit = skip * MARK * (V"Top")^0 * LIST * (-P(1) + tk.expect("end of input"))
  expressions(g, tk)
  declarations(g, tk)
  statements(g, tk)
  file_scope(g, tk)
  return Ct(P(g))
end

-- {==== rebuilding the tree ====}
local reducers = setmetatable({}, { __mode = "k" })
--- A sentinel standing for "pop n values, push f(stack, first)".
function M.reducer(n, f)
  local r = { n = n, f = f }
  reducers[r] = true
  return r
end
M.MARK, M.LIST = { "mark" }, { "list" }

--- The function that makes a node {k = k, fields[i] = operand i} from the
-- operands st[b], st[b + 1], ...; a false operand is absent (`or nil`).  One
-- table constructor per arity: it sizes the node once, where filling a
-- {k = k} field by field grew it twice (a node is made per tree node, and
-- this was the rebuild's largest cost).
function M.node_maker(k, fields)
  local n, f1, f2, f3, f4, f5 = #fields, table.unpack(fields)
  if n == 1 then return function(st, b) return { k = k, [f1] = st[b] or nil } end end
  if n == 2 then return function(st, b) return { k = k, [f1] = st[b] or nil, [f2] = st[b + 1] or nil } end end
  if n == 3 then
    return function(st, b) return { k = k, [f1] = st[b] or nil, [f2] = st[b + 1] or nil, [f3] = st[b + 2] or nil } end
  end
  if n == 4 then
    return function(st, b)
      return { k = k, [f1] = st[b] or nil, [f2] = st[b + 1] or nil, [f3] = st[b + 2] or nil, [f4] = st[b + 3] or nil }
    end
  end
  assert(n == 5, "node_maker: 1 to 5 fields")
  return function(st, b)
    return { k = k, [f1] = st[b] or nil, [f2] = st[b + 1] or nil, [f3] = st[b + 2] or nil, [f4] = st[b + 3] or nil,
      [f5] = st[b + 4] or nil }
  end
end

--- The tree from the postfix sequence of a match.
function M.rebuild(seq)
  -- slots above top are stale, never read: no clearing needed
  local stack, top = {}, 0
  local MARK, LIST, is_reducer, move = M.MARK, M.LIST, reducers, table.move
  -- This loop runs once per captured value (millions in a large kernel):
  -- a reducer is told by a table lookup, which any value can index,
  -- rather than by calling type().
  for i = 1, #seq do
    local v = seq[i]
    if is_reducer[v] then
      local b = top - v.n + 1
      stack[b] = v.f(stack, b)
      top = b
    elseif v == LIST then
      local j = top
      while stack[j] ~= MARK do j = j - 1 end
      stack[j] = move(stack, j + 1, top, 1, {})
      top = j
    else -- an operand: a position, a name, false, a node, MARK
      top = top + 1
      stack[top] = v
    end
  end
  return stack[1]
end
-- }====

--- Applies one suffix ([i], (args), ++, --) of a postfix expression.
function M.suffix(e, pos, what, x)
  if what == "index" then return { k = "index", pos = pos, a = e, i = x } end
  if what == "call" then return { k = "call", pos = e.pos, f = e, args = x } end
  return { k = "post", pos = pos, op = what:sub(5), a = e }
end

-- LPeg's backtrack stack (400 entries by default) grows with nesting: an
-- operand in brackets costs about a dozen entries, a nested statement a few.
-- This is enough for max_nesting brackets and thousands of nested statements;
-- beyond it the match raises, and cgwb.kparse reports that as too deep.
M.stack = 200000

local fast, slow
--- Parses text: tree, pragmas (position of `#` -> text); or nil, position,
-- expected names (in the order the grammar tried them).
function M.parse(text)
  lpeg.setmaxstack(M.stack)
  fast = fast or build(false)
  st = { pragmas = {}, far = 0, expected = {}, seen = {} }
  local seq = fast:match(text)
  if seq then return M.rebuild(seq), st.pragmas end
  slow = slow or build(true)
  st = { pragmas = {}, far = 0, expected = {}, seen = {} }
  slow:match(text)
  return nil, st.far, st.expected
end

return M
