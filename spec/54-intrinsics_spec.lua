-- spec/54-intrinsics_spec.lua: the kernels' C99 math.h intrinsics (lgamma
-- tgamma erf erfc cbrt hypot expm1 log1p log2 exp2 fmod round trunc
-- copysign acosh atanh; CG_KINTRINSICS of csrc/kernel/cg_kernel.h) end to
-- end, on two kernels: one calling each of them, and a Gaussian mixture's
-- log-likelihood with a Wishart prior in the style of ADBench's GMM
-- objective (its log_gamma_distrib calls lgamma on an active argument).
-- For each: the interpreter's values are the compiled kernel's bit for bit
-- and its Jacobian (tangent mode) central differences'; tangent code (cgwb
-- flatten --emit tangent) and adjoint code (cgwb adjoint) compile with
-- cc -std=c99 -Wall -Wextra -Werror -pedantic and match central differences
-- of the compiled kernel, their primal results bit for bit; XAIF is valid
-- against the schema subset and reads back as the same flattening.  Then
-- the support function: generated code carries a static cg_digamma exactly
-- when it calls it (a Jacobian plan's code too), and it gives the core's
-- values bit for bit.
local H = require "spec.helper"
local cgwb = require "cgwb"
local core = require "cgwb.core"
local json = require "cgwb.json"
local T = require "tdriver"
local AC = require "adcheck"

local CC = T.CC -- -std=c99 -Wall -Wextra -Werror -pedantic -O1 -fno-builtin

local root = io.popen("pwd"):read("l")
local function abs(p) return p:sub(1, 1) == "/" and p or root .. "/" .. p end
local function sh(cmd) return os.execute(cmd) == true end

local function close(a, b, tol)
  return math.abs(a - b) <= (tol or 1e-6) * math.max(1, math.abs(a), math.abs(b))
end

-- {==== the kernels ====}

-- Each intrinsic on expressions of x[0], x[1], away from every jump (at X1:
-- round(1.2), trunc(2.8), fmod's quotient 2, copysign's signs fixed) and
-- from the poles; lgamma also at a negative argument (digamma's
-- reflection) and passive (no partial: no digamma needed for it).
local EACH = [[
#include <math.h>

void f(double *x, double *y) {
  double a = x[0], b = x[1];
  y[0] = lgamma(a * b + 1.5) + lgamma(-a - 0.3) + lgamma(2.5) * a;
  y[1] = tgamma(a + b) * b;
  y[2] = erf(a * b) + erfc(a - b);
  y[3] = cbrt(a + 2 * b);
  y[4] = hypot(a, b * b);
  y[5] = expm1(a * b) + log1p(a + b);
  y[6] = log2(a + b) * exp2(a - b);
  y[7] = fmod(a * 5, b);
  y[8] = round(a * 3) * b + trunc(b * 4) * a;
  y[9] = copysign(a * b, a - b) + copysign(b, a);
  y[10] = acosh(a + b + 1) + atanh(a * b);
}
]]
local X1 = { 0.4, 0.7 }

-- A Gaussian mixture's negative log-likelihood with a Wishart prior on its
-- precisions, in ADBench's style (its functions and their names); the
-- prior's degrees of freedom are a real parameter, so that lgamma's
-- argument in log_gamma_distrib is active.
local GMM = [[
#include <math.h>

#define GMM_D 2
#define GMM_K 2
#define GMM_N 3
#define LOG_PI 1.1447298858494002  /* log(pi) */
#define LOG_2PI 1.8378770664093453 /* log(2 pi) */

/* the data points, one row each */
double gmm_x[6] = {0.3, -0.8, 1.1, 0.4, -0.5, 0.9};

/* log of the multivariate gamma function Gamma_p(a) */
double log_gamma_distrib(double a, int p) {
  double out = 0.25 * p * (p - 1) * LOG_PI;
  int j;
  for (j = 1; j <= p; j++) out = out + lgamma(a + 0.5 * (1 - j));
  return out;
}

double sqnorm(int n, double const *v) {
  double s = 0.0;
  int i;
  for (i = 0; i < n; i++) s = s + v[i] * v[i];
  return s;
}

double arr_max(int n, double const *v) {
  double m = v[0];
  int i;
  for (i = 1; i < n; i++)
    if (v[i] > m) m = v[i];
  return m;
}

double logsumexp(int n, double const *v) {
  double mx = arr_max(n, v), s = 0.0;
  int i;
  for (i = 0; i < n; i++) s = s + exp(v[i] - mx);
  return log(s) + mx;
}

void preprocess_qs(int d, int k, double const *icf, double *sum_qs, double *Qdiags) {
  int icf_sz = d * (d + 1) / 2, ik, id;
  for (ik = 0; ik < k; ik++) {
    sum_qs[ik] = 0.0;
    for (id = 0; id < d; id++) {
      double q = icf[ik * icf_sz + id];
      sum_qs[ik] = sum_qs[ik] + q;
      Qdiags[ik * d + id] = exp(q);
    }
  }
}

void Qtimesx(int d, double const *Qdiag, double const *ltri, double const *x, double *out) {
  int i, j, Lparamsidx = 0;
  for (i = 0; i < d; i++) out[i] = Qdiag[i] * x[i];
  for (i = 0; i < d; i++)
    for (j = i + 1; j < d; j++) {
      out[j] = out[j] + ltri[Lparamsidx] * x[i];
      Lparamsidx++;
    }
}

double log_wishart_prior(int p, int k, double wishart_gamma, double wishart_m, double const *sum_qs,
                         double const *Qdiags, double const *icf) {
  double n = p + wishart_m + 1;
  int icf_sz = p * (p + 1) / 2, ik;
  double C = n * p * (log(wishart_gamma) - 0.5 * log(2.0)) - log_gamma_distrib(0.5 * n, p);
  double out = 0.0;
  for (ik = 0; ik < k; ik++) {
    double frobenius = sqnorm(p, &Qdiags[ik * p]) + sqnorm(icf_sz - p, &icf[ik * icf_sz + p]);
    out = out + 0.5 * wishart_gamma * wishart_gamma * frobenius - wishart_m * sum_qs[ik];
  }
  return out - k * C;
}

void gmm_objective(int d, int k, int n, double const *alphas, double const *means, double const *icf,
                   double const *x, double wishart_gamma, double wishart_m, double *err) {
  int icf_sz = d * (d + 1) / 2, ix, ik, id;
  double Qdiags[GMM_K * GMM_D], sum_qs[GMM_K], xcentered[GMM_D], Qxcentered[GMM_D], main_term[GMM_K];
  double slse = 0.0, lse_alphas;
  preprocess_qs(d, k, icf, sum_qs, Qdiags);
  for (ix = 0; ix < n; ix++) {
    for (ik = 0; ik < k; ik++) {
      for (id = 0; id < d; id++) xcentered[id] = x[ix * d + id] - means[ik * d + id];
      Qtimesx(d, &Qdiags[ik * d], &icf[ik * icf_sz + d], xcentered, Qxcentered);
      main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm(d, Qxcentered);
    }
    slse = slse + logsumexp(k, main_term);
  }
  lse_alphas = logsumexp(k, alphas);
  *err = -n * d * 0.5 * LOG_2PI + slse - n * lse_alphas +
         log_wishart_prior(d, k, wishart_gamma, wishart_m, sum_qs, Qdiags, icf);
}

/* x: alphas (2), means (4), icf (6: per component 2 log-diagonal entries and
 * 1 strict lower one), the prior's gamma and m; y[0]: the objective */
void f(double *x, double *y) {
  gmm_objective(GMM_D, GMM_K, GMM_N, &x[0], &x[2], &x[6], gmm_x, x[12], x[13], &y[0]);
}
]]
local XG = { 0.2, -0.4, 0.1, 0.5, -0.3, 0.8, 0.15, -0.2, 0.3, -0.1, 0.25, -0.35, 1.3, 0.7 }

local CASES = {
  { name = "each intrinsic", text = EACH, x = X1, ny = 11, xaif = "f" },
  { name = "a GMM objective with a Wishart prior (ADBench's style)", text = GMM, x = XG, ny = 1,
    xaif = "log_gamma_distrib" },
}

-- }====

-- {==== the driver ====}

-- F (the compiled kernel at x0), D j (central differences of column j), T j
-- (f_d's column j and its primal), B i (f_b's row i), each value with %a.
local function driver(x0, ny, adjoint)
  local nx, lits = #x0, {}
  for i, v in ipairs(x0) do lits[i] = T.lit(v) end
  return table.concat({
    "#include <stdio.h>", "#include <string.h>",
    "void f(double *x, double *y);", "void f_d(double *x, double *xd, double *y, double *yd);",
    adjoint and "void f_b(double *x, double *xb, double *y, double *yb);" or "",
    ("#define NX %d\n#define NY %d"):format(nx, ny),
    ("static const double x0[NX] = {%s};"):format(table.concat(lits, ", ")),
    [[
static void put(const char *tag, int j, const double *v, int n) {
  int i;
  printf("%s %d", tag, j);
  for (i = 0; i < n; i++) printf(" %a", v[i]);
  printf("\n");
}
int main(void) {
  double x[NX], y[NY], xd[NX], yd[NY], yp[NY], ym[NY], d[NY], xb[NX], yb[NY];
  int i, j;
  (void)xb, (void)yb;
  memcpy(x, x0, sizeof x), f(x, y);
  put("F", 0, y, NY);
  for (j = 0; j < NX; j++) {
    double h = 1e-6 * (x0[j] > 1 || x0[j] < -1 ? (x0[j] > 0 ? x0[j] : -x0[j]) : 1);
    memcpy(x, x0, sizeof x), x[j] += h, f(x, yp);
    memcpy(x, x0, sizeof x), x[j] -= h, f(x, ym);
    for (i = 0; i < NY; i++) d[i] = (yp[i] - ym[i]) / (2 * h);
    put("D", j, d, NY);
    memcpy(x, x0, sizeof x), memset(xd, 0, sizeof xd), xd[j] = 1, f_d(x, xd, y, yd);
    put("T", j, yd, NY);
    put("P", j, y, NY);
  }]],
    adjoint and [[
  for (i = 0; i < NY; i++) {
    memcpy(x, x0, sizeof x), memset(xb, 0, sizeof xb), memset(yb, 0, sizeof yb), yb[i] = 1, f_b(x, xb, y, yb);
    put("B", i, xb, NX);
    put("Q", i, y, NY);
  }]] or "",
    "  return 0;\n}\n" }, "\n")
end

-- The case's kernel, its tangent code and (unless no_adjoint) its adjoint
-- code compiled with the driver; the lines by tag (tag -> index + 1 ->
-- values; F: its values), and the generated texts.
local function run_case(c, opts)
  opts = opts or {}
  local dir = abs(H.tmp("-drv"))
  assert(sh("mkdir -p " .. dir))
  local k = H.write(dir .. "/k.c", c.text)
  H.write(dir .. "/driver.c", driver(c.x, c.ny, not opts.no_adjoint))
  local out, err, code = H.cgwb(("flatten %s --function f --emit tangent -o %s/f_d.c"):format(k, dir))
  assert(code == 0, err .. out)
  local files = { dir .. "/f_d.c" }
  if not opts.no_adjoint then
    out, err, code = H.cgwb(("adjoint %s --function f -o %s/f_b.c"):format(k, dir))
    assert(code == 0, err .. out)
    files[#files + 1] = dir .. "/f_b.c"
  end
  local log, exe = dir .. "/cc.log", dir .. "/drv"
  assert(sh(("%s -I%s -o %s %s/driver.c %s %s -lm 2>%s"):format(CC, dir, exe, dir, k, table.concat(files, " "), log)),
    "the generated code does not compile:\n" .. H.read(log))
  local p = io.popen(exe)
  local got = { D = {}, T = {}, P = {}, B = {}, Q = {} }
  for l in p:lines() do
    local tag, j, rest = l:match("^(%u) (%d+)(.*)$")
    local v = {}
    for w in rest:gmatch("%S+") do v[#v + 1] = T.num(w) end
    if tag == "F" then got.F = v else got[tag][tonumber(j) + 1] = v end
  end
  assert.is_true(p:close())
  got.tangent = H.read(dir .. "/f_d.c")
  got.adjoint = not opts.no_adjoint and H.read(dir .. "/f_b.c") or nil
  os.execute("rm -rf " .. dir)
  return got
end

-- The call of f(x, y) at the case's point for the interpreter.
local function call_of(c)
  local ys = {}
  for i = 1, c.ny do ys[i] = 0 end
  return { arrays = { { name = "X", type = "double", values = { table.unpack(c.x) } },
                      { name = "Y", type = "double", values = ys } },
           args = { { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
end

-- }====

describe("the C99 intrinsics in kernels", function()
  for _, c in ipairs(CASES) do
    describe(c.name, function()
      local got -- the compiled run, made once

      local function compiled()
        got = got or run_case(c)
        return got
      end

      it("reads whole: every function is in the subset, none left alone", function()
        local k = assert(cgwb.read_kernel(c.text, "k.c"))
        assert.same({}, k:left_alone())
      end)

      it("the interpreter's values are the compiled kernel's bit for bit, its Jacobian central differences'",
         function()
        local g = compiled()
        local k = assert(cgwb.read_kernel(c.text, "k.c"))
        local call = call_of(c)
        local r = assert(k:run("f", call))
        H.assert_bits(g.F, r.arrays[2].values, "y: compiled against the interpreter")
        local J = assert(k:jacobian("f", call))
        local dense = {}
        for i = 1, c.ny do
          dense[i] = {}
          for j = 1, #c.x do dense[i][j] = 0 end
        end
        for ri, row in ipairs(J.rows) do
          for ci, col in ipairs(J.cols) do
            if row.array == 2 and col.array == 1 then dense[row.cell + 1][col.cell + 1] = J.values[ri][ci] end
          end
        end
        for i = 1, c.ny do
          for j = 1, #c.x do
            assert(close(dense[i][j], g.D[j][i]), ("dy%d/dx%d: interpreter %.17g, central differences %.17g")
              :format(i - 1, j - 1, dense[i][j], g.D[j][i]))
          end
        end
      end)

      it("tangent and adjoint code compile warning-free and match central differences, their primal bit for bit",
         function()
        local g = compiled()
        for j = 1, #c.x do
          H.assert_bits(g.F, g.P[j], "the tangent code's primal")
          for i = 1, c.ny do
            assert(close(g.D[j][i], g.T[j][i]), ("tangent dy%d/dx%d: %.17g, central differences %.17g")
              :format(i - 1, j - 1, g.T[j][i], g.D[j][i]))
          end
        end
        for i = 1, c.ny do
          H.assert_bits(g.F, g.Q[i], "the adjoint code's primal")
          for j = 1, #c.x do
            assert(close(g.D[j][i], g.B[i][j]), ("adjoint dy%d/dx%d: %.17g, central differences %.17g")
              :format(i - 1, j - 1, g.B[i][j], g.D[j][i]))
          end
        end
      end)

      it("tangent and adjoint code define cg_digamma once, static, and call it", function()
        local g = compiled()
        for _, text in ipairs { g.tangent, g.adjoint } do
          local _, defs = text:gsub("static double cg_digamma%(double cg_x%) {", "")
          assert.equal(1, defs)
          assert.truthy(text:find("[^%w_]cg_digamma%(%(?"), text)
        end
      end)

      it("XAIF is valid against the schema subset, names the intrinsics by their rows and reads back the same",
         function()
        local k = H.write(abs(H.tmp(".c")), c.text)
        local x = abs(H.tmp(".xaif"))
        local _, err, code = H.cgwb(("flatten %s --function %s --xaif %s"):format(k, c.xaif, x))
        assert(code == 0, err)
        local p = io.popen(("xmllint --noout --schema spec/xaif/xaif-subset.xsd %s 2>&1; echo rc=$?"):format(x))
        local out = p:read("a")
        p:close()
        assert.truthy(out:find("rc=0", 1, true), out)
        local text = H.read(x)
        local lay = core.kernel_layout()
        local body = c.xaif == "f" and c.text or c.text:match("\ndouble " .. c.xaif .. "%(.-\n}\n")
        for nm in body:gmatch("([%a_][%w_]*)%(") do
          if lay.xaif[nm] then
            assert.truthy(text:find('name="' .. lay.xaif[nm] .. '"', 1, true), nm .. "'s XAIF name")
          end
        end
        local function plain(t)
          t.cost = nil
          for _, b in ipairs(t.blocks) do
            for _, sg in ipairs(b.subgraphs) do sg.mults = nil end
          end
          return t
        end
        local back, e1, c1 = H.cgwb(("flatten %s --json"):format(x))
        assert(c1 == 0, e1)
        local want, e2, c2 = H.cgwb(("flatten %s --function %s --json"):format(k, c.xaif))
        assert(c2 == 0, e2)
        assert.same(plain(assert(json.decode(want))), plain(assert(json.decode(back))))
        os.remove(k); os.remove(x)
      end)
    end)
  end

  it("the GMM objective's adjoint passes the dot-product test against finite differences (loops transformed)",
     function()
    local c = CASES[2]
    AC.check(c.text, "f", call_of(c), { loops = "auto", seed = 54 })
  end)
end)

describe("the support function cg_digamma in generated code", function()
  it("is left out where no partial calls it: lgamma on a passive argument", function()
    local c = { text = "#include <math.h>\n\nvoid f(double *x, double *y) {\n  y[0] = lgamma(2.5) * x[0] + "
      .. "round(x[0]);\n}\n", x = { 0.3 }, ny = 1 }
    local g = run_case(c)
    assert.is_nil(g.tangent:find("cg_digamma", 1, true))
    assert.is_nil(g.adjoint:find("cg_digamma", 1, true))
    assert.truthy(close(g.T[1][1], g.D[1][1]) and close(g.B[1][1], g.D[1][1]))
  end)

  it("gives the core's values bit for bit (compiled from its text), digamma's known values", function()
    local sup = core.graph_support()
    assert.equal(1, #sup)
    assert.equal("cg_digamma", sup[1].name)
    local xs = { 1, 0.5, 2, 10, 1e-3, 3.7, 25.5, 1e6, -0.5, -1.25, -7.9, 0, -3, 1 / 0 }
    local lits = {}
    for i, v in ipairs(xs) do lits[i] = v == 1 / 0 and "HUGE_VAL" or T.lit(v) end
    local out = H.run_c("#include <math.h>\n#include <stdio.h>\n" .. sup[1].text
      .. ("static volatile double xs[] = {%s};\nint main(void) {\n  unsigned i;\n"):format(table.concat(lits, ", "))
      .. "  for (i = 0; i < sizeof xs / sizeof xs[0]; i++) printf(\"%a\\n\", cg_digamma(xs[i]));\n  return 0;\n}\n")
    local i = 0
    -- the core's values, through the operation table: lgamma's partial at x
    local b = cgwb.graph_builder()
    for k, x in ipairs(xs) do
      assert(b:independent(k - 1, x))
      assert(b:op(100 + k, "lgamma", { k - 1 }))
      assert(b:dependent(100 + k))
    end
    local g = assert(b:finish())
    local lg <close> = assert(core.linearize(g))
    assert(lg:eliminate({ "markowitz" }))
    local J = lg:jacobian()
    local want = {}
    for k = 1, J.nnz do want[J.cols[k]] = J.vals[k] end
    for l in out:gmatch("[^\n]+") do
      i = i + 1
      local v = T.num(l)
      if want[i] then assert.is_true(H.same_bits(v, want[i]), ("digamma(%.17g): generated %.17g, core %.17g")
        :format(xs[i], v, want[i])) end
      if xs[i] == 1 then assert.is_true(close(v, -0.5772156649015329, 1e-15)) end
      if xs[i] == 0.5 then assert.is_true(close(v, -1.9635100260214235, 1e-15)) end
      if xs[i] == 0 or xs[i] == -3 then assert.is_true(v ~= v, "a pole") end
    end
    assert.equal(#xs, i)
  end)

  it("a Jacobian plan's code of a graph with lgamma and tgamma carries it and matches central differences",
     function()
    local x0 = { 0.7, 1.9, -0.35 }
    local b = cgwb.graph_builder()
    for k, x in ipairs(x0) do assert(b:independent(k - 1, x)) end
    assert(b:op(10, "mul", { 0, 1 }))
    assert(b:op(11, "lgamma", { 10 }))
    assert(b:op(12, "tgamma", { 1 }))
    assert(b:op(13, "add", { 11, 12 }))
    assert(b:op(14, "lgamma", { 2 }))
    assert(b:op(15, "mul", { 14, 0 }))
    assert(b:dependent(13))
    assert(b:dependent(15))
    local g = assert(b:finish())
    local lg = assert(core.linearize(g))
    local work <close> = lg:copy()
    local _, order = assert(require("cgwb.elim").eliminate(work, "markowitz"))
    local jp = assert(core.jacobian_plan(g, lg, order))
    local code = assert(jp:codegen(nil, { name = "g" }))
    local _, defs = code:gsub("static double cg_digamma%(double cg_x%) {", "")
    assert.equal(1, defs)
    local lits = {}
    for i, v in ipairs(x0) do lits[i] = T.lit(v) end
    local src = abs(H.tmp("_jac.c"))
    H.write(src, code .. "\n#include <stdio.h>\nint main(void) {\n"
      .. ("  double x[3] = {%s}, y[2], J[16];\n  int i;\n"):format(table.concat(lits, ", "))
      .. "  if (g_jac_checked(x, y, J)) return 1;\n"
      .. "  for (i = 0; i < g_jac_nnz; i++) printf(\"%d %d %a\\n\", g_jac_rows[i], g_jac_cols[i], J[i]);\n"
      .. "  return 0;\n}\n")
    local exe = src:gsub("%.c$", "")
    assert(sh(("%s -o %s %s -lm"):format(CC, exe, src)), "the Jacobian code does not compile")
    local p = io.popen(exe)
    local n = 0
    for l in p:lines() do
      local i, j, v = l:match("^(%d+) (%d+) (%S+)$")
      i, j, v = tonumber(i), tonumber(j), T.num(v)
      local h = 1e-6
      local xp, xm = { table.unpack(x0) }, { table.unpack(x0) }
      xp[j], xm[j] = x0[j] + h, x0[j] - h
      local fd = (assert(g:eval(xp))[i] - assert(g:eval(xm))[i]) / (2 * h)
      assert(close(v, fd), ("J[%d][%d]: plan %.17g, central differences %.17g"):format(i, j, v, fd))
      n = n + 1
    end
    assert.is_true(p:close())
    assert.equal(4, n) -- y1: x1, x2; y2: x1, x3 (lgamma at -0.35: digamma's reflection)
    os.remove(src); os.remove(exe)
    lg:free()
  end)
end)
