-- Inputs bounded by their real size: memory follows the locations a tape
-- uses, not its highest location number or a count its header claims
-- (doc/formats.md, "Sparse location numbers"); and the files that are not
-- tapes are refused with a message naming the file and what is wrong.
local H = require "spec.helper"
local cgwb = require "cgwb"

local ASAN = H.build:find("debug", 1, true) ~= nil

local function cg_base(p) return (p:match("[^/]*$")) end

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

describe("files that are not tapes", function()
  local core = cgwb.core

  it("an empty file, or one of white space only, is refused", function()
    for _, text in ipairs({ "", "\n", "  \n\t\n\r\n" }) do
      local p = H.write(H.tmp(".tap"), text)
      local t, msg = core.read_tape(p)
      assert.is_nil(t)
      assert.are.equal(p .. ": empty file, not a tape", msg)
      local _, e, code = H.cgwb("stats " .. p)
      assert.are.equal(2, code)
      assert.are.equal("cgwb stats: " .. p .. ": empty file, not a tape\n", e)
      os.remove(p)
    end
  end)

  it("a text tape of comments only is an empty tape, as the writer writes one", function()
    local p = H.write(H.tmp(".txt"), "# nothing recorded\n\n")
    local t <close> = assert(core.read_tape(p))
    assert.are.equal(0, t:n() + t:m())
    local out = H.tmp(".txt")
    assert(t:write(out, "text"))
    local back <close> = assert(core.read_tape(out))
    assert.are.equal(0, back:n() + back:m())
    os.remove(p)
    os.remove(out)
  end)

  -- Offsets in 1 .. size-1: every byte of the first `first`, the bytes around
  -- `edge`, and 40 spread over the rest.
  local function offsets(size, first, edge)
    local o = {}
    for k = 1, first do o[#o + 1] = k end
    for k = edge - 2, edge + 2 do o[#o + 1] = k end
    for k = 1, 40 do o[#o + 1] = first + (size - first - 1) * k // 40 end
    return o
  end

  it("a classic tape cut at any byte is a truncated classic tape", function()
    local bytes = H.read("examples/tapes/bratu.tap")
    local p = H.tmp(".tap")
    local bad = {}
    for _, k in ipairs(offsets(#bytes, 96, 80 + 8 * 3200)) do -- header, x0, records
      H.write(p, bytes:sub(1, k))
      local t, msg = core.read_tape(p)
      if t or not msg:find(cg_base(p) .. ": ", 1, true) or
         not msg:find("truncated classic tape: ", 1, true) then
        bad[#bad + 1] = ("%d: %s"):format(k, tostring(msg))
      end
      if t then t:free() end
    end
    os.remove(p)
    assert.are.same({}, bad)
  end)

  it("a file of an ADOL-C set cut at any byte is a truncated ADOL-C tape file", function()
    local dir = H.tmp("-cut")
    os.execute("mkdir -p " .. dir)
    local set = {}
    for _, k in ipairs({ "Operations", "Locations", "Values" }) do
      set[k] = H.read(("examples/tapes/ADOLC-%s_1.tap"):format(k))
    end
    for k, bytes in pairs(set) do H.write(("%s/ADOLC-%s_1.tap"):format(dir, k), bytes) end
    local bad = {}
    for cut, bytes in pairs(set) do
      local path = ("%s/ADOLC-%s_1.tap"):format(dir, cut)
      for _, n in ipairs(offsets(#bytes, 24, cut == "Locations" and 168 or 24)) do
        H.write(path, bytes:sub(1, n))
        local t, msg = core.read_tape(dir .. "/ADOLC-Operations_1.tap")
        local want = ("ADOLC-%s_1.tap: truncated ADOL-C tape file: "):format(cut)
        if t or not msg:find(want, 1, true) then
          bad[#bad + 1] = ("%s %d: %s"):format(cut, n, tostring(msg))
        end
        if t then t:free() end
      end
      H.write(path, bytes)
    end
    os.execute("rm -rf " .. dir)
    assert.are.same({}, bad)
  end)

  it("every file that cannot be opened: FILE: cannot open: <strerror>", function()
    local dir = H.tmp("-open")
    os.execute("mkdir -p " .. dir)
    local missing = dir .. "/missing.tap"
    local cases = {
      { "stats " .. missing, missing .. ": cannot open: No such file or directory" },
      { "stats " .. dir, dir .. ": cannot open: Is a directory" },
      { "stats " .. dir .. "/ADOLC-Operations_9.tap",
        dir .. "/ADOLC-Operations_9.tap: cannot open: No such file or directory" },
      { ("convert examples/tapes/bratu.tap %s/no/such/dir.txt"):format(dir),
        dir .. "/no/such/dir.txt: cannot open: No such file or directory" },
    }
    -- an ADOL-C set whose Locations file is missing: the sibling is named
    for _, k in ipairs({ "Operations", "Values" }) do
      H.write(("%s/ADOLC-%s_1.tap"):format(dir, k), H.read(("examples/tapes/ADOLC-%s_1.tap"):format(k)))
    end
    cases[#cases + 1] = { "stats " .. dir .. "/ADOLC-Operations_1.tap",
      dir .. "/ADOLC-Locations_1.tap: cannot open: No such file or directory" }
    for _, c in ipairs(cases) do
      local _, e, code = H.cgwb(c[1])
      assert.are.equal(2, code, c[1] .. ": " .. e)
      assert.truthy(e:find(c[2], 1, true), c[1] .. ": " .. e)
    end
    os.execute("rm -rf " .. dir)
  end)
end)
