#!/usr/bin/env lua5.4
-- Prints the opcode table of doc/formats.md from the core's own table, so the
-- documentation cannot drift from the code (spec/01-tape_spec.lua checks it).
-- Usage: lua5.4 scripts/opcode-table.lua   (with LUA_CPATH set to the build)
local core = require "cgwb.core"

-- Operands in canonical order: outputs, inputs, then constants (c).
local what = {
  death_not = "`lo hi`: locations lo..hi are dead", assign_ind = "`r`: r = next independent",
  assign_dep = "`a`: next dependent = a", assign_a = "`r a`: r = a", assign_d = "`r c`: r = c",
  eq_plus_d = "`r c`: r += c", eq_plus_a = "`r a`: r += a", eq_min_d = "`r c`: r -= c",
  eq_min_a = "`r a`: r -= a", eq_mult_d = "`r c`: r *= c", eq_mult_a = "`r a`: r *= a",
  plus_a_a = "`r a b`: r = a + b", plus_d_a = "`r a c`: r = a + c", min_a_a = "`r a b`: r = a - b",
  min_d_a = "`r a c`: r = c - a", mult_a_a = "`r a b`: r = a * b", mult_d_a = "`r a c`: r = a * c",
  div_a_a = "`r a b`: r = a / b", div_d_a = "`r a c`: r = c / a", exp_op = "`r a`: r = exp(a)",
  cos_op = "`r s a`: r = cos(a), s = sin(a)", sin_op = "`r s a`: r = sin(a), s = cos(a)",
  atan_op = "`r a d`: r = atan(a); d holds the derivative", log_op = "`r a`: r = log(a)",
  pow_op = "`r a c`: r = a ^ c", asin_op = "`r a d`: r = asin(a)", acos_op = "`r a d`: r = acos(a)",
  sqrt_op = "`r a`: r = sqrt(a)", asinh_op = "`r a d`: r = asinh(a)", acosh_op = "`r a d`: r = acosh(a)",
  atanh_op = "`r a d`: r = atanh(a)", gen_quad = "`r a d c1 c2`: user quadrature, r = c2",
  cond_assign = "`r c a b c0`: r = c > 0 ? a : b", cond_assign_s = "`r c a c0`: if c > 0 then r = a",
  take_stock_op = "`n s c1..cn`: locations s..s+n-1 = c1..cn", assign_d_one = "`r`: r = 1",
  assign_d_zero = "`r`: r = 0", incr_a = "`r`: r += 1", decr_a = "`r`: r -= 1",
  neg_sign_a = "`r a`: r = -a", pos_sign_a = "`r a`: r = +a",
  min_op = "`r a b c0`: r = min(a, b)", abs_val = "`r a c0`: r = fabs(a)",
  eq_zero = "`a`: branch record, a == 0 held", neq_zero = "`a`: a != 0 held",
  le_zero = "`a`: a <= 0 held", gt_zero = "`a`: a > 0 held", ge_zero = "`a`: a >= 0 held",
  lt_zero = "`a`: a < 0 held", eq_plus_prod = "`r a b`: r += a * b", eq_min_prod = "`r a b`: r -= a * b",
  erf_op = "`r a d`: r = erf(a)", ceil_op = "`r a c0`: r = ceil(a)", floor_op = "`r a c0`: r = floor(a)",
  ext_diff = "external function (file order)", ext_diff_iArr = "external function (file order)",
  ext_diff_v2 = "external function (file order)",
  cond_eq_assign = "`r c a b c0`: r = c >= 0 ? a : b", cond_eq_assign_s = "`r c a c0`: if c >= 0 then r = a",
  subscript = "`r i b n`: r = L[b + trunc(abs(i))]", subscript_ref = "`r i b n`: r = location number b + trunc(abs(i))",
  ref_assign_d_zero = "`p`: *p = 0", ref_assign_d_one = "`p`: *p = 1", ref_assign_d = "`p c`: *p = c",
  ref_assign_a = "`p a`: *p = a", ref_assign_ind = "`p`: *p = next independent",
  ref_incr_a = "`p`: *p += 1", ref_decr_a = "`p`: *p -= 1", ref_eq_plus_d = "`p c`: *p += c",
  ref_eq_min_d = "`p c`: *p -= c", ref_eq_plus_a = "`p a`: *p += a", ref_eq_min_a = "`p a`: *p -= a",
  ref_eq_mult_d = "`p c`: *p *= c", ref_eq_mult_a = "`p a`: *p *= a", ref_copyout = "`r p`: r = *p",
  ref_cond_assign = "`p c a b c0`: *p = c > 0 ? a : b", ref_cond_assign_s = "`p c a c0`: if c > 0 then *p = a",
  vec_copy = "`d s n`: d[i] = s[i], i < n", vec_dot = "`r a b n`: r = sum a[i] * b[i]",
  vec_axpy = "`r s x y n`: r[i] = s * x[i] + y[i]",
  ref_cond_eq_assign = "`p c a b c0`: *p = c >= 0 ? a : b",
  ref_cond_eq_assign_s = "`p c a c0`: if c >= 0 then *p = a", cbrt_op = "`r a`: r = cbrt(a)",
  plus_a_d = "`r a c`: r = a + c", min_a_d = "`r a c`: r = a - c", mult_a_d = "`r a c`: r = a * c",
  div_a_d = "`r a c`: r = a / c", eq_div_d = "`r c`: r /= c", eq_div_a = "`r a`: r /= a",
  tan_op = "`r a`: r = tan(a)",
}

local function count(v) return v < 0 and "var" or tostring(v) end

print("| code | opcode | locations | constants | outputs | operands (canonical order) and effect |")
print("| --- | --- | --- | --- | --- | --- |")
for _, o in ipairs(core.opcodes()) do
  if not o.foreign then
    print(("| %d | `%s` | %s | %s | %d | %s%s |"):format(o.code, o.name, count(o.nloc),
      count(o.nval), o.nout, what[o.name] or "", o.inplace and " (in-place)" or ""))
  end
end
