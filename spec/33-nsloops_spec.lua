-- spec/33-nsloops_spec.lua: the benchmark of adjoints of parallel loops
-- (doc/results/adjoint-loops.md; Hascoet, Fidanova & Held, sec. 4): the mesh
-- generator scripts/bench/mesh.lua (deterministic, valid), the kernel
-- examples/kernels/nsloops.c (parses; the compiled kernel computes the
-- interpreter's cost; the analysis accepts its 7 loops, all but the last
-- dry-run), and scripts/bench/adjoint_driver.c on a 4 x 4 mesh: the standard and
-- the transformed adjoint agree to 1e-12 and with central differences, and
-- the standard one with the interpreter's tangent mode.
local H = require "spec.helper"
local core = require "cgwb.core"
local json = require "cgwb.json"
local kparse = require "cgwb.kparse"

local mesh = dofile("scripts/bench/mesh.lua")
local KERNEL = "examples/kernels/nsloops.c"
local CFLAGS = "-std=c99 -D_POSIX_C_SOURCE=200809L -O2 -ffp-contract=off -Wall -Wextra -pedantic -Werror"
-- The adjoint test's build: under AddressSanitizer and UndefinedBehaviorSanitizer when
-- the compiler has them (any report fails the run).
local SAN = "-O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
local function san_flags()
  local src, exe = H.write(H.tmp(".c"), "int main(void) { return 0; }\n"), H.tmp("")
  local ok = os.execute(("cc %s %s -o %s >/dev/null 2>&1 && %s"):format(SAN, src, exe, exe))
  os.remove(src)
  os.remove(exe)
  return ok and CFLAGS .. " " .. SAN or CFLAGS
end

local function sh(cmd) -- runs cmd; its stdout, or an error naming its stderr
  local out, err = H.tmp(".out"), H.tmp(".err")
  local ok = os.execute(("%s >%s 2>%s"):format(cmd, out, err))
  local o, e = H.read(out), H.read(err)
  os.remove(out)
  os.remove(err)
  if not ok then error(("command failed: %s\n%s%s"):format(cmd, o, e), 2) end
  return o
end

describe("scripts/bench/mesh.lua", function()
  it("has the counts of an n x n grid and Euler's formula (V - E + F = 1)", function()
    for _, n in ipairs({ 1, 2, 4, 7, 22 }) do
      local m = mesh.generate(n, 3)
      assert.equal((n + 1) ^ 2, m.nv)
      assert.equal(2 * n * n, m.nt)
      assert.equal(3 * n * n + 2 * n, m.ne)
      assert.equal(4 * n, m.nb)
      assert.equal(1, m.nv - m.ne + m.nt)
    end
    assert.equal(968, mesh.generate(22, 1).nt)
  end)

  it("gives every triangle a positive area, the areas summing to the unit square", function()
    for seed = 1, 5 do
      local m, sum = mesh.generate(12, seed), 0
      for t = 0, m.nt - 1 do
        local a2 = mesh.area2(m, t)
        assert.is_true(a2 > 0, ("seed %d: triangle %d area %g"):format(seed, t, a2))
        sum = sum + a2 / 2
      end
      assert.is_true(math.abs(sum - 1) < 1e-12, "area sum " .. sum)
    end
  end)

  it("lists each edge once with its one or two triangles, boundary edges on the boundary", function()
    local m = mesh.generate(9, 2)
    local seen, nb = {}, 0
    for e = 0, m.ne - 1 do
      local a, b, t1, t2 = m.edge[4 * e + 1], m.edge[4 * e + 2], m.edge[4 * e + 3], m.edge[4 * e + 4]
      assert.is_true(a < b)
      assert.is_nil(seen[a * m.nv + b])
      seen[a * m.nv + b] = true
      for _, t in ipairs({ t1, t2 }) do
        if t >= 0 then -- the triangle has both end points
          local has = 0
          for k = 1, 3 do
            local v = m.tri[3 * t + k]
            if v == a or v == b then has = has + 1 end
          end
          assert.equal(2, has)
        end
      end
      if t2 == -1 then
        nb = nb + 1
        local xa, ya, xb, yb = m.x[a + 1], m.y[a + 1], m.x[b + 1], m.y[b + 1]
        assert.is_true((xa == xb and (xa == 0 or xa == 1)) or (ya == yb and (ya == 0 or ya == 1)))
      end
    end
    assert.equal(m.nb, nb)
  end)

  it("jitters interior vertices by at most 0.2 h and renumbers them", function()
    local n = 10
    local m, h, moved, inorder = mesh.generate(n, 4), 1 / n, 0, 0
    for i = 1, m.nv do
      local gx, gy = math.floor(m.x[i] * n + 0.5), math.floor(m.y[i] * n + 0.5)
      local dx, dy = m.x[i] - gx * h, m.y[i] - gy * h
      assert.is_true(math.abs(dx) <= 0.2 * h + 1e-15 and math.abs(dy) <= 0.2 * h + 1e-15)
      if dx ~= 0 or dy ~= 0 then moved = moved + 1 end
      if gy * (n + 1) + gx == i - 1 then inorder = inorder + 1 end
    end
    assert.equal((n - 1) ^ 2, moved) -- every interior vertex, no boundary one
    assert.is_true(inorder < m.nv / 10, "renumbered: " .. inorder .. " in grid order")
  end)

  it("is deterministic: the same n and seed give the same bytes and checksum", function()
    local a, b, c = mesh.format(mesh.generate(4, 1)), mesh.format(mesh.generate(4, 1)), mesh.format(mesh.generate(4, 2))
    assert.equal(a, b)
    assert.are_not.equal(a, c)
    local body, sum = a:match("^(.*\n)checksum (%x+)\n$")
    assert.equal(mesh.fnv1a(body), sum)
    assert.equal("af63dc4c8601ec8c", mesh.fnv1a("a")) -- the published FNV-1a 64 test vector
    assert.equal("cbf29ce484222325", mesh.fnv1a(""))   -- the offset basis
    assert.equal(a, sh("lua5.4 scripts/bench/mesh.lua 4 1"))
    -- the meshes of the spec and of the benchmark's table, pinned: a change of the
    -- generator (or of its random numbers) changes every figure of the results page
    assert.equal("81e42ff91ecd201a", sum)
    assert.equal("f95f54f8d7360467", mesh.format(mesh.generate(22, 1)):match("checksum (%x+)\n$"))
  end)

  it("refuses a bad size with exit status 2", function()
    local ok, _, code = os.execute("lua5.4 scripts/bench/mesh.lua 0 >/dev/null 2>&1")
    assert.is_nil(ok)
    assert.equal(2, code)
  end)
end)

-- The mesh of n squares a side, the state of nsmesh.h and the cost of the
-- compiled kernel, from a small C program (so the interpreter gets the very
-- doubles the drivers use).
local function compiled_point(n)
  local mpath = H.write(H.tmp(".mesh"), mesh.format(mesh.generate(n, 1)))
  local src = H.write(H.tmp(".c"), [[
#include "nsmesh.h"
#include "../../examples/kernels/nsloops.c"
int main(int argc, char **argv) {
  ns_mesh m;
  (void)argc;
  if (ns_read(argv[1], &m)) return 2;
  int nv = m.nv, nt = m.nt;
  double *a = calloc((size_t)(31 * nv + 7 * nt + 1), sizeof(double));
  if (!a) return 2;
  double *w0 = a, *w1 = w0 + nv, *w2 = w1 + nv, *w3 = w2 + nv, *q = w3 + nv;
  ns_state(&m, w0, w1, w2, w3);
  for (int i = 0; i < 4 * nv; i++) printf("%.17g\n", a[i]);
  nsloops(nv, m.ne, nt, m.tri, m.edge, m.x, m.y, w0, w1, w2, w3, q, q + nv, q + 2 * nv,
          q + 3 * nv, q + 4 * nv, q + 5 * nv, q + 6 * nv, q + 7 * nv, q + 8 * nv, q + 9 * nv,
          q + 10 * nv, q + 11 * nv, q + 12 * nv, q + 13 * nv, q + 13 * nv + nt,
          q + 13 * nv + 4 * nt, q + 13 * nv + 7 * nt, q + 14 * nv + 7 * nt, q + 15 * nv + 7 * nt,
          q + 16 * nv + 7 * nt, q + 17 * nv + 7 * nt, q + 18 * nv + 7 * nt,
          q + 19 * nv + 7 * nt, q + 20 * nv + 7 * nt, 0.2 / m.n, 0.01, q + 21 * nv + 7 * nt);
  printf("%.17g\n", q[21 * nv + 7 * nt]);
  free(a);
  ns_free(&m);
  return 0;
}
]])
  local exe = H.tmp("")
  sh(("cc %s -Iscripts/bench %s -lm -o %s"):format(CFLAGS, src, exe))
  local vals = {}
  for x in sh(exe .. " " .. mpath):gmatch("%S+") do vals[#vals + 1] = tonumber(x) end
  os.remove(src)
  os.remove(exe)
  local m = mesh.generate(n, 1)
  local nv = m.nv
  local w = {}
  for k = 1, 4 do w[k] = table.move(vals, (k - 1) * nv + 1, k * nv, 1, {}) end
  return m, w, vals[#vals], mpath
end

-- CALL.json for the interpreter at the point of compiled_point.
local function call_json(m, w)
  local nv, nt, ne = m.nv, m.nt, m.ne
  local arrays, names = {}, {}
  local function arr(name, values, typ)
    names[#names + 1] = name
    arrays[#arrays + 1] = ("%q: %s"):format(name, typ and ('{"type": "int", "values": ' .. json.encode(json.array(values)) .. "}")
      or json.encode(json.array(values)))
  end
  local edge = {}
  for e = 0, ne - 1 do edge[2 * e + 1], edge[2 * e + 2] = m.edge[4 * e + 1], m.edge[4 * e + 2] end
  local function zeros(k) local t = {} for i = 1, k do t[i] = 0 end return t end
  arr("tri", m.tri, "int"); arr("edge", edge, "int")
  arr("x", m.x); arr("y", m.y)
  for k = 1, 4 do arr("w" .. (k - 1), w[k]) end
  for _, name in ipairs({ "r", "u", "v", "p", "rx", "ry", "ux", "uy", "vx", "vy", "px", "py", "dual" }) do arr(name, zeros(nv)) end
  arr("area", zeros(nt)); arr("gx", zeros(3 * nt)); arr("gy", zeros(3 * nt))
  for _, name in ipairs({ "res0", "res1", "res2", "res3", "wn0", "wn1", "wn2", "wn3" }) do arr(name, zeros(nv)) end
  arr("cost", { 0 })
  local args = { ("\"nv\": %d, \"ne\": %d, \"nt\": %d"):format(nv, ne, nt) }
  for _, name in ipairs(names) do args[#args + 1] = ("%q: [%q, 0]"):format(name, name) end
  args[#args + 1] = ("\"dt\": %.17g, \"mu\": 0.01"):format(0.2 / m.n)
  return "{\"arrays\": {" .. table.concat(arrays, ", ") .. "}, \"args\": {" .. table.concat(args, ", ") .. "}}"
end

local tangent -- the interpreter's gradient of cost on the 3 x 3 mesh: {n, nv, g = {["w0[0]"] = ...}}

describe("examples/kernels/nsloops.c", function()
  it("is in the kernel subset and compiles as C99 without a warning", function()
    local flat = assert(kparse.read(KERNEL))
    assert.is_truthy(core.kernel_load(flat))
    sh(("cc %s -c %s -o %s"):format(CFLAGS, KERNEL, H.tmp(".o")))
  end)

  it("compiled, computes the interpreter's cost (bit for bit), and the interpreter's tangent its gradient", function()
    local m, w, cost = compiled_point(3)
    local cpath = H.write(H.tmp(".json"), call_json(m, w))
    local out, err, code = H.cgwb(("kernel %s --function nsloops --call %s --jacobian"):format(KERNEL, cpath))
    assert.equal(0, code, err)
    local r = assert(json.decode(out))
    assert.is_true(H.same_bits(cost, r.arrays.cost[1]), ("compiled %.17g, interpreter %.17g"):format(cost, r.arrays.cost[1]))
    assert.is_true(cost > 0)
    -- keep the interpreter's gradient of cost for the adjoint test below
    local jac, row = r.jacobian, nil
    for i, name in ipairs(jac.rows) do if name == "cost[0]" then row = jac.values[i] end end
    assert.is_truthy(row)
    local g = {}
    for j, name in ipairs(jac.cols) do g[name] = row[j] end
    tangent = { n = 3, g = g, nv = m.nv } -- for the adjoint test below
  end)
end)

describe("the analysis of nsloops (core.kernel_loops)", function()
  it("accepts all 7 loops; all but the last are dry-run; the last is terminal", function()
    local cgwb = require "cgwb"
    local K = assert(cgwb.read_kernel(KERNEL))
    local info = assert(core.kernel_loops(K, "nsloops", { independents = { "w0", "w1", "w2", "w3", "x", "y" },
                                                         dependents = { "cost" } }))
    local top = {}
    for _, l in ipairs(info.loops) do if l.depth == 1 then top[#top + 1] = l end end
    assert.equal(7, #top)
    local lines = {}
    for line in H.read(KERNEL):gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
    for i, l in ipairs(top) do
      assert.truthy(lines[l.line]:find("for %(.*/%* " .. i .. ": "), "loop " .. i .. " is the source's loop " .. i)
      assert.equal("accept", l.verdict, ("loop %d at line %d: %s"):format(i, l.line, l.reason))
      assert.equal(i == 7, l.terminal, "loop " .. i)
      assert.equal(i ~= 7, l.dry_run, "loop " .. i)
    end
    local function class(l, name)
      for _, a in ipairs(l.access) do if a.name == name then return a.class end end
    end
    assert.equal("own-index write", class(top[1], "r"))
    assert.equal("own-index write", class(top[2], "gx"))
    assert.equal("increment", class(top[3], "rx"))
    assert.equal("own-index write", class(top[4], "rx"))
    assert.equal("increment", class(top[5], "res0"))
    assert.equal("increment", class(top[6], "res3"))
    assert.equal("read-only", class(top[6], "tri"))
    assert.equal("own-index write", class(top[7], "wn0"))
    local snap4 = {}
    for _, s in ipairs(top[4].snapshot) do snap4[s.name] = true end
    assert.is_true(snap4.rx and snap4.py, "loop 4 divides the gradients in place: they are in its snapshot")
  end)
end)

describe("scripts/bench/adjoint_driver.c on 3 x 3 and 4 x 4 meshes", function()
  it("standard and transformed adjoints agree to 1e-12, with central differences and the interpreter's tangent"
     .. " (under the sanitizers)", function()
    local cgwb = require "cgwb"
    local adjoint = require "cgwb.adjoint"
    local K = assert(cgwb.read_kernel(KERNEL))
    local dir, CFLAGS = H.tmp("_adj"), san_flags()
    sh("mkdir -p " .. dir)
    for _, v in ipairs({ { "std", "none" }, { "tr", "auto" } }) do
      local src, err = adjoint.emit(K, "nsloops", { independents = { "w0", "w1", "w2", "w3", "x", "y" },
                                                   dependents = { "cost" }, loops = v[2] })
      assert.is_string(src, err)
      local path = H.write(("%s/nsloops_%s.c"):format(dir, v[1]), src)
      sh(("cc %s -Ilua/cgwb/runtime -Dnsloops_b=nsloops_%s_b -Dnsloops_b_stats=nsloops_%s_b_stats "
        .. "-Dnsloops_b_reset=nsloops_%s_b_reset -c %s -o %s/%s.o"):format(CFLAGS, v[1], v[1], v[1], path, dir, v[1]))
    end
    sh(("cc %s -c %s -o %s/k.o && cc %s -Iscripts/bench scripts/bench/adjoint_driver.c %s/k.o %s/std.o %s/tr.o -lm -o %s/drv")
      :format(CFLAGS, KERNEL, dir, CFLAGS, dir, dir, dir, dir))
    -- bad input: a changed byte fails the checksum; exit status 2, a message, no figures
    local text = mesh.format(mesh.generate(3, 1))
    local bad = H.write(H.tmp(".mesh"), (text:gsub("\n0 ", "\n1 ", 1)))
    local _, _, code = os.execute(("%s/drv %s 1 >%s/bad.out 2>%s/bad.err"):format(dir, bad, dir, dir))
    assert.equal(2, code)
    assert.truthy(H.read(dir .. "/bad.err"):find("checksum mismatch", 1, true))
    assert.equal("", H.read(dir .. "/bad.out"))
    local compared = false
    for _, n in ipairs({ 3, 4 }) do
      local mpath = H.write(H.tmp(".mesh"), mesh.format(mesh.generate(n, 1)))
      local out = sh(("%s/drv %s 1 %s/grad%d.txt"):format(dir, mpath, dir, n)) -- exit 0: its checks passed
      local t = {}
      for line in out:gmatch("[^\n]+") do
        local k, rest = line:match("^(check %S+) (.*)$")
        if not k then k, rest = line:match("^(%S+) (.*)$") end
        t[k] = rest
      end
      assert.is_true(tonumber(t["check std_vs_tr"]) <= 1e-12)
      assert.is_true(tonumber(t["check fd"]) <= 1e-6)
      assert.equal("1", t["check primal"])
      local std = {}
      for x in (t.standard or ""):gmatch("%S+") do std[#std + 1] = tonumber(x) end
      local tr = {}
      for x in (t.transformed or ""):gmatch("%S+") do tr[#tr + 1] = tonumber(x) end
      assert.is_true(tr[2] < std[2], "the transformed adjoint's tape is smaller")
      assert.is_true(tr[4] > 0, "the dry runs take snapshots")
      local tg = tangent
      if tg and tg.n == n then -- the gradient against the interpreter's tangent mode
        local g, i, worst, gmax = {}, 0, 0, 0
        for x in H.read(("%s/grad%d.txt"):format(dir, n)):gmatch("%S+") do i = i + 1; g[i] = tonumber(x) end
        assert.equal(6 * tg.nv, #g)
        for k, name in ipairs({ "w0", "w1", "w2", "w3", "x", "y" }) do
          for c = 0, tg.nv - 1 do
            local a, b = g[(k - 1) * tg.nv + c + 1], tg.g[("%s[%d]"):format(name, c)] or 0
            worst = math.max(worst, math.abs(a - b))
            gmax = math.max(gmax, math.abs(b))
          end
        end
        assert.is_true(worst <= 1e-12 * gmax, ("adjoint vs tangent: %g of %g"):format(worst, gmax))
        compared = true
      end
    end
    assert.is_true(compared, "the interpreter's tangent (the test above) was compared")
    sh("rm -rf " .. dir)
  end)
end)
