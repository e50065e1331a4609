-- Inputs bounded by their real size: memory follows the locations a tape
-- uses, not its highest location number or a count its header claims
-- (doc/formats.md, "Sparse location numbers"); and the files that are not
-- tapes are refused with a message naming the file and what is wrong.
local H = require "spec.helper"
local cgwb = require "cgwb"

local ASAN = H.build:find("debug", 1, true) ~= nil

-- Runs the command with at most 1 GB of address space (not under ASan, whose
-- shadow memory needs far more) and a memory limit of 256 MiB, so that a
-- store sized by the highest location fails at once instead of eating the
-- machine; returns stdout, stderr, exit status.
local function bounded(args)
  local out, err = H.tmp(".out"), H.tmp(".err")
  local cmd = ("%s CGWB_MEMORY_LIMIT=256M CGWB_BUILD=%s timeout 20 scripts/cgwb %s >%s 2>%s")
    :format(ASAN and "" or "ulimit -v 1000000;", H.build, args, out, err)
  local _, _, code = os.execute(cmd)
  local o, e = H.read(out), H.read(err)
  os.remove(out)
  os.remove(err)
  return o, e, code
end

local function ok(args)
  local o, e, code = bounded(args)
  assert.are.equal(0, code, args .. ": " .. e)
  return o
end

-- The 80 bytes of a classic header (Bischof & Hu 1991, sec. 1.3).
local function classic_header(f)
  local s = {}
  for i = 1, 8 do s[i] = ("%10d"):format(f[i]) end
  return table.concat(s)
end

-- A classic tape: x1 = 1.5 in location 7, y = x1, and the death notice
-- over a store of 2^32 - 1 locations that its header declares.
local function huge_classic()
  local recs = string.pack("<BI4B", 1, 7, 4) .. string.pack("<BI4B", 2, 7, 4) ..
    string.pack("<BI4I4B", 0, 0, 4294967294, 8)
  return classic_header({ 0, 1, 1, 65536, 4294967295, #recs, 2, 4294967295 }) ..
    string.pack("<d", 1.5) .. recs
end

describe("a tape with a sparse location space", function()
  local big = H.write(H.tmp(".txt"), "assign_ind 3000000000 1.0\nassign_dep 3000000000\n")
  local big4 = H.write(H.tmp(".txt"),
    "assign_ind 4000000000 1.0\nassign_ind 5 2.0\nmult_a_a 3999999999 4000000000 5\n" ..
    "assign_dep 3999999999\n")

  it("stats streams in memory of the locations used", function()
    local o = ok("stats " .. big)
    assert.truthy(o:find("locations used    3000000001", 1, true), o)
    assert.truthy(o:find("peak live values  1\n", 1, true), o)
    o = ok("stats --json " .. big4)
    assert.truthy(o:find('"peak_live": 3', 1, true), o)
    assert.truthy(o:find('"locations": 4000000001', 1, true), o)
  end)

  it("eval, graph, jacobian and codegen work on the locations used", function()
    assert.are.equal("1\n", ok("eval " .. big))
    assert.are.equal("2\n", ok("eval " .. big4))
    ok("graph " .. big)
    local o = ok("jacobian " .. big4)
    assert.truthy(o:find("1 2 2\n1 1 2\n1 2 1\n", 1, true), o)
    local c = H.tmp(".c")
    ok(("codegen %s -o %s"):format(big4, c))
    assert.truthy(H.read(c):find("void f(", 1, true))
    os.remove(c)
  end)

  it("convert keeps the file's location numbers", function()
    local txt, tap, back = H.tmp(".txt"), H.tmp(".tap"), H.tmp(".txt")
    ok(("convert %s %s"):format(big4, txt))
    assert.truthy(H.read(txt):find("mult_a_a 3999999999 4000000000 5\n", 1, true))
    ok(("convert %s %s"):format(big4, tap))
    assert.are.equal(4000000001, tonumber(H.read(tap):sub(41, 50)))
    ok(("convert %s %s"):format(tap, back))
    assert.are.equal(H.read(txt), H.read(back))
    os.remove(txt)
    os.remove(tap)
    os.remove(back)
  end)

  it("a classic tape declaring a store of 2^32 - 1 locations", function()
    local tap = H.write(H.tmp(".tap"), huge_classic())
    assert.are.equal("1.5\n", ok("eval " .. tap))
    local o = ok("stats " .. tap)
    assert.truthy(o:find("max live (header) 4294967295", 1, true), o)
    local out = H.tmp(".tap")
    ok(("convert %s %s"):format(tap, out))
    assert.are.equal(H.read(tap), H.read(out))
    os.remove(tap)
    os.remove(out)
  end)

  it("an ADOL-C set declaring a store of 2^32 - 1 locations", function()
    -- Bratu's set with NUM_MAX_LIVES 2^32 - 1 and its final death notice over
    -- all of it, as ADOL-C writes them: the same Jacobian as the original.
    local dir = H.tmp("-adolc")
    os.execute("mkdir -p " .. dir)
    for _, k in ipairs({ "Operations", "Values" }) do
      H.write(("%s/ADOLC-%s_1.tap"):format(dir, k), H.read(("examples/tapes/ADOLC-%s_1.tap"):format(k)))
    end
    local l = H.read("examples/tapes/ADOLC-Locations_1.tap")
    assert.are.equal(8191, string.unpack("<I4", l, #l - 3))
    assert.are.equal(8192, string.unpack("<I8", l, 29))
    l = l:sub(1, 28) .. string.pack("<I8", 4294967295) .. l:sub(37, #l - 4) ..
      string.pack("<I4", 4294967294)
    H.write(dir .. "/ADOLC-Locations_1.tap", l)
    local set, at = dir .. "/ADOLC-Operations_1.tap", " --at examples/tapes/bratu.x"
    local j = ok("jacobian --json" .. at .. " " .. set)
    local want = ok("jacobian --json" .. at .. " examples/tapes/ADOLC-Operations_1.tap")
    assert.are.equal((want:gsub('"seconds": [^\n]*', "")), (j:gsub('"seconds": [^\n]*', "")))
    local o = ok("stats " .. set)
    assert.truthy(o:find("peak live values  3244", 1, true), o)
    os.execute("rm -rf " .. dir)
  end)

  it("is refused when records address locations through values", function()
    local t = H.write(H.tmp(".txt"), "assign_ind 3000000000 1.0\nassign_d 5 3000000000\n" ..
      "ref_copyout 6 5\nassign_dep 6\n")
    local _, e, code = bounded("eval " .. t)
    assert.are.equal(2, code, e)
    assert.truthy(e:find("record 2: ref_copyout addresses locations through values", 1, true), e)
    os.remove(t)
  end)

  it("from Lua: a loaded tape has a dense store", function()
    local t <close> = assert(cgwb.read_tape(big4))
    assert.are.equal(3, t:nstore())
    local y = t:forward()
    assert.are.equal(2, y[1])
  end)

  teardown(function()
    os.remove(big)
    os.remove(big4)
  end)
end)
