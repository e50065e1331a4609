-- spec/tdriver.lua: what the tangent code specs (24, 29) share to compile and
-- check generated code against the interpreter: C literals, parameter
-- declarations, the subject function (a wrapper for a double result), the
-- tolerance, and a random call of a kernel function.
local M = {}

-- -fno-builtin: no math.h call folded at compile time (GCC folds with
-- correct rounding, the C library may differ in the last bit)
M.CC = "cc -std=c99 -Wall -Wextra -Werror -pedantic -O1 -fno-builtin"

--- A C literal of a double, exact (hexadecimal).
function M.lit(v) return ("%a"):format(v) end

--- The declaration of parameter p ({name, type} of k:functions()).
function M.param_decl(p)
  local base, dims = p.type:match("^([^%[]+)(%[.*)$")
  if base then return base .. " " .. p.name .. dims end
  return p.type .. " " .. p.name
end

--- The C parameter declarations and argument names of function row fn
-- (k:functions()'s) as its C signature has them: a struct's members are
-- the struct (S s) or its pointer (S *p), once.
function M.c_params(fn)
  local decls, names = {}, {}
  for _, p in ipairs(fn.params) do
    if p.struct then
      if p.struct.first then
        local ptr = p.type:find("%[") ~= nil
        decls[#decls + 1] = ((ptr and p.const) and "const " or "") .. p.struct.type .. (ptr and " *" or " ")
          .. p.struct.var
        names[#names + 1] = p.struct.var
      end
    else
      decls[#decls + 1], names[#names + 1] = M.param_decl(p), p.name
    end
  end
  return decls, names
end

--- The kernel text and function to test: F itself, or for a function
-- returning a double a wrapper storing the result in a cell of its own.
function M.subject(text, k, fname)
  local fn
  for _, f in ipairs(k:functions()) do if f.name == fname then fn = f end end
  if fn.ret ~= "double" then return text, fname end
  local decls, names = M.c_params(fn)
  decls[#decls + 1] = "double *tst_out"
  return text .. ("\nvoid tst_wrap(%s) {\n  *tst_out = %s(%s);\n}\n"):format(table.concat(decls, ", "), fname,
    table.concat(names, ", ")), "tst_wrap"
end

--- A number as the driver prints it (%.17g, glibc's nan and inf).
function M.num(s)
  if s == "nan" or s == "-nan" then return 0 / 0 end
  if s == "inf" then return math.huge end
  if s == "-inf" then return -math.huge end
  return assert(tonumber(s), s)
end

--- The tolerance of a tangent against the interpreter's.
-- An interpreter's NaN is skipped: its tangent mode multiplies the partials
-- of an operation on passive operands by their zero tangents, so atan2(k, k)
-- at k = 0 (partials 0/0) gives NaN where the derivative is 0, as here.
function M.close_enough(a, b)
  if b ~= b then return true end
  if a == b then return true end    -- infinities
  return math.abs(a - b) <= 1e-12 * math.max(1, math.abs(b))
end

-- A binding for function fname of k: every pointer into a 64-cell array at
-- offset 8 (int arrays hold 0..3), ints 2, doubles from r; shared: the
-- pointers that are not restrict share one array at offsets 8, 9, 10, ...
function M.any_call(k, fname, r, shared)
  local fn
  for _, f in ipairs(k:functions()) do if f.name == fname then fn = f end end
  local arrays, args, off, common = {}, {}, 8, nil
  local function array(ty)
    local v = {}
    for i = 1, 64 do v[i] = ty == "int" and r:int(0, 3) or r:float(-1, 1) end
    arrays[#arrays + 1] = { name = "A" .. (#arrays + 1), type = ty, values = v }
    return #arrays
  end
  for i, p in ipairs(fn.params) do
    local base = p.type:find("int") and "int" or "double"
    if p.type:find("[%*%[]") then
      if shared and base == "double" and not p.restrict then
        common = common or array("double")
        args[i] = { array = common, offset = off }
        off = off + 1
      else
        args[i] = { array = array(base), offset = 8 }
      end
    elseif base == "int" then args[i] = { int = 2 }
    else args[i] = { double = r:float(0.25, 1.5) } end
  end
  return { arrays = arrays, args = args }
end

--- A hand kernel with globals, addresses of scalars, local arrays passed on,
-- a do loop with continue and a moving pointer: its text, a call with a and b
-- in one array (aliased) and one with them apart.
function M.hand_kernel()
  local text = [[
#include <math.h>
static const double W[3] = {0.5, -1.25, 2.0};
static const double c0 = 1.5;
static const double G2[2][2] = {{0.5, 1.0}, {1.5, 2.0}};
static void acc(double *s, const double *w, double v) {
  *s += w[1] * v + c0;
}
static double sq(double v) { return v * v; }
double f(double *a, const double *b, int n, double x) {
  double s = 0.0, t;
  double M[2][2] = {{1.0, 2.0}, {3.0, 4.0}};
  double L[3] = {0.25, 0.5, 0.75};
  double *p = a;
  int i = 0;
  do {
    i++;
    if (i == 2) continue;
    t = b[i] * x + M[i % 2][1] * W[i % 3] + G2[i % 2][1] * x;
    acc(&s, L, t);
    L[i % 3] = t * W[0];
    *p = sq(t) - (i > 1 ? s : -s);
    p = p + 1;
    M[1][i % 2] = s * t;
  } while (i < n);
  a[0] = fmax(a[0], M[1][0]) + pow(fabs(a[1]) + 1.0, x) + c0 * sq(a[2]);
  return s / (1.0 + a[0] * a[0]);
}
]]
  local call = { arrays = { { name = "A", type = "double", values = { 0.5, -0.75, 1.25, 0.125, 2.0 } } },
    args = { { array = 1, offset = 0 }, { array = 1, offset = 1 }, { int = 3 }, { double = 0.625 } } }
  local sep = { arrays = { { name = "A", type = "double", values = { 0.5, -0.75, 1.25, 0.125, 2.0 } },
                           { name = "B", type = "double", values = { 1.5, 0.25, -0.5, 0.75 } } },
    args = { { array = 1, offset = 0 }, { array = 2, offset = 0 }, { int = 3 }, { double = 0.625 } } }
  return text, call, sep
end

return M
