-- spec/59-goto_spec.lua: C's forward `goto` (out of nested loops, out of
-- an if, past statements, out of a switch), lowered by the front end to a
-- flag, breaks and guarded statements (lua/cgwb/kparse/goto.lua,
-- doc/kernel-language.md).  The interpreter must leave the cells the
-- compiled kernel leaves, bit for bit, on hand kernels and on generated
-- programs; tangent and adjoint code must give the derivatives of the
-- compiled kernel, the code `cgwb flatten --emit tangent` and `cgwb
-- adjoint` write too (against central differences); backward gotos, jumps
-- into a statement, `goto *p`, undefined and duplicate labels are errors
-- with their place.
local H = require "spec.helper"
local cgwb = require "cgwb"
local core = require "cgwb.core"
local kp = require "cgwb.kparse"
local kgen = require "kgen"
local rng = require "rng"
local AC = require "adcheck"
local TC = require "tcheck"

local run_c = H.run_c

-- The cells the interpreter leaves, in kgen.driver's output form.
local function interp_lines(text, name, call) return kgen.interp_lines(text, "goto.c", name, call) end

local function darr(name, vals) return { name = name, type = "double", values = vals } end
local function ramp(n, a, b) return AC.ramp(n, a, b) end

-- f(n, x, y) on x and y of 12 cells: the call, and the same against cc.
local function call_n(n, x, y)
  return { arrays = { darr("X", x or ramp(12, -1.25, 1.5)), darr("Y", y or ramp(12, 0.5, -0.5)) },
    args = { { int = n }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
end

local function same_as_cc(text, name, ns, x)
  for _, n in ipairs(ns) do
    local call = call_n(n, x)
    assert.equal(run_c(kgen.driver(text, { name = name }, call)), interp_lines(text, name, call),
      ("n = %d\n%s"):format(n, text))
  end
end

-- Hand kernels: each the shape numerical C writes.
local KERNELS = {
  { "out of one loop (the index kept)", [[
void f(int n, double *x, double *y) {
  int i;
  for (i = 0; i < n; i++) {
    if (x[i] > 0.6) goto found;
    y[i] = x[i] * x[i];
  }
  y[0] = -1.0;
found:
  y[1] = y[1] + i;
}
]] },
  { "out of two nested loops", [[
void f(int n, double *x, double *y) {
  double s = 0.0;
  int i, j = 0;
  for (i = 0; i < n; i++) {
    for (j = 0; j < n; j++) {
      if (x[i] * x[j] > 1.2) goto done;
      s += x[i] * x[j];
    }
    s *= 0.5;
  }
  y[1] = 3.0;
done:
  y[0] = s + i + 10 * j;
}
]] },
  { "out of three nested loops (for, while, do)", [[
void f(int n, double *x, double *y) {
  double s = 0.25;
  int i, j = 0, k = 0;
  for (i = 0; i < n; i++) {
    j = 0;
    while (j < 3) {
      k = 0;
      do {
        s = s * 1.25 + x[(i + j + k) % 12];
        if (s > 9.0) goto out;
        k++;
      } while (k < 2);
      y[j] += s;
      j++;
    }
    y[3] -= s;
  }
  s = -s;
out:
  y[4] = s + i + 10 * j + 100 * k;
}
]] },
  { "out of an if inside a loop, to the loop body's end", [[
void f(int n, double *x, double *y) {
  for (int i = 0; i < n; i++) {
    double t = x[i];
    if (t < 0.0) {
      y[i] = 0.0;
      goto next;
    }
    y[i] = t * t;
    y[i] += 1.0;
  next:
    y[(i + 1) % 12] += 0.5;
  }
}
]] },
  { "past statements at the same level, several labels, a declaration skipped", [[
void f(int n, double *x, double *y) {
  double s = x[0];
  if (n > 5) goto b;
  s = s * 2.0;
  if (n > 3) goto a;
  s = s + 1.0;
  y[5] = s;
a:
  s = s * s;
  if (n == 0) goto b;
  double t = s + 1.0;
  y[6] = t;
b:
  y[0] = s;
}
]] },
  { "two gotos to one label, one in an else", [[
void f(int n, double *x, double *y) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    if (x[i] > 1.0) goto done;
    else if (x[i] < -1.0) { s = -s; goto done; }
    s += x[i];
  }
  s = s * 3.0;
done:
  y[0] = s;
unused:
  y[1] = s * s;
}
]] },
  { "in a switch inside a loop", [[
void f(int n, double *x, double *y) {
  double s = 0.5;
  for (int i = 0; i < n; i++) {
    switch (i % 4) {
    case 0: s += x[i]; break;
    case 1: if (s > 1.5) goto done; s *= 0.5;
    case 2: s -= x[i] * x[i]; break;
    default: y[i] = s; continue;
    }
    y[i] += s;
  }
  s = -s;
done:
  y[11] = s;
}
]] },
  { "out of a switch and a loop to the outer loop's body", [[
void f(int n, double *x, double *y) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < 3; j++) {
      switch (j) {
      case 0: y[i] += x[j]; break;
      case 1: if (y[i] > 0.4) goto row; y[i] *= 2.0; break;
      }
      y[i] += 0.125;
    }
    y[i] = -y[i];
  row:
    y[i] += x[i];
  }
}
]] },
  { "out of a do-while with a continue, to a label of two names", [[
void f(int n, double *x, double *y) {
  double s = 0.0;
  int i = 0;
  do {
    i++;
    if (i % 3 == 0) continue;
    s += x[i % 12];
    if (s > 1.0) goto b;
    if (s < -1.0) goto a;
  } while (i < n);
  y[2] = s;
a: b:
  y[0] = s + i;
}
]] },
  { "out of a switch without a loop, and the cleanup of a block", [[
#include <stdlib.h>
void f(int n, double *x, double *y) {
  double *w = malloc(4 * sizeof(double));
  for (int i = 0; i < 4; i++) w[i] = x[i];
  switch (n % 3) {
  case 0: w[0] = 2.0; goto cleanup;
  case 1: if (x[1] > 0.0) goto cleanup; w[1] = 0.0;
  default: w[2] = 3.0;
  }
  y[2] = w[1] + w[2];
cleanup:
  y[0] = w[0] + w[1];
  free(w);
  return;
}
]] },
}

describe("goto", function()
  it("lowers to a flag, breaks and guards: no loop or jump added", function()
    local text = kp.unparse(assert(kp.parse(KERNELS[2][2], "g.c")))
    -- the goto: the flag, out of the inner loop; after it: out of the outer one; past it: guarded
    assert.truthy(text:find("if ((x[i] * x[j]) > 1.2) {\n        t1_12 = 1;\n        break;\n      }", 1, true), text)
    assert.truthy(text:find("    }\n    if (t1_12) {\n      break;\n    }\n    s = s * 0.5;", 1, true), text)
    assert.truthy(text:find("if (!t1_12) {\n    y[1] = 3.0;\n  }\n  y[0] =", 1, true), text)
    assert.truthy(text:find("t1_12 = 0;\n  s = 0.0;", 1, true), text) -- cleared on entry to the label's block
    local _, nloops = text:gsub("for %(", "")
    assert.equal(2, nloops)
    -- a #pragma cgwb before a label is its statement's
    text = kp.unparse(assert(kp.parse("void f(int n, double *y) {\n  if (n > 2) goto done;\n  y[1] = 2.0;\n"
      .. "#pragma cgwb keep\ndone:\n  y[0] = 1.0;\n}\n", "p.c")))
    assert.truthy(text:find("  }\n#pragma cgwb keep\n  y[0] = 1.0;", 1, true), text)
  end)

  for _, c in ipairs(KERNELS) do
    it("runs in the interpreter as the compiled kernel does, bit for bit: " .. c[1], function()
      same_as_cc(c[2], "f", { 0, 1, 3, 4, 6, 12 })
      same_as_cc(c[2], "f", { 5, 12 }, ramp(12, 0.25, -0.75))
    end)
  end

  it("generated programs: the interpreter equals cc on every path", function()
    local ngoto = 0
    for seed = 1, 40 do
      local r = rng.new(5900 + seed)
      local out, nlabel, nvar = {}, 0, 0
      local function emit(ind, s) out[#out + 1] = ("  "):rep(ind) .. s end
      local function idx(vars)
        if #vars == 0 or r:int(1, 4) == 1 then return tostring(r:int(0, 11)) end
        return ("(%s + %d) %% 12"):format(vars[r:int(1, #vars)], r:int(0, 5))
      end
      local item
      -- a block's statements, a label before one of them (or at the end)
      -- for the gotos of those before it; avail: the labels a goto may name
      local function items(ind, depth, avail, vars, inloop)
        local n = r:int(1, 4)
        local lab, at
        if r:int(1, 3) > 1 then
          nlabel = nlabel + 1
          lab, at = "L" .. nlabel, r:int(2, n + 1)
        end
        for i = 1, n do
          if lab and i == at then emit(ind - 1, lab .. ":") end
          local av = avail
          if lab and i < at then
            av = { lab }
            for _, x in ipairs(avail) do av[#av + 1] = x end
          end
          item(ind, depth, av, vars, inloop)
        end
        if lab and at == n + 1 then emit(ind - 1, lab .. ": ;") end
      end
      function item(ind, depth, avail, vars, inloop)
        local c = r:int(1, depth < 3 and 10 or 5)
        if c <= 2 and #avail > 0 then
          ngoto = ngoto + 1
          local to = avail[r:int(1, #avail)]
          if r:int(1, 6) == 1 then emit(ind, "goto " .. to .. ";")
          else emit(ind, ("if (s > %d.5) goto %s;"):format(r:int(0, 3), to)) end
        elseif c == 3 then emit(ind, ("s = s * 0.75 + x[%s];"):format(idx(vars)))
        elseif c == 4 then emit(ind, ("y[%s] += s;"):format(idx(vars)))
        elseif c == 5 then
          if inloop and r:int(1, 2) == 1 then emit(ind, ("if (s > %d.25) %s;"):format(r:int(0, 3),
            r:int(1, 2) == 1 and "break" or "continue"))
          else emit(ind, ("s = s + 0.5 * x[%s];"):format(idx(vars))) end
        elseif c <= 7 then
          nvar = nvar + 1
          local v = "i" .. nvar
          local vs = { v }
          for _, x in ipairs(vars) do vs[#vs + 1] = x end
          if c == 6 then
            emit(ind, ("for (int %s = 0; %s < %s; %s++) {"):format(v, v, r:int(1, 2) == 1 and "n" or "3", v))
            items(ind + 1, depth + 1, avail, vs, true)
            emit(ind, "}")
          else -- a counted while or do: its count first, so a continue cannot loop for ever
            local bound, dowhile = r:int(1, 4), r:int(1, 3) == 1
            emit(ind, ("{ int %s = 0;"):format(v))
            emit(ind, dowhile and "do {" or ("while (%s < %d) {"):format(v, bound))
            emit(ind + 1, ("%s++;"):format(v))
            items(ind + 1, depth + 1, avail, vs, true)
            emit(ind, dowhile and ("} while (%s < %d); }"):format(v, bound) or "} }")
          end
        elseif c <= 9 then
          emit(ind, ("if (s < %d.75) {"):format(r:int(0, 3)))
          items(ind + 1, depth + 1, avail, vars, inloop)
          emit(ind, "} else {")
          items(ind + 1, depth + 1, avail, vars, inloop)
          emit(ind, "}")
        else
          emit(ind, ("switch ((int)s %% 3) {"):format())
          emit(ind, "case 0: {")
          items(ind + 1, depth + 1, avail, vars, inloop)
          emit(ind, "} break;")
          emit(ind, "case 1: {")
          items(ind + 1, depth + 1, avail, vars, inloop)
          emit(ind, "}")
          emit(ind, "default:")
          emit(ind + 1, ("y[%s] -= s;"):format(idx(vars)))
          emit(ind, "}")
        end
      end
      emit(0, "void g(int n, double *x, double *y) {")
      emit(1, "double s = 0.25;")
      items(1, 0, {}, {}, false)
      emit(1, "y[0] += s;")
      emit(0, "}")
      local text = table.concat(out, "\n") .. "\n"
      for _, n in ipairs { 2, 5 } do
        local call = call_n(n)
        local want = run_c(kgen.driver(text, { name = "g" }, call))
        assert(want == interp_lines(text, "g", call), ("seed %d, n = %d: the interpreter computes otherwise\n%s")
          :format(seed, n, text))
      end
      assert(core.kernel_load(assert(kp.parse(text, "g.c")))) -- the loader's checks hold
    end
    assert(ngoto > 60, "few gotos generated: " .. ngoto)
  end)

  it("tangent code of gotos out of loops and switches gives the interpreter's derivatives", function()
    local cases = {}
    for i, c in ipairs(KERNELS) do
      if not c[2]:find("malloc", 1, true) then cases[#cases + 1] = TC.make_case(c[2], "g" .. i .. ".c", "f", call_n(6)) end
    end
    TC.check(cases)
  end)

  -- gotos that leave no loop (the adjoint generator has no break of a loop yet)
  local NOBREAK = [[
#include <math.h>
void f(int n, double *x, double *y) {
  double s = x[0] * x[1];
  if (s > 1.0) goto done;
  s = sin(s) + x[2];
  if (s < 0.0) { y[1] = s * x[3]; goto done; }
  switch (n % 3) {
  case 0: s = s * x[4]; if (s > 0.5) goto tail; s += 1.0;
  case 1: s = s * s; break;
  default: goto done;
  }
  s = exp(s * 0.25);
tail:
  y[2] = s * x[5];
  for (int i = 0; i < n; i++) {
    if (x[i] < 0.0) goto next;
    s = s * 0.5 + x[i] * x[i];
  next:
    y[3] += s;
  }
done:
  y[0] = s * x[2];
}
]]

  it("adjoint code of gotos out of ifs and a switch gives the compiled kernel's derivatives", function()
    for _, x in ipairs { ramp(12, 0.25, 1.5), ramp(12, -1.25, 1.5), ramp(12, 0.9, 1.25) } do
      for _, n in ipairs { 3, 4, 5 } do
        AC.check(NOBREAK, "f", { arrays = { AC.arr("double", x), AC.arr("double", ramp(12, 0.5, -0.5)) },
          args = { { int = n }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }, { loops = "auto", seed = 59,
          lenient_kernel = true }) -- (F itself falls through)
      end
    end
  end)

  -- The C file of a check of generated code against central differences of
  -- the compiled kernel: F_d (mode "d") with each unit direction, or F_b
  -- (mode "b") with each unit seed of y; prints "j i derivative difference".
  local function fd_driver(kernel, code, mode, n, x, y)
    local function lits(v)
      local t = {}
      for i, a in ipairs(v) do t[i] = ("%a"):format(a) end
      return table.concat(t, ", ")
    end
    return table.concat({ kernel, code, "#include <stdio.h>", "#include <string.h>", "int main(void) {",
      ("  static const double X0[12] = {%s}, Y0[12] = {%s};"):format(lits(x), lits(y)),
      "  double x[12], xs[12], y[12], ys[12], yp[12], ym[12], h = 1e-6;",
      "  for (int j = 0; j < 12; j++) {",
      "    memcpy(x, X0, sizeof x); memcpy(y, Y0, sizeof y); memset(xs, 0, sizeof xs); memset(ys, 0, sizeof ys);",
      mode == "d" and ("    xs[j] = 1.0; f_d(%d, x, xs, y, ys);"):format(n)
        or ("    ys[j] = 1.0; f_b(%d, x, xs, y, ys);"):format(n),
      "    for (int i = 0; i < 12; i++) {",
      mode == "d" and "      int dj = j, yi = i;" or "      int dj = i, yi = j;",
      "      memcpy(x, X0, sizeof x); x[dj] += h; memcpy(yp, Y0, sizeof y);",
      ("      f(%d, x, yp);"):format(n),
      "      memcpy(x, X0, sizeof x); x[dj] -= h; memcpy(ym, Y0, sizeof y);",
      ("      f(%d, x, ym);"):format(n),
      ('      printf("%%d %%d %%.17g %%.17g\\n", dj, yi, %s, (yp[yi] - ym[yi]) / (2 * h));'):format(
        mode == "d" and "ys[i]" or "xs[i]"),
      "    }", "  }", "  return 0;", "}" }, "\n") .. "\n"
  end

  local function compare_fd(outp, what)
    local n = 0
    for j, i, d, fd in outp:gmatch("(%d+) (%d+) (%S+) (%S+)\n") do
      d, fd = tonumber(d), tonumber(fd)
      assert(math.abs(d - fd) <= 1e-6 * (1 + math.abs(fd)), ("%s: d y[%s] / d x[%s]: %.17g, central differences %.17g")
        :format(what, i, j, d, fd))
      if fd ~= 0 then n = n + 1 end
    end
    return n
  end

  it("`cgwb flatten --emit tangent` and `cgwb adjoint` write code whose derivatives are central differences'", function()
    local dir = H.tmp("-cli")
    os.execute("mkdir -p " .. dir)
    local x, y = ramp(12, 0.25, 1.5), ramp(12, 0.5, -0.5)
    -- tangent code: the kernel with gotos out of three loops and out of a switch in a loop
    for _, i in ipairs { 3, 7 } do
      local src = dir .. "/k" .. i .. ".c"
      H.write(src, KERNELS[i][2])
      local _, err, code = H.cgwb(("flatten %s --function f --emit tangent -o %s/t%d.c --quiet"):format(src, dir, i))
      assert(code == 0, err)
      for _, n in ipairs { 4, 12 } do
        local got = run_c(fd_driver(KERNELS[i][2], H.read(("%s/t%d.c"):format(dir, i)), "d", n, x, y))
        assert(compare_fd(got, "tangent of " .. KERNELS[i][1]) > 3, got)
      end
    end
    -- adjoint code
    local src = dir .. "/nb.c"
    H.write(src, NOBREAK)
    local _, err, code = H.cgwb(("adjoint %s --function f -o %s/a.c"):format(src, dir))
    assert(code == 0, err)
    local text = fd_driver(NOBREAK, H.read(dir .. "/a.c"), "b", 4, x, y)
    H.write(dir .. "/ad.c", text)
    assert(os.execute(("cc -std=c99 -I%s -o %s/ad %s/ad.c -lm"):format(dir, dir, dir)))
    local p = assert(io.popen(dir .. "/ad"))
    local got = p:read("a")
    p:close()
    assert(compare_fd(got, "adjoint") > 3, got)
    os.execute("rm -rf " .. dir)
  end)

  it("adjoint code of a goto out of a loop is refused as a break is, at the goto", function()
    local k = assert(cgwb.read_kernel(KERNELS[1][2], "g.c"))
    local code, err = require("cgwb.adjoint").emit(k, "f", { loops = "none" })
    assert.is_nil(code)
    assert.truthy(tostring(err):find("g.c:4:21: adjoint code: break is not supported yet", 1, true), tostring(err))
  end)

  it("refuses a backward goto, a jump into a statement, goto *p, an undefined or duplicate label, with the place",
    function()
    local why = "is outside the kernel subset (a goto jumps forward, out of the statements it is in, to a label of a "
      .. "block around it"
    local cases = {
      { "void f(int *y) { out: y[0] = 1; goto out; }",
        "e.c:1:33: a backward 'goto' (to 'out' at line 1, column 18) is outside the kernel subset (a goto jumps forward: "
        .. "write the loop as a loop)" },
      { "void f(int k, double *y) { if (k) c: y[0] = 1; goto c; }",
        "e.c:1:48: a backward 'goto' (to 'c' at line 1, column 35)" },
      { "void f(int *y) { goto in; { in: y[0] = 1; } }",
        "e.c:1:18: a 'goto' into another block ('in' at line 1, column 29) " .. why .. ")" },
      { "void f(int k, double *y) { goto in; for (int i = 0; i < k; i++) { y[i] = 0; in: y[i] += 1; } }",
        "e.c:1:28: a 'goto' into another block ('in' at line 1, column 77) " .. why .. ")" },
      { "void f(int k, double *y) { if (k) goto b; else { b: y[0] = 1; } }",
        "e.c:1:35: a 'goto' into another block ('b' at line 1, column 50) " .. why .. ")" },
      { "void f(int k, double *y) {\n  if (k) goto c;\n  if (!k) c: y[0] = 1;\n}",
        "e.c:2:10: a 'goto' into another block ('c' at line 3, column 11) " .. why .. ")" },
      { "void f(int k, double *y) { switch (k) { case 1: goto c; case 2: y[1] = 2; c: y[0] = 1; } }",
        "e.c:1:49: a 'goto' into another block ('c' at line 1, column 75) " .. why .. ", not to one among a switch's cases)" },
      { "void f(int k, double *y) { switch (k) { case 1: goto c; case 2: c: y[0] = 1; } }",
        "e.c:1:49: a 'goto' into another block ('c' at line 1, column 65) " .. why .. ", not to one among a switch's cases)" },
      { "void f(int n, double *y) {\n  if (n > 2) goto done;\n#pragma cgwb keep\ndone: ;\n}",
        "e.c:4:1: #pragma cgwb before a label without a statement of its own" },
      { "void f(double *y) { goto *y; }", "e.c:1:21: a computed 'goto *' is outside the kernel subset (a goto names a label)" },
      { "void f(double *y) {\n  if (y[0] > 0) goto nowhere;\n  y[0] = 1;\n}", "e.c:2:17: label 'nowhere' used but not defined" },
      { "void f(double *y) { a: y[0] = 1; a: y[1] = 2; }", "e.c:1:34: duplicate label 'a' (first at line 1, column 21)" },
      { "void f(double *y) { { a: y[0] = 1; } { a: y[1] = 2; } }",
        "e.c:1:40: duplicate label 'a' (first at line 1, column 23)" }, -- labels have function scope
    }
    for _, c in ipairs(cases) do
      local k, err = cgwb.read_kernel(c[1], "e.c", { functions = { "f" } })
      assert.is_nil(k, c[1])
      assert.truthy(tostring(err):find(c[2], 1, true), tostring(err) .. "\nwanted: " .. c[2])
    end
    -- an unused label is no error, and labels of two functions are two
    local k = assert(cgwb.read_kernel("void f(double *y) { a: y[0] = 1; }\nvoid g(double *y) { goto a; a: y[0] = 2; }",
      "e.c"))
    assert.equal(2, #k:functions())
  end)
end)
