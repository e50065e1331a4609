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

-- The keywords of C99 and C11 and the GNU ones of glibc's headers: none is
-- an identifier.  M.keywords is the set; M.refused (names a syntax error
-- reports as a construct outside the subset) is empty now that all of C99
-- parses: the lowering names what it refuses.
M.keywords = {}
for w in ([[auto break case char const continue default do double else enum extern float for goto
  if inline int long register restrict return short signed sizeof static struct switch typedef union
  unsigned void volatile while _Bool _Complex _Imaginary _Alignas _Alignof _Atomic _Generic _Noreturn
  _Static_assert _Thread_local __attribute__ __attribute __asm__ __asm __extension__ __restrict
  __restrict__ __const __const__ __inline __inline__ __signed __signed__ __volatile __volatile__
  __typeof__ __typeof __int128 __float128 __float80 __ibm128 _Float16 _Float32 _Float64 _Float128
  _Float32x _Float64x _Float128x __builtin_va_list __builtin_va_arg __builtin_offsetof __alignof__
  __alignof __thread __complex__ __real__ __imag__ __label__]]):gmatch("[%w_]+") do
  M.keywords[w] = true
end
M.refused = {}

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

--- A pattern matching exactly the words of set (each followed by no
-- identifier character), as a trie: one choice per next character, so an
-- identifier is told from a keyword in a byte or two (a flat choice of
-- ninety keywords tried each in turn, most of them starting `__`).
function M.trie(set)
  local function build(words, depth)
    local by, ends = {}, false
    for _, w in ipairs(words) do
      if #w == depth then ends = true
      else
        local c = w:sub(depth + 1, depth + 1)
        by[c] = by[c] or {}
        table.insert(by[c], w)
      end
    end
    local chars = {}
    for c in pairs(by) do chars[#chars + 1] = c end
    table.sort(chars)
    local p = P(false)
    for _, c in ipairs(chars) do p = p + P(c) * build(by[c], depth + 1) end
    if ends then
      local w = words[1]
      for _, x in ipairs(words) do if #x == depth then w = x end end
      p = p + -alnum * (type(set[w]) == "string" and Cc(set[w]) or P(true))
    end
    return p
  end
  local words = {}
  for w in pairs(set) do words[#words + 1] = w end
  table.sort(words)
  return build(words, 0)
end

--- One token's text at a position, for "found X" (nil at the end).
local string_lit = P'"' * (P"\\" * 1 + (1 - S'"\n'))^0 * P'"'^-1
local char_lit = P"'" * (P"\\" * 1 + (1 - S"'\n"))^0 * P"'"^-1
local lit_prefix = (P"u8" + S"LuU")^-1
-- the literals as the grammar takes them: closed on the line
M.string_tok = lit_prefix * P'"' * (P"\\" * 1 + (1 - S'"\\\n'))^0 * P'"'
M.char_tok = lit_prefix * P"'" * (P"\\" * 1 + (1 - S"'\\\n"))^1 * P"'"
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
  local Kw = M.trie(M.keywords)
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
  for _, o in ipairs({ "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=" }) do
    AssignOp = AssignOp + Cp() * C(#Q(o) * P(o)) * skip
  end
  -- Each optional continuation first tests its first byte, before any
  -- capture: a failing test then costs one instruction (an operand passes
  -- through every precedence level).
  AssignOp = #S"=+-*/%<>&|^" * AssignOp
  g.Expr = V"Assign" * (#P"," * Cp() * Q"," * V"Assign" * node("comma", "a", "pos", "b"))^0
  g.Assign = V"Cond" * (AssignOp * V"Assign" * node("assign", "lhs", "pos", "op", "rhs"))^-1
  g.Cond = V"Binary" * (#P"?" * Cp() * Q"?" * V"Expr" * T":" * V"Cond" * node("cond", "c", "pos", "a", "b"))^-1
  local BIN = node("bin", "a", "pos", "op", "b")
  -- C's binary operators by precedence, loosest first; all left-associative
  local levels = { { "||" }, { "&&" }, { "|" }, { "^" }, { "&" }, { "==", "!=" }, { "<=", ">=", "<", ">" },
    { "<<", ">>" }, { "+", "-" }, { "*", "/", "%" } }
  for i, ops in ipairs(levels) do
    local op = P(false)
    local first = ""
    for _, o in ipairs(ops) do
      op = op + Cp() * C(#Q(o) * P(o)) * skip
      if not first:find(o:sub(1, 1), 1, true) then first = first .. o:sub(1, 1) end
    end
    op = #S(first) * op
    local nxt = i < #levels and V("Bin" .. (i + 1)) or V"Cast"
    g["Bin" .. i] = nxt * (op * nxt * BIN)^0
  end
  g.Binary = V"Bin1"
  local UN = node("un", "pos", "op", "a")
  -- `(` type-name `)`: a cast, or a compound literal when a brace list follows
  -- (`(int)` and `(double)` read directly: the type names of most casts)
  local Paren = Q"(" * (#(P"int" + P"double") * (KQ"int" * Cc(M.PLAIN_TYPE.int) + KQ"double" * Cc(M.PLAIN_TYPE.double))
      * Q")" + #V"TypeStart" * V"TypeName" * T")")
  g.Unary = #(S"+-!*&~" + P"sizeof" + P"_") * (Cp() * (Q"++" * Cc"pre++" + Q"--" * Cc"pre--") * V"Unary" * UN
    + Cp() * (Q"-" * Cc"-" + Q"+" * Cc"+" + Q"!" * Cc"!" + Q"*" * Cc"*" + Q"&" * Cc"&" + Q"~" * Cc"~"
      + KQ"__real__" * Cc"__real__" + KQ"__imag__" * Cc"__imag__") * V"Cast" * UN
    + Cp() * KQ"sizeof" * (Q"(" * #V"TypeStart" * V"TypeName" * T")" * node("sizeof", "pos", "ty")
      + V"Unary" * node("sizeof", "pos", "e"))
    + Cp() * (KQ"_Alignof" + KQ"__alignof__" + KQ"__alignof") * T"(" * (#V"TypeStart" * V"TypeName" * T")"
      * node("alignof", "pos", "ty") + V"Expr" * T")" * node("alignof", "pos", "e"))
    + KQ"__extension__" * V"Cast")
    + V"Postfix"
  g.Cast = #P"(" * Cp() * Paren * (#Q"{" * V"InitList" * node("compound", "pos", "ty", "init") * V"PostfixTail"
      + V"Cast" * node("cast", "pos", "ty", "a"))
    + V"Unary"
  local Args = MARK * (V"Assign" * (Q"," * V"Assign")^0)^-1 * LIST
  -- a reducer of its own, not R's: one runs per subscript and call
  local SUFFIX = Cc(M.reducer(4, function(st, b) return M.suffix(st[b], st[b + 1], st[b + 2], st[b + 3]) end))
  g.PostfixTail = (#S"[(+-.>" * Cp() * (Q"[" * Cc"index" * V"Expr" * T"]"
      + Q"(" * Cc"call" * Args * T")"
      + Q"++" * Cc"post++" * Cc(false) + Q"--" * Cc"post--" * Cc(false)
      + Q"." * Cc"." * Ident + Q"->" * Cc"->" * Ident) * SUFFIX)^0
  g.Postfix = V"Primary" * g.PostfixTail
  -- A leaf is made by a function capture, not by a reducer: nesting one
  -- level deep costs nothing, and the sequence the rebuild walks holds one
  -- value per name or number instead of three (they are half its nodes).
  local Number = (Cp() * C(number_raw) * skip) / function(pos, text) return { k = "num", pos = pos, text = text } end
  local Id = (Cp() * Name * skip) / function(pos, name) return { k = "id", pos = pos, name = name } end
  -- adjacent string literals are one (C99 5.1.1.2: phase 6)
  local Str = (Cp() * C((M.string_tok * skip)^1)) / function(pos, text) return { k = "str", pos = pos, text = text } end
  local Chr = (Cp() * C(M.char_tok) * skip) / function(pos, text) return { k = "char", pos = pos, text = text } end
  g.Primary = Number + Str + Chr + Id -- a prefixed literal (L"..", u'x') before the name L, u
    + Cp() * Q"(" * #Q"{" * V"Block" * T")" * node("stmtexpr", "pos", "body")
    + Q"(" * V"Expr" * T")"
    + Cp() * KQ"__builtin_va_arg" * T"(" * V"Assign" * T"," * V"TypeName" * T")" * node("va_arg", "pos", "e", "ty")
    + Cp() * KQ"__builtin_offsetof" * T"(" * V"TypeName" * T"," * V"Designator" * T")"
      * node("offsetof", "pos", "ty", "e")
    + Cp() * KQ"_Generic" * T"(" * V"Assign" * MARK * (Q"," * (KQ"default" * Cc(false) + V"TypeName") * T":"
      * V"Assign" * R(2, function(ty, e) return { ty = ty, e = e } end))^1 * LIST * T")"
      * node("generic", "pos", "e", "assoc")
    + expect("an expression")
  -- offsetof's member: name (.name | [expr])*
  g.Designator = (Cp() * Name * skip) / function(pos, name) return { k = "id", pos = pos, name = name } end
    * (Cp() * (Q"." * Cc"." * Ident + Q"[" * Cc"index" * V"Expr" * T"]") * SUFFIX)^0
end

--- Specifiers, declarators, initializers, declarations.
local function declarations(g, tk)
  local V = lpeg.V
  local expect, T, Q, K, KQ, Name, Ident = tk.expect, tk.T, tk.Q, tk.K, tk.KQ, tk.Name, tk.Ident
  local R, node, MARK, LIST = tk.R, tk.node, tk.MARK, tk.LIST
  local function words(list, canon) -- keywords captured as their canonical name
    local p = P(false)
    for w in list:gmatch("[%w_]+") do p = p + KQ(w) * Cc(canon or w) end
    return p
  end
  -- the same as one trie (set: word -> canonical name), its skip after
  local function wordset(...)
    local set = {}
    for _, pair in ipairs({ ... }) do
      for w in pair[1]:gmatch("[%w_]+") do set[w] = pair[2] or w end
    end
    return M.trie(set) * skip
  end
  -- balanced brackets, skipped whole: __attribute__((...)), __asm__(...)
  g.Bal = P"(" * (M.string_tok + M.char_tok + block_comment + (1 - S"()\"'/") + P"/" + V"Bal")^0 * P")"
  local Attr = (KQ"__attribute__" + KQ"__attribute") * #P"(" * V"Bal" * skip
  local Asm = (KQ"__asm__" + KQ"__asm") * (KQ"__volatile__" + KQ"volatile" + KQ"goto" + KQ"inline")^0
    * #P"(" * V"Bal" * skip
  g.Gnu = (Attr + Asm + KQ"__extension__")^0
  local Gnu = V"Gnu"
  local Qual = words("const __const __const__", "const") + words("restrict __restrict __restrict__", "restrict")
    + words("volatile __volatile __volatile__", "volatile") + KQ"_Atomic" * -#Q"(" * Cc"_Atomic"
  local QualStorage = wordset({ "const __const __const__", "const" }, { "restrict __restrict __restrict__", "restrict" },
    { "volatile __volatile __volatile__", "volatile" }, { "static extern auto register _Thread_local _Noreturn typedef" },
    { "__thread", "_Thread_local" }, { "inline __inline __inline__", "inline" })
  local Other = QualStorage + KQ"_Atomic" * -#Q"(" * Cc"_Atomic" + Attr + Asm + KQ"__extension__"
    + KQ"_Alignas" * T"(" * (#V"TypeStart" * V"TypeName" + V"Expr") * T")" * R(1, function() return "_Alignas" end)
  local TypeKw = wordset({ [[void char short int long float double unsigned _Bool _Complex __int128 __float128
      __float80 __ibm128 _Float16 _Float32 _Float64 _Float128 _Float32x _Float64x _Float128x _Imaginary]] },
    { "signed __signed __signed__", "signed" }, { "__complex__", "_Complex" }, { "__builtin_va_list", "va_list" })
  -- the lexer hack: a typedef name is a type specifier (st.typedefs, filled
  -- as typedef declarations complete)
  local TypedefName = Cmt(Cp() * Name, function(_, i, pos, name)
    if st.typedefs[name] then return i, { k = "tname", pos = pos, name = name } end
    return false
  end) * skip
  local StructSpec = Cp() * (KQ"struct" * Cc"struct" + KQ"union" * Cc"union") * Gnu * (Name * skip + Cc(false))
    * (Q"{" * MARK * V"Member"^0 * LIST * T"}" + Cc(false)) * Gnu
    * node("struct", "pos", "kind", "tag", "members")
  local Enumerator = Cp() * Name * skip * Gnu * (Q"=" * V"Cond" + Cc(false))
    * R(3, function(pos, name, e) return { pos = pos, name = name, e = e } end)
  local EnumSpec = Cp() * KQ"enum" * Gnu * (Name * skip + Cc(false))
    * (Q"{" * MARK * (Enumerator * (Q"," * Enumerator)^0 * Q","^-1)^-1 * LIST * T"}" + Cc(false)) * Gnu
    * node("enum", "pos", "tag", "items")
  local Typeof = Cp() * (KQ"__typeof__" + KQ"__typeof") * T"(" * (#V"TypeStart" * V"TypeName"
    * node("typeof", "pos", "ty") + V"Expr" * node("typeof", "pos", "e")) * T")"
  local TypeSpec = TypeKw + StructSpec + EnumSpec + Typeof
  -- where a type name may start (a cast, sizeof, a statement's declaration)
  -- (a trie of the keywords that can start one, then the typedef names: a
  -- statement that is an expression is told from a declaration in a few bytes)
  local starters = {}
  for w in ([[const __const __const__ restrict __restrict __restrict__ volatile __volatile __volatile__
    _Atomic static extern auto register _Thread_local _Noreturn __thread inline __inline __inline__
    typedef __attribute__ __attribute __asm__ __asm __extension__ _Alignas void char short int long float
    double unsigned _Bool _Complex __int128 __float128 __float80 __ibm128 _Float16 _Float32 _Float64
    _Float128 _Float32x _Float64x _Float128x _Imaginary signed __signed __signed__ __complex__
    __builtin_va_list struct union enum __typeof__ __typeof]]):gmatch("[%w_]+") do starters[w] = true end
  local IsTypedef = Cmt(Cp() * ident_raw, function(s, i, at) return st.typedefs[s:sub(at, i - 1)] ~= nil end)
  g.DeclStart = M.trie(starters) + IsTypedef
  g.TypeStart = V"DeclStart"
  g.Spec = Cp() * MARK * Other^0 * (TypeSpec * (Other + TypeSpec)^0 + TypedefName * Other^0) * LIST
    * R(2, M.spec)
  -- declarators, named or abstract: the derivations from the name outward
  local Ptr = Cp() * Q"*" * MARK * (Qual + Attr)^0 * LIST
    * R(2, function(pos, quals) return { k = "ptr", pos = pos, quals = quals } end)
  local Dim = Cp() * Q"[" * MARK * (Qual + KQ"static" * Cc"static")^0 * LIST
    * (Q"*" * #P"]" * Cc"*" + V"Assign" + Cc(false)) * T"]" * R(3, function(pos, quals, e)
      local star = e == "*"
      return { k = "array", pos = pos, e = (not star) and e or false, quals = quals, star = star or nil }
    end)
  local Param = V"Spec" * V"Declarator" * Gnu * R(2, function(spec, d) return { spec = spec, d = d } end)
    + Cp() * Q"..." * Cc"a variadic function" * node("refused", "pos", "what")
    + expect("a parameter declaration")
  local Params = #(KQ"void" * Q")") * KQ"void" * MARK * LIST
    + MARK * (Param * (Q"," * Param)^0)^-1 * LIST
  local Fn = Cp() * Q"(" * Params * T")" * R(2, function(pos, params)
    return { k = "func", pos = pos, params = params }
  end)
  local Suffix = Dim + Fn
  -- `(` starts a nested declarator unless a parameter list starts there
  local Nested = Cp() * Q"(" * -(V"TypeStart" + Q")" + Q"...") * Gnu * V"Declarator" * T")"
  g.Declarator = MARK * Ptr^0 * LIST * Gnu
    * (Nested + Cp() * Name * skip + Cp() * Cc(false))
    * MARK * Suffix^0 * LIST * R(4, M.declarator)
  g.TypeName = V"Spec" * V"Declarator" * R(2, M.typename)
  g.Member = V"Spec" * MARK * ((V"Declarator" * (Q":" * V"Cond" + Cc(false)) * Gnu * R(2, function(d, bits)
      d.bits = bits
      return d
    end)) * (Q"," * V"Declarator" * (Q":" * V"Cond" + Cc(false)) * Gnu * R(2, function(d, bits)
      d.bits = bits
      return d
    end))^0)^-1 * LIST * T";" * R(2, function(spec, decls) return { spec = spec, decls = decls } end)
    + KQ"_Static_assert" * T"(" * V"Cond" * (Q"," * (M.string_tok * skip)^1)^-1 * T")" * T";"
      * R(1, function() return { static_assert = true } end)
    + Q";"
  -- initializers: expressions, brace lists with designators
  local Desig = Cp() * MARK * (Q"[" * V"Cond" * (Q"..." * V"Cond")^-1 * T"]" * R(1, function(e) return { e = e } end)
      + Q"." * Ident * R(1, function(n) return { name = n } end))^1 * LIST * T"="
    + Cp() * MARK * Name * skip * R(1, function(n) return { name = n } end) * LIST * Q":" -- GNU `name:`
  g.InitList = Cp() * Q"{" * MARK * (V"Item" * (Q"," * V"Item")^0 * Q","^-1)^-1 * LIST * T"}"
    * node("list", "pos", "items")
  g.Item = Desig * V"Init" * node("desig", "pos", "path", "init") + V"Init"
  g.Init = V"InitList" + V"Assign"
  g.InitDecl = V"Declarator" * Gnu * (Q"=" * V"Init" + Cc(false)) * R(2, function(d, init)
    if init then d.init = init end
    return d
  end)
  local DeclBody = V"Spec" * MARK * (V"InitDecl" * (Q"," * V"InitDecl")^0)^-1 * LIST * T";"
    * R(2, function(spec, decls) return { k = "decl", pos = spec.pos, spec = spec, decls = decls } end)
  -- A typedef declaration is the one match-time capture around a
  -- declaration: its names become type specifiers once it completes.
  local Typedef = #(Gnu * KQ"typedef") * Cmt(DeclBody, function(_, i, ...)
    local d = M.rebuild({ ... })
    for _, x in ipairs(d.decls) do
      if x.name then st.typedefs[x.name] = true end
    end
    return i, d
  end)
  local StaticAssert = Cp() * KQ"_Static_assert" * T"(" * V"Cond" * (Q"," * (M.string_tok * skip)^1)^-1 * T")"
    * T";" * R(2, function(pos, e) return { k = "static_assert", pos = pos, e = e } end)
  g.Typedef, g.StaticAssert = Typedef, StaticAssert
  g.Decl = Typedef + DeclBody + StaticAssert
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
    + #M.trie({ switch = true, case = true, default = true, ["goto"] = true, __asm__ = true, __asm = true,
      __attribute__ = true, __attribute = true }) * (Cp() * KQ"switch" * T"(" * V"Expr" * T")" * V"Stmt" * node("switch", "pos", "c", "body")
    + Cp() * KQ"case" * V"Cond" * (Q"..." * V"Cond" + Cc(false)) * T":" * (V"Stmt" + #Q"}" * Cc(false))
      * node("case", "pos", "e", "e2", "s")
    + Cp() * KQ"default" * T":" * (V"Stmt" + #Q"}" * Cc(false)) * node("default", "pos", "s")
    + Cp() * KQ"goto" * (Q"*" * V"Cast" * R(1, function() return "*" end) + Ident) * T";" * node("goto", "pos", "name")
    + Cp() * (KQ"__asm__" + KQ"__asm") * (KQ"__volatile__" + KQ"volatile" + KQ"goto" + KQ"inline")^0
      * #P"(" * V"Bal" * skip * T";" * Cc"an asm statement" * node("refused", "pos", "what")
    + Cp() * #(KQ"__attribute__" + KQ"__attribute") * V"Gnu" * T";" * node("empty", "pos"))
    + #V"DeclStart" * V"Decl"
    + Cp() * Name * skip * #(P":" * -P":") * T":" * V"Gnu" * (V"Stmt" + #Q"}" * Cc(false))
      * node("label", "pos", "name", "s")
    + Cp() * #(-S"{};") * V"Expr" * T";" * node("expr", "pos", "e")
    + Cp() * Q";" * node("empty", "pos")
    + expect("a statement")
  g.Block = Cp() * Q"{" * MARK * V"Stmt"^0 * LIST * T"}" * node("block", "pos", "items")
  g.If = Cp() * KQ"if" * T"(" * V"Expr" * T")" * V"Stmt" * (KQ"else" * V"Stmt" + Cc(false))
    * node("if", "pos", "c", "t", "e")
  local ForInit = #V"DeclStart" * V"Decl" + (V"Expr" + Cc(false)) * T";"
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
  -- a definition: specifiers, a declarator whose first derivation is a
  -- function, a body; anything else is a declaration
  g.Top = V"Typedef" * R(1, function(d) d.k = "gdecl"; return d end)
    + V"Spec" * V"Declarator" * V"Gnu" * (V"Block" * R(3, M.funcdef)
      + (Q"=" * V"Init" + Cc(false)) * MARK * (Q"," * V"InitDecl")^0 * LIST * T";" * R(4, M.gdecl))
    + V"StaticAssert"
    + Cp() * (KQ"__asm__" + KQ"__asm") * #P"(" * V"Bal" * skip * T";" * node("toplevel_asm", "pos")
    + Q";"
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

--- Applies one suffix ([i], (args), ++, --, .m, ->m) of a postfix expression.
function M.suffix(e, pos, what, x)
  if what == "index" then return { k = "index", pos = pos, a = e, i = x } end
  if what == "call" then
    if e.k == "id" then -- the calls of names, for the lowering's call graph
      local calls = st.calls
      calls[#calls + 1] = e
    end
    return { k = "call", pos = e.pos, f = e, args = x }
  end
  if what == "." or what == "->" then return { k = "member", pos = pos, a = e, name = x, arrow = what == "->" } end
  return { k = "post", pos = pos, op = what:sub(5), a = e }
end

-- {==== specifiers, declarators, type names ====}
-- The type keywords of a specifier (each counted), the rest are qualifiers,
-- storage classes and function specifiers (a set).
local TYPE_KW = {}
for w in ([[void char short int long float double signed unsigned _Bool _Complex __int128 __float128
  __float80 __ibm128 _Float16 _Float32 _Float64 _Float128 _Float32x _Float64x _Float128x _Imaginary
  va_list]]):gmatch("[%w_]+") do TYPE_KW[w] = true end
-- the bases one keyword names alone
local ONLY = {}
for w in ([[void char float _Bool __int128 __float128 __float80 __ibm128 _Float16 _Float32 _Float64 _Float128
  _Float32x _Float64x _Float128x va_list]]):gmatch("[%w_]+") do ONLY[w] = true end

--- A specifier {pos, base, quals = {set}, signed = true|false|nil, long =
-- count, short, complex, tag, members (struct/union), items (enum), tname
-- (typedef name), of (typeof), bad (a combination C does not allow)} from
-- the list of its keywords (canonical names) and specifier nodes.
local PLAIN = { int = true, double = true, void = true, char = true, float = true }
function M.spec(pos, items)
  local x1 = items[1]
  if items[2] == nil and PLAIN[x1] then return { pos = pos, base = x1, quals = {} } end -- the common case
  local t = { pos = pos, quals = {} }
  local n, bases = {}, 0
  for _, x in ipairs(items) do
    if type(x) == "string" then
      if TYPE_KW[x] then n[x] = (n[x] or 0) + 1 else t.quals[x] = true end
    elseif x.k == "struct" then
      t.base, t.tag, t.members, bases = x.kind, x.tag or nil, x.members or nil, bases + 1
      t.tagpos = x.pos
    elseif x.k == "enum" then
      t.base, t.tag, t.items, bases = "enum", x.tag or nil, x.items or nil, bases + 1
      t.tagpos = x.pos
    elseif x.k == "typeof" then t.base, t.of, bases = "typeof", x, bases + 1
    elseif x.k == "tname" then t.base, t.tname, bases = "typedef", x.name, bases + 1 end
  end
  if n.unsigned then t.signed = false elseif n.signed then t.signed = true end
  if n._Complex then t.complex = true end
  if n._Imaginary then t.imaginary = true end
  t.long = n.long
  if n.short then t.short = true end
  for b, c in pairs(n) do
    if ONLY[b] then t.base, bases = b, bases + c end
  end
  if n.double then
    t.base, bases = (n.long == 1 and "long double" or "double"), bases + n.double
    if n.long == 1 then t.long = nil end
  elseif n.short then t.base, bases = "short", bases + 1
  elseif n.long then t.base, bases = "long", bases + 1
  elseif n.int then t.base, bases = "int", bases + 1 end
  if n.int and (n.short or n.long) then bases = bases - 1 end
  if not t.base and (n.signed or n.unsigned or n._Complex) then
    t.base, bases = n._Complex and "double" or "int", bases + 1
  end
  if n.int and not (n.short or n.long) and bases > 1 and t.base ~= "int" then bases = bases + 0 end
  if bases > 1 or (n.long or 0) > 2 or (n.signed and n.unsigned) or (n.short and n.long) then
    t.bad = "a combination of type specifiers C does not allow"
  end
  t.base = t.base or "int"
  return t
end

--- A declarator {pos, name (nil: abstract), ops} with ops its derivations
-- from the name outward ({k = "array", e, quals}, {k = "func", params},
-- {k = "ptr", quals}), and the reading the lowering takes for the common
-- shape `*...* name [..]...`: ptr (count), dims ({pos, e} list), p<qual>
-- (a qualifier on any `*`), nested (the name was in brackets), shape
-- (true when ops are arrays, then pointers, and nothing else).
function M.declarator(ptrs, pos, core, suffixes)
  if ptrs[1] == nil and suffixes[1] == nil and type(core) ~= "table" then -- the common case: a name
    return { pos = pos, name = core or nil, ops = suffixes, dims = ptrs, ptr = 0, shape = true }
  end
  local ops, d = {}, nil
  if type(core) == "table" then
    d = core
    for _, o in ipairs(core.ops) do ops[#ops + 1] = o end
    d.nested = true
  else
    d = { pos = pos, name = core or nil }
  end
  for _, s in ipairs(suffixes) do ops[#ops + 1] = s end
  for i = #ptrs, 1, -1 do ops[#ops + 1] = ptrs[i] end
  d.ops = ops
  local dims, i, np = {}, 1, 0
  while ops[i] and ops[i].k == "array" do
    dims[#dims + 1] = { pos = ops[i].pos, e = ops[i].e, star = ops[i].star }
    i = i + 1
  end
  local j = i
  while ops[j] and ops[j].k == "ptr" do
    np = np + 1
    for _, q in ipairs(ops[j].quals) do d["p" .. q] = true end
    j = j + 1
  end
  d.dims, d.ptr = dims, np
  d.shape = ops[j] == nil
  return d
end

--- The type names `int` and `double` as casts most often name them: one
-- table each, shared by every cast that names them (read-only).
M.PLAIN_TYPE = {}
for _, b in ipairs({ "int", "double" }) do
  M.PLAIN_TYPE[b] = { base = b, quals = {}, ptr = 0, dims = {}, ops = {}, shape = true }
end

--- A type name (cast, sizeof, compound literal): the specifier's fields
-- with the abstract declarator's ptr, dims and ops.
function M.typename(spec, d)
  local t = {}
  for k, v in pairs(spec) do t[k] = v end
  t.ptr, t.dims, t.ops, t.shape, t.d = d.ptr, d.dims, d.ops, d.shape, d
  t.pconst, t.prestrict, t.pvolatile = d.pconst, d.prestrict, d.pvolatile
  return t
end

--- A function definition: {k = "func", pos, spec, name, params, ptr (the
-- pointer levels of the return type), rets (a derivation of the return
-- type other than a pointer), body, d}.
function M.funcdef(spec, d, body)
  local f = d.ops[1]
  if not f or f.k ~= "func" then
    return { k = "baddef", pos = d.pos, name = d.name }
  end
  local np, rest = 0, false
  for i = 2, #d.ops do
    if d.ops[i].k == "ptr" then np = np + 1 else rest = rest or d.ops[i] end
  end
  return { k = "func", pos = d.pos, spec = spec, name = d.name, params = f.params, ptr = np, rets = rest or nil,
    body = body, d = d }
end

--- A file-scope declaration from its first declarator (and initializer)
-- and the rest.
function M.gdecl(spec, d, init, rest)
  if init then d.init = init end
  local decls = { d }
  for _, x in ipairs(rest) do decls[#decls + 1] = x end
  return { k = "gdecl", pos = spec.pos, spec = spec, decls = decls }
end
-- }====

-- LPeg's backtrack stack (400 entries by default) grows with nesting: an
-- operand in brackets costs about a dozen entries, a nested statement a few.
-- This is enough for max_nesting brackets and thousands of nested statements;
-- beyond it the match raises, and cgwb.kparse reports that as too deep.
M.stack = 200000

local fast, slow
--- Parses text: tree, pragmas (position of `#` -> text), calls (the id
-- nodes of called names); or nil, position,
-- expected names (in the order the grammar tried them).
function M.parse(text)
  lpeg.setmaxstack(M.stack)
  fast = fast or build(false)
  st = { pragmas = {}, far = 0, expected = {}, seen = {}, typedefs = {}, calls = {} }
  local seq = fast:match(text)
  if seq then return M.rebuild(seq), st.pragmas, st.calls end
  slow = slow or build(true)
  st = { pragmas = {}, far = 0, expected = {}, seen = {}, typedefs = {}, calls = {} }
  slow:match(text)
  return nil, st.far, st.expected
end

return M
