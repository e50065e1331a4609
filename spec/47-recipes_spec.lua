-- spec/47-recipes_spec.lua: the extension recipes of doc/hacking.md, applied
-- (spec/recipes.lua) to a scratch copy of the tree, which is built once;
-- then every consumer of every new row is checked in the copy, through its
-- own cgwb command and compiled code:
--   * an operation and an intrinsic (fdim, a new row of the operation
--     table, and asinh, whose operation exists): on a kernel calling both the
--     interpreter gives the compiled kernel's values bit for bit (the C
--     library's) and Jacobian; tangent code (cgwb flatten --emit tangent)
--     and adjoint code (cgwb adjoint) compile with -Wall -Werror and match
--     central differences of the compiled kernel; XAIF (cgwb flatten --xaif)
--     is valid against the schema subset, names them by their rows and
--     reads back as the same flattening; the tests the recipes extend
--     (spec 12, spec 14, test_gops, test_kintrinsics) pass in the copy; the
--     pages name every intrinsic with its XAIF name;
--   * an ordering: cgwb eliminate --order NAME gives the sweeps' Jacobian,
--     --list-orderings lists it, the modes it lacks refuse it; spec 16;
--   * a split strategy: cgwb flatten --split NAME is accepted and listed,
--     cuts as the row says, its tangent code matches central differences and
--     its XAIF reads back as the same subgraphs;
--   * a loop access class: cgwb loops --json gives the class and the verdict
--     its row states; the page's table names it; spec 30 and the ground
--     truth of spec 32 (spec/lgen.lua);
--   * a command: it runs, is in cgwb --help and cgwb help NAME; spec 15.
-- CGWB_RECIPE_SKIP=FILE#N,... leaves hunks out (FILE alone: every hunk into
-- it), to see that a check fails without them; CGWB_RECIPE_KEEP=1 keeps the
-- copy (under CGWB_TMP).  The sanitizer phase skips the scratch build (an
-- instrumented build of the whole tree, for checks the release phase makes
-- already); the page's checks run there too.
local H = require "spec.helper"
local R = require "recipes"
local json = require "cgwb.json"

local PAGE = "doc/hacking.md"
local CC = "cc -std=c99 -Wall -Wextra -Werror -pedantic -O1 -fno-builtin" -- no math.h call folded by GCC
local SAN = H.build:find("debug") ~= nil

local function sh(cmd) return os.execute(cmd) == true end

local function read_or_nil(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

local function skipped()
  local skip = {}
  for w in (os.getenv("CGWB_RECIPE_SKIP") or ""):gmatch("[^,%s]+") do skip[w] = true end
  return skip
end

-- {==== the scratch copy ====}

local root = io.popen("pwd"):read("l")
local function abs(p) return p:sub(1, 1) == "/" and p or root .. "/" .. p end
local scratch, scratch_err -- the copy's absolute path once built; or why it is not

-- The tree's files: tracked and new ones (not ignored) that exist; nil
-- without git.
local function tree_files()
  if not sh("git rev-parse --is-inside-work-tree >/dev/null 2>&1") then return nil end
  local p = io.popen("git ls-files -z --cached --others --exclude-standard")
  local list = {}
  for f in p:read("a"):gmatch("([^%z]+)") do
    if read_or_nil(f) then list[#list + 1] = f end
  end
  p:close()
  return list
end

-- The copy: the tree's files (without git: everything but build/ and
-- .git), the page's hunks applied, built once (-O1: the checks compare
-- values, not speed) with the examples.
local function build_scratch()
  if scratch or scratch_err then return scratch, scratch_err end
  local dir = abs(H.tmp("-scratch"))
  local log = dir .. ".log"
  assert(sh("mkdir -p " .. dir))
  local files, copy = tree_files(), nil
  if files then
    local list = H.write(dir .. ".files", table.concat(files, "\0") .. "\0")
    copy = ("tar --null -T %s -cf - | tar -xf - -C %s"):format(list, dir)
  else
    copy = ("tar --exclude=./build --exclude=./.git --exclude=./examples/build -cf - . | tar -xf - -C %s"):format(dir)
  end
  if not sh(copy) then scratch_err = "cannot copy the tree" return nil, scratch_err end
  local hunks, skip = R.parse(H.read(PAGE)), skipped()
  for w in pairs(skip) do -- a name that leaves nothing out is a typo
    local found = false
    for _, h in ipairs(hunks) do found = found or w == h.path or w == R.name(h) end
    if not found then scratch_err = "CGWB_RECIPE_SKIP: no hunk " .. w return nil, scratch_err end
  end
  local ok, texts = pcall(R.apply, hunks, function(p) return read_or_nil(dir .. "/" .. p) end, skip)
  if not ok then scratch_err = tostring(texts) return nil, scratch_err end
  for p, t in pairs(texts) do H.write(dir .. "/" .. p, t) end
  local make = "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make"
  if not sh(("cd %s && %s -j2 OPT='-O1 -DNDEBUG' all >%s 2>&1 && %s -s examples >>%s 2>&1"):format(dir, make, log, make,
      log)) then
    scratch_err = "the scratch copy with the recipes does not build:\n" .. H.read(log):sub(-3000)
    return nil, scratch_err
  end
  scratch = dir
  return scratch
end

local function need_scratch()
  local dir, err = build_scratch()
  assert(dir, err)
  return dir
end

-- The copy's cgwb command: stdout, stderr, exit status.
local function cgwb(args)
  local dir = need_scratch()
  local out, err = abs(H.tmp(".out")), abs(H.tmp(".err"))
  local _, _, code = os.execute(("cd %s && env CGWB_BUILD=build/release CGWB_PROGRESS=never scripts/cgwb %s >%s 2>%s")
    :format(dir, args, out, err))
  local o, e = H.read(out), H.read(err)
  os.remove(out); os.remove(err)
  return o, e, code
end

local function cgwb_ok(args)
  local o, e, code = cgwb(args)
  assert(code == 0, ("cgwb %s: exit %s\n%s"):format(args, tostring(code), e))
  return o, e
end

-- A spec file of the copy (busted's filters), run in the copy; its output.
local function copy_spec(file, filters)
  local dir = need_scratch()
  local f = {}
  for i, p in ipairs(filters or {}) do f[i] = ("--filter=%q"):format(p) end
  local log = abs(H.tmp(".log"))
  local ok = sh(("cd %s && env CGWB_BUILD=build/release CGWB_TMP=build/release/spec-tmp CGWB_PROGRESS=never "
    .. "lua5.4 /usr/bin/busted %s %s >%s 2>&1"):format(dir, table.concat(f, " "), file, log))
  local out = H.read(log)
  assert(ok, ("%s in the scratch copy:\n%s"):format(file, out:sub(-3000)))
  assert.truthy(out:find("%d+ success"), out) -- it ran tests
  return out
end

-- A C unit test of the copy, against the copy's core.
local function copy_c_test(name)
  local dir = need_scratch()
  local exe, log = abs(H.tmp(".exe")), abs(H.tmp(".log"))
  assert(sh(("cd %s && cc -std=c99 -Wall -Wextra -O1 -Icsrc spec/c/%s.c build/release/libcgwbcore.a -lColPack -lgomp "
    .. "-lstdc++ -lm -o %s && %s >%s 2>&1"):format(dir, name, exe, exe, log)),
    name .. " in the scratch copy:\n" .. (read_or_nil(log) or ""))
  local out = H.read(log)
  assert.truthy(out:find(" 0 failed"), out)
  os.remove(exe); os.remove(log)
end

-- }====

-- {==== the kernel of the intrinsic recipe ====}

-- asinh and fdim (on its positive side at X0) in one block of four
-- statements, which minimal keeps whole.
local KERNEL = [[
#include <math.h>

void f(double *x, double *y) {
  double t, u;
  t = asinh(x[0] * x[1]);
  u = fdim(t * x[1], 0.1);
  y[0] = u * x[0];
  y[1] = t + u;
}
]]
local X0 = { 0.4, 0.7 }
local CALL = '{"arrays": {"X": [0.4, 0.7], "Y": [0, 0]}, "args": {"x": ["X", 0], "y": ["Y", 0]}}'

-- The driver: F (the compiled kernel at X0), D (central differences of
-- column j), T (f_d's column j and its primal), B (f_b's row i).
local DRIVER = [[
#include <stdio.h>
#include <string.h>
void f(double *x, double *y);
void f_d(double *x, double *xd, double *y, double *yd);
#ifndef NO_ADJOINT
void f_b(double *x, double *xb, double *y, double *yb);
#endif
static const double x0[2] = {0.4, 0.7};
int main(void) {
  double x[2], y[2], xd[2], yd[2], yp[2], ym[2];
  int j;
  memcpy(x, x0, sizeof x), f(x, y);
  printf("F %a %a\n", y[0], y[1]);
  for (j = 0; j < 2; j++) {
    double h = 1e-6;
    memcpy(x, x0, sizeof x), x[j] += h, f(x, yp);
    memcpy(x, x0, sizeof x), x[j] -= h, f(x, ym);
    printf("D %d %a %a\n", j, (yp[0] - ym[0]) / (2 * h), (yp[1] - ym[1]) / (2 * h));
    memcpy(x, x0, sizeof x), memset(xd, 0, sizeof xd), xd[j] = 1, f_d(x, xd, y, yd);
    printf("T %d %a %a %a %a\n", j, yd[0], yd[1], y[0], y[1]);
  }
#ifndef NO_ADJOINT
  for (j = 0; j < 2; j++) {
    double xb[2] = {0, 0}, yb[2] = {0, 0};
    memcpy(x, x0, sizeof x), yb[j] = 1, f_b(x, xb, y, yb);
    printf("B %d %a %a\n", j, xb[0], xb[1]);
  }
#endif
  return 0;
}
]]

local function close(a, b, tol) return math.abs(a - b) <= (tol or 1e-6) * math.max(1, math.abs(a), math.abs(b)) end

-- Compiles the driver with the kernel and the generated files; its lines by tag.
local function run_driver(files, flags)
  local dir = abs(H.tmp("-drv"))
  assert(sh("mkdir -p " .. dir))
  H.write(dir .. "/k.c", KERNEL)
  H.write(dir .. "/driver.c", DRIVER)
  local log, exe = dir .. "/cc.log", dir .. "/drv"
  assert(sh(("%s %s -I%s -o %s %s/driver.c %s/k.c %s -lm 2>%s"):format(CC, flags or "", dir, exe, dir, dir,
    table.concat(files, " "), log)), "the generated code does not compile:\n" .. H.read(log))
  local p = io.popen(exe)
  local got = { D = {}, T = {}, B = {} }
  for l in p:lines() do
    local tag, rest = l:match("^(%u) (.*)$")
    local v = {}
    for w in rest:gmatch("%S+") do v[#v + 1] = tonumber(w) end
    if tag == "F" then got.F = v else got[tag][v[1] + 1] = { table.unpack(v, 2) } end
  end
  assert.is_true(p:close())
  return got
end

-- The kernel's file in the copy's reach and the call.
local function kernel_files()
  local k = abs(H.tmp(".c"))
  H.write(k, KERNEL)
  return k, H.write(abs(H.tmp(".json")), CALL)
end

-- }====

-- {==== the pages name the intrinsics ====}

-- What doc/kernel-language.md's list of intrinsics and doc/xaif.md's table
-- of names leave out of the layout's intrinsics (name -> XAIF name), as
-- "page: name" lines.
local function pages_problems(read, intrinsics)
  local problems = {}
  local list = (read("doc/kernel-language.md") or ""):match("math%.h intrinsics `([^`]*)`") or ""
  local listed, names = {}, {}
  for w in list:gmatch("%S+") do listed[w] = true end
  for w in (read("doc/xaif.md") or ""):gmatch("`([%w_]+)`") do names[w] = true end
  local sorted = {}
  for nm in pairs(intrinsics) do sorted[#sorted + 1] = nm end
  table.sort(sorted)
  for _, nm in ipairs(sorted) do
    if not listed[nm] then problems[#problems + 1] = "doc/kernel-language.md: " .. nm end
    if not (names[nm] and names[intrinsics[nm]]) then problems[#problems + 1] = "doc/xaif.md: " .. nm end
  end
  return problems
end

-- The loop access classes (CG_ACLASSES of cg_addg.h) that the table of
-- doc/adjoint-loops.md, "Access classes", leaves out, as "page: class" lines.
local function classes_problems(read)
  local body = (read("csrc/adjoint/cg_addg.h") or ""):match("#define CG_ACLASSES%(X%)(.-)\n\n") or ""
  local sec = (read("doc/adjoint-loops.md") or ""):match("\n## Access classes\n(.-)\n## ") or ""
  local named, problems, n = {}, {}, 0
  for cell in sec:gmatch("\n| ([^|]+) |") do
    for nm in cell:gmatch("`([^`]+)`") do named[nm] = true end
  end
  for nm in body:gmatch('X%(%u+,%s*"([^"]+)"') do
    n = n + 1
    if not named[nm] then problems[#problems + 1] = "doc/adjoint-loops.md: " .. nm end
  end
  if n == 0 then problems[1] = "csrc/adjoint/cg_addg.h: no CG_ACLASSES rows" end
  return problems
end

-- }====

describe("doc/hacking.md's recipes", function()
  it("give edits for each extension: an operation, an intrinsic, an ordering, a split strategy, a loop access "
     .. "class, a command; and the recipe of a kernel construct", function()
    local page = H.read(PAGE)
    local by = {}
    for _, h in ipairs(R.parse(page)) do by[h.section] = (by[h.section] or 0) + 1 end
    for _, s in ipairs { "Adding an operation", "Adding an intrinsic", "Adding an ordering", "Adding a split strategy",
                         "Adding a loop access class", "Adding a command" } do
      assert.is_true((by[s] or 0) > 0, s .. " has no edits")
    end
    assert.truthy(page:find("\n### Adding a kernel construct\n", 1, true))
  end)

  it("the pages name every intrinsic of the tree with its XAIF name; a row they leave out is found", function()
    local lay = require("cgwb.core").kernel_layout()
    local xa = {}
    for _, nm in ipairs(lay.intrinsics) do xa[nm] = lay.xaif[nm] end
    assert.same({}, pages_problems(read_or_nil, xa))
    xa.asinh = "cgwb_asinh_scal"
    assert.same({ "doc/kernel-language.md: asinh", "doc/xaif.md: asinh" }, pages_problems(read_or_nil, xa))
  end)

  it("doc/adjoint-loops.md names every loop access class of the tree; a class it leaves out is found", function()
    assert.same({}, classes_problems(read_or_nil))
    local function with_row(p)
      local t = read_or_nil(p)
      if p ~= "csrc/adjoint/cg_addg.h" then return t end
      return (t:gsub('(  X%(OTHER, "other", 0%)[^\n]*\n)', '%1  X(PRODUCT, "product", 0) \\\n'))
    end
    assert.same({ "doc/adjoint-loops.md: product" }, classes_problems(with_row))
  end)
end)

describe("the recipes on a scratch copy", function()
  if SAN then
    it("are checked in the release phase (no scratch build under the sanitizers)", function()
      pending("the release phase builds and checks the scratch copy")
    end)
    return
  end
  teardown(function() -- the copy and its build go (CGWB_RECIPE_KEEP=1 keeps them)
    if scratch and not os.getenv("CGWB_RECIPE_KEEP") then os.execute("rm -rf " .. scratch) end
  end)

  it("apply, and the copy builds", function()
    need_scratch()
  end)

  -- {==== an operation and an intrinsic ====}

  it("an intrinsic: the interpreter's values are the C library's bit for bit, its Jacobian central differences'",
     function()
    local k, call = kernel_files()
    local fd = abs(H.tmp("_d.c"))
    cgwb_ok(("flatten %s --emit tangent -o %s"):format(k, fd))
    local got = run_driver({ fd }, "-DNO_ADJOINT") -- F: the compiled kernel's values, D: central differences
    local res = assert(json.decode(cgwb_ok(("kernel %s --call %s --jacobian"):format(k, call))))
    for i = 1, 2 do
      local y = tonumber(res.arrays.Y[i]) or 0 / 0 -- JSON writes a NaN as "nan"
      assert.is_true(H.same_bits(got.F[i], y), ("Y[%d]: interpreter %.17g, compiled %.17g"):format(i - 1, y, got.F[i]))
      for j = 1, 2 do
        local want, have = got.D[j][i], tonumber(res.jacobian.values[i][j]) or 0 / 0
        assert(close(want, have), ("J[%d][%d]: interpreter %.17g, central differences %.17g"):format(i, j, have, want))
      end
    end
  end)

  it("an intrinsic: tangent and adjoint code compile with -Wall -Werror and match central differences", function()
    local k = kernel_files()
    local fd, fb = abs(H.tmp("_d.c")), abs(H.tmp("-adj")) .. "/f_b.c"
    assert(sh("mkdir -p " .. fb:match("^(.*)/")))
    local tan = cgwb_ok(("flatten %s --emit tangent -o -"):format(k))
    H.write(fd, tan)
    cgwb_ok(("adjoint %s -o %s"):format(k, fb))
    assert.truthy(tan:find("= asinh(", 1, true) and tan:find("= fdim(", 1, true), tan)
    assert.truthy(tan:find(" ? 1 : 0", 1, true), "fdim's partial, from its row") -- the row's spelling
    local got = run_driver({ fd, fb }, "-I" .. fb:match("^(.*)/"))
    for j = 1, 2 do
      for i = 1, 2 do
        assert(close(got.D[j][i], got.T[j][i]), ("tangent dy%d/dx%d: %.17g, central differences %.17g"):format(i - 1,
          j - 1, got.T[j][i], got.D[j][i]))
        assert(close(got.D[j][i], got.B[i][j]), ("adjoint dy%d/dx%d: %.17g, central differences %.17g"):format(i - 1,
          j - 1, got.B[i][j], got.D[j][i]))
      end
      H.assert_bits(got.F, { got.T[j][3], got.T[j][4] }, "the tangent code's primal")
    end
  end)

  -- flatten --json of the kernel without costs, and of its XAIF read back.
  local function plain_flattening(t)
    t.cost = nil
    for _, b in ipairs(t.blocks) do
      for _, g in ipairs(b.subgraphs) do g.mults = nil end
    end
    return t
  end

  local function xaif_round_trip(split)
    local k = kernel_files()
    local x = abs(H.tmp(".xaif"))
    cgwb_ok(("flatten %s %s --xaif %s"):format(k, split, x))
    local dir = need_scratch()
    local p = io.popen(("xmllint --noout --schema %s/spec/xaif/xaif-subset.xsd %s 2>&1; echo rc=$?"):format(dir, x))
    local out = p:read("a")
    p:close()
    assert.truthy(out:find("rc=0", 1, true), out)
    local text = H.read(x)
    local back = assert(json.decode(cgwb_ok(("flatten %s --json"):format(x))))
    local want = assert(json.decode(cgwb_ok(("flatten %s %s --json"):format(k, split))))
    assert.same(plain_flattening(want), plain_flattening(back))
    return text, want
  end

  it("an intrinsic: XAIF is valid against the schema subset, names it by its row and reads back the same", function()
    local text = xaif_round_trip("")
    assert.truthy(text:find('name="cgwb_asinh_scal"', 1, true), "asinh's XAIF name")
    assert.truthy(text:find('name="cgwb_fdim_scal_scal"', 1, true), "fdim's XAIF name")
  end)

  it("an operation and an intrinsic: the copy's tests of them pass (spec 12, spec 14, test_gops, test_kintrinsics) "
     .. "and its pages name them", function()
    copy_spec("spec/14-partials_spec.lua")
    copy_spec("spec/12-codegen-ops_spec.lua", { "covers%severy%sCG_GOPS", "through%sthe%sgraph%sbuilder" })
    copy_c_test("test_gops")
    copy_c_test("test_kintrinsics")
    local lay = assert(json.decode(cgwb_ok("run " .. H.write(abs(H.tmp(".lua")),
      "local l = require('cgwb.core').kernel_layout()\nlocal t = {}\n"
      .. "for _, n in ipairs(l.intrinsics) do t[n] = l.xaif[n] end\nprint(require('cgwb.json').encode(t))\n"))))
    assert.equal("cgwb_asinh_scal", lay.asinh)
    assert.equal("cgwb_fdim_scal_scal", lay.fdim)
    local dir = need_scratch()
    assert.same({}, pages_problems(function(p) return read_or_nil(dir .. "/" .. p) end, lay))
  end)

  -- }====

  it("an ordering: eliminate --order gives the sweeps' Jacobian, --list-orderings lists it, edge mode refuses it; "
     .. "spec 16 passes", function()
    local _, err = cgwb_ok("eliminate examples/graphs/lighthouse.cg --order min-in-degree --check")
    assert.truthy(err:find("min-in-degree vertex elimination", 1, true), err)
    assert.truthy(err:find("check passed", 1, true), err)
    local list = cgwb_ok("eliminate --list-orderings")
    assert.truthy(list:find("min%-in%-degree%s+vertex%s+the fewest in%-edges"), list)
    local _, e2, code = cgwb("eliminate examples/graphs/lighthouse.cg --mode edge --order min-in-degree")
    assert.equal(2, code)
    assert.truthy(e2:find("unknown ordering 'min-in-degree' for edge elimination", 1, true), e2)
    copy_spec("spec/16-orderings_spec.lua")
  end)

  it("a split strategy: --split takes and lists it, it cuts as its row says, its tangent code matches central "
     .. "differences, its XAIF reads back the same", function()
    local k = kernel_files()
    assert.truthy(cgwb_ok("flatten --help"):find("minimal, statement, pairs", 1, true))
    local min = assert(json.decode(cgwb_ok(("flatten %s --json"):format(k))))
    local pairs_ = assert(json.decode(cgwb_ok(("flatten %s --split pairs --json"):format(k))))
    assert.equal(1, #min.blocks[1].subgraphs) -- minimal keeps the block whole ...
    assert.equal("pairs", pairs_.strategy)
    assert.equal(2, #pairs_.blocks[1].subgraphs) -- ... pairs cuts it into subgraphs of two statements
    for _, g in ipairs(pairs_.blocks[1].subgraphs) do assert.equal(2, #g.lines) end
    local fd = abs(H.tmp("_d.c"))
    cgwb_ok(("flatten %s --split pairs --emit tangent -o %s"):format(k, fd))
    local got = run_driver({ fd }, "-DNO_ADJOINT")
    for j = 1, 2 do
      for i = 1, 2 do assert(close(got.D[j][i], got.T[j][i]), ("dy%d/dx%d"):format(i - 1, j - 1)) end
    end
    local text = xaif_round_trip("--split pairs")
    assert.truthy(text:find("cgwb:strategy=pairs", 1, true))
  end)

  it("a loop access class: cgwb loops --json gives it and the verdict its row states, the page names it; "
     .. "spec 30 and spec 32's ground truth pass", function()
    local r = assert(json.decode(cgwb_ok("loops examples/kernels/hfh-product.c --json")))
    local l = r.loops[1]
    assert.equal("product", l.access.p)
    assert.same({ "refuse", false }, { l.verdict, l.independent })
    assert.equal("product reduction into p at 7:5", l.reason)
    assert.truthy(cgwb_ok("loops examples/kernels/hfh-product.c"):find("p%s+double%s+product"))
    local dir = need_scratch()
    assert.same({}, classes_problems(function(p) return read_or_nil(dir .. "/" .. p) end))
    copy_spec("spec/30-loops_spec.lua")
    copy_spec("spec/32-adjoint-props_spec.lua", { "gives%sthe%sground%struth" })
  end)

  it("a command: it runs, lists the new intrinsics, is in cgwb --help and cgwb help NAME; spec 15 passes", function()
    local out = cgwb_ok("intrinsics")
    assert.truthy(out:find("\nasinh%s+1%s+asinh%s+cgwb_asinh_scal%s+1 / sqrt%(A0 %* A0 %+ 1%)\n"), out)
    assert.truthy(out:find("\nfdim%s+2%s+fdim%s+cgwb_fdim_scal_scal%s+A0 > A1 %? 1 : 0, A0 > A1 %? %-1 : 0\n"), out)
    local rows = assert(json.decode(cgwb_ok("intrinsics --json")))
    assert.equal("fdim", rows[#rows].name)
    assert.truthy(cgwb_ok("--help"):find("\n%s+intrinsics%s+The kernels' math%.h intrinsics"))
    assert.truthy(cgwb_ok("help intrinsics"):find("cgwb intrinsics --json", 1, true))
    copy_spec("spec/15-modules_spec.lua")
  end)
end)
