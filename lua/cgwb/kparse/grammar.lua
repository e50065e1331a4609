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

--- Builds the grammar; with `record`, each failed token notes what it expected.
local function build(record)
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
  -- A keyword or refused word as a whole word.  A pattern, not a match-time
  -- capture: LPeg keeps every Cmt result on the Lua stack until the match
  -- ends, which overflows it on files of 10^4 statements.
  local words = {}
  for w in pairs(M.keywords) do words[#words + 1] = w end
  for w in pairs(M.refused) do words[#words + 1] = w end
  table.sort(words)
  local reserved = P(false)
  for _, w in ipairs(words) do reserved = reserved + P(w) * -alnum end
  local Ident = -reserved * C(ident_raw) * skip + expect("identifier")
  local Name = -reserved * C(ident_raw) -- no skip: callers add the position first

  local function node(k, ...) -- Ct with k and named fields from captures in order
    local fields = { ... }
    return function(...)
      local t = { k = k }
      local v = { ... }
      for i, f in ipairs(fields) do t[f] = v[i] end
      return t
    end
  end

  local V = lpeg.V
  local g = {}
  g[1] = "Unit"
  g.Unit = skip * Ct((V"Top")^0) * (-P(1) + expect("end of input"))

  -- {==== expressions ====}
  local binops = { "||", "&&", "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "%" }
  local BinOp = P(false)
  for _, o in ipairs(binops) do BinOp = BinOp + Cp() * C(#Q(o) * P(o)) * skip end
  local AssignOp = P(false)
  for _, o in ipairs({ "=", "+=", "-=", "*=", "/=", "%=" }) do
    AssignOp = AssignOp + Cp() * C(#Q(o) * P(o)) * skip
  end

  g.Expr = V"Assign"
  g.Assign = (V"Cond" * (AssignOp * V"Assign")^-1) / function(lhs, pos, op, rhs)
    if not pos then return lhs end
    return { k = "assign", pos = pos, op = op, lhs = lhs, rhs = rhs }
  end
  g.Cond = (V"Binary" * (Cp() * Q"?" * V"Expr" * T":" * V"Cond")^-1) / function(c, pos, a, b)
    if not pos then return c end
    return { k = "cond", pos = pos, c = c, a = a, b = b }
  end
  g.Binary = (V"Unary" * Ct((BinOp * V"Unary")^0)) / M.climb
  local CastType = K"int" * Cc"int" + K"double" * Cc"double"
  g.Unary = Cp() * (Q"++" * Cc"pre++" + Q"--" * Cc"pre--") * V"Unary" / node("un", "pos", "op", "a")
    + Cp() * (Q"-" * Cc"-" + Q"+" * Cc"+" + Q"!" * Cc"!" + Q"*" * Cc"*" + Q"&" * Cc"&")
      * V"Unary" / node("un", "pos", "op", "a")
    + Cp() * Q"(" * #(P"int" + P"double") * CastType * T")" * V"Unary"
      / node("cast", "pos", "ty", "a")
    + V"Postfix"
  local Args = Ct((V"Assign" * (Q"," * V"Assign")^0)^-1)
  g.Postfix = (V"Primary" * Ct((Cp() * (Q"[" * Cc"index" * V"Expr" * T"]"
      + Q"(" * Cc"call" * Args * T")"
      + Q"++" * Cc"post++" + Q"--" * Cc"post--"))^0)) / M.postfix
  local Number = Cp() * C(number_raw) * skip / node("num", "pos", "text")
  g.Primary = Number + Cp() * Name * skip / node("id", "pos", "name")
    + Q"(" * V"Expr" * T")"
    + expect("an expression")
  -- }====

  -- {==== declarations ====}
  local Qual = KQ"const" * Cc"const" + KQ"static" * Cc"static" + KQ"inline" * Cc"inline"
    + KQ"restrict" * Cc"restrict"
  local Base = KQ"double" * Cc"double" + KQ"int" * Cc"int" + KQ"void" * Cc"void"
  g.Spec = Cp() * Ct(Qual^0) * Base * Ct(Qual^0) / function(pos, q1, base, q2)
    local t = { pos = pos, base = base, quals = {} }
    for _, q in ipairs(q1) do t.quals[q] = true end
    for _, q in ipairs(q2) do t.quals[q] = true end
    return t
  end
  local Star = Q"*" * Ct((KQ"const" * Cc"const" + KQ"restrict" * Cc"restrict")^0)
  local Dim = Cp() * Q"[" * (V"Expr" + Cc(false)) * T"]" / function(pos, e) return { pos = pos, e = e } end
  g.Declarator = (Ct(Star^0) * Cp() * Ident * Ct(Dim^0)) / function(stars, pos, name, dims)
    local d = { pos = pos, name = name, ptr = #stars, dims = dims }
    for _, s in ipairs(stars) do
      for _, q in ipairs(s) do d["p" .. q] = true end
    end
    return d
  end
  g.Init = Cp() * Q"{" * Ct((V"Init" * (Q"," * V"Init")^0 * Q","^-1)^-1) * T"}"
      / function(pos, items) return { k = "list", pos = pos, items = items } end
    + V"Assign"
  g.InitDecl = (V"Declarator" * (Q"=" * V"Init")^-1) / function(d, init) d.init = init; return d end
  g.Decl = (V"Spec" * Ct(V"InitDecl" * (Q"," * V"InitDecl")^0) * T";")
    / function(spec, decls) return { k = "decl", pos = spec.pos, spec = spec, decls = decls } end
  -- }====

  -- {==== statements ====}
  local function stmt(k, ...) return node(k, "pos", ...) end
  -- The statement's first token is tried quietly: a failure there expects
  -- "a statement", not each keyword.
  g.Stmt = V"Block" + V"If" + V"For" + V"While" + V"Do"
    + Cp() * KQ"break" * T";" / stmt("break")
    + Cp() * KQ"continue" * T";" / stmt("continue")
    + Cp() * KQ"return" * (V"Expr" + Cc(nil)) * T";" / stmt("return", "e")
    + V"Decl"
    + Cp() * Name * skip * Cc"a label" * #(P":" * -P":") * T":" / stmt("refused", "name", "what")
    + Cp() * #(-S"{};") * V"Expr" * T";" / stmt("expr", "e")
    + Cp() * Q";" / stmt("empty")
    + expect("a statement")
  g.Block = Cp() * Q"{" * Ct(V"Stmt"^0) * T"}" / stmt("block", "items")
  g.If = Cp() * KQ"if" * T"(" * V"Expr" * T")" * V"Stmt" * (KQ"else" * V"Stmt")^-1
    / stmt("if", "c", "t", "e")
  local ForInit = V"Decl" + (V"Expr" + Cc(false)) * T";"
  g.For = Cp() * KQ"for" * T"(" * ForInit * (V"Expr" + Cc(false)) * T";"
    * (V"Expr" + Cc(false)) * T")" * V"Stmt" / stmt("for", "init", "c", "step", "body")
  g.While = Cp() * KQ"while" * T"(" * V"Expr" * T")" * V"Stmt" / stmt("while", "c", "body")
  g.Do = Cp() * KQ"do" * V"Stmt" * K"while" * T"(" * V"Expr" * T")" * T";" / stmt("do", "body", "c")
  -- }====

  -- {==== file scope ====}
  local Param = Cp() * V"Spec" * T"(" * T"*" * Cc"a function pointer" / function(pos, _, what)
      return { k = "refused", pos = pos, what = what }
    end
    + (V"Spec" * (V"Declarator" + Ct(Star^0) * Cp() * Ct(Dim^0) / function(stars, pos, dims)
      return { pos = pos, ptr = #stars, dims = dims, pconst = false }
    end)) / function(spec, d) return { spec = spec, d = d } end
    + Cp() * T"..." * Cc"a variadic function" / function(pos, what)
      return { k = "refused", pos = pos, what = what }
    end
  local Params = #(KQ"void" * Q")") * KQ"void" * Ct(P(true)) + Ct((Param * (Q"," * Param)^0)^-1)
  g.Top = (V"Spec" * Ct(Star^0) * Cp() * Ident * Q"(" * Params * T")"
      * (V"Block" + T";" * Cc(false)))
      / function(spec, stars, pos, name, params, body)
        return { k = "func", pos = pos, spec = spec, ptr = #stars, name = name, params = params, body = body }
      end
    + V"Decl" / function(d) d.k = "gdecl"; return d end
    + expect("a declaration")
  -- }====
  return P(g)
end

--- Folds `e1 op e2 op e3 ...` by C's precedence, left-associative.
local prec = { ["||"] = 1, ["&&"] = 2, ["=="] = 3, ["!="] = 3, ["<"] = 4, ["<="] = 4, [">"] = 4,
  [">="] = 4, ["+"] = 5, ["-"] = 5, ["*"] = 6, ["/"] = 6, ["%"] = 6 }
function M.climb(first, rest)
  if #rest == 0 then return first end
  local i = 1
  local function parse(lhs, minp)
    while i <= #rest do
      local pos, op = rest[i], rest[i + 1]
      local p = prec[op]
      if p < minp then break end
      local rhs = rest[i + 2]
      i = i + 3
      while i <= #rest and prec[rest[i + 1]] > p do rhs = parse(rhs, p + 1) end
      lhs = { k = "bin", pos = pos, op = op, a = lhs, b = rhs }
    end
    return lhs
  end
  return parse(first, 1)
end

--- Applies the suffixes ([i], (args), ++, --) of a postfix expression.
function M.postfix(e, sufs)
  local i = 1
  while i <= #sufs do
    local pos, what = sufs[i], sufs[i + 1]
    if what == "index" then
      e = { k = "index", pos = pos, a = e, i = sufs[i + 2] }
      i = i + 3
    elseif what == "call" then
      e = { k = "call", pos = e.pos, f = e, args = sufs[i + 2] }
      i = i + 3
    else
      e = { k = "post", pos = pos, op = what:sub(5), a = e }
      i = i + 2
    end
  end
  return e
end

local fast, slow
--- Parses text: tree, pragmas (position of `#` -> text); or nil, position,
-- expected names (in the order the grammar tried them).
function M.parse(text)
  fast = fast or build(false)
  st = { pragmas = {}, far = 0, expected = {}, seen = {} }
  local tree = fast:match(text)
  if tree then return tree, st.pragmas end
  slow = slow or build(true)
  st = { pragmas = {}, far = 0, expected = {}, seen = {} }
  slow:match(text)
  return nil, st.far, st.expected
end

return M
