-- Tape formats: text and classic tapes, round trips, statistics, bad input.
local H = require "spec.helper"
local core = require "cgwb.core"
local gen = require "spec.gen"

-- Bischof & Hu 1991, sec. 1.2: f(x, y, z) at (1, 2, 3) with slots reused by death notices.
local SEED_EXAMPLE = [[
# Bischof & Hu 1991, sec. 1.2 (second listing): f(1, 2, 3) = sqrt(z / x)
assign_ind 1 1.0
assign_ind 2 2.0
assign_d 3 3.0
plus_a_a 5 1 2
assign_a 4 5
death_not 5 5
mult_a_d 5 4 2.0
death_not 5 5
div_d_a 5 1 3.0   # the paper's z/x is taped with z a constant here
sqrt_op 5 5
assign_dep 5
]]

-- All records of a tape as a list of {name, locs, vals}.
local function records(t)
  local out = {}
  for _, name, locs, vals in t:records() do out[#out + 1] = { name, locs, vals } end
  return out
end

local same_bits = H.same_bits

local function assert_same_records(a, b)
  assert.are.equal(#a, #b)
  for i = 1, #a do
    assert.are.equal(a[i][1], b[i][1], "record " .. i)
    assert.are.same(a[i][2], b[i][2], "record " .. i)
    assert.are.equal(#a[i][3], #b[i][3])
    for k = 1, #a[i][3] do assert.is_true(same_bits(a[i][3][k], b[i][3][k])) end
  end
end

describe("text tapes", function()
  it("read Bischof & Hu's example with comments and inline values", function()
    local t = assert(core.read_text(SEED_EXAMPLE, "seed.txt"))
    assert.are.equal(11, t:len())
    assert.are.equal(2, t:n())
    assert.are.equal(1, t:m())
    assert.are.same({ 1.0, 2.0 }, t:x0())
    local name, locs, vals = t:record(4)
    assert.are.equal("plus_a_a", name)
    assert.are.same({ 5, 1, 2 }, locs)
    assert.are.same({}, vals)
    name, locs, vals = t:record(7)
    assert.are.equal("mult_a_d", name)
    assert.are.same({ 5, 4 }, locs)
    assert.are.same({ 2.0 }, vals)
  end)

  it("evaluate to the function's value at the recorded point and elsewhere", function()
    local t = assert(core.read_text(SEED_EXAMPLE, "seed.txt"))
    local y = t:forward()
    assert.are.equal(math.sqrt(3.0 / 1.0), y[1])
    y = t:forward({ 4.0, 5.0 })
    assert.are.equal(math.sqrt(3.0 / 4.0), y[1])
  end)

  it("may leave out the values of the independents, all of them", function()
    local t = assert(core.read_text("assign_ind 0\nassign_ind 1\nplus_a_a 2 0 1\nassign_dep 2\n"))
    assert.is_nil(t:x0())
    assert.are.equal(7, t:forward({ 3, 4 })[1])
    local ok, msg = core.read_text("assign_ind 0 1\nassign_ind 1\n", "mixed.txt")
    assert.is_nil(ok)
    assert.matches("mixed.txt:2: assign_ind values must be given for all", msg, 1, true)
  end)

  local bad = {
    { "plux_a_a 1 2 3\n", "x.txt:1: unknown opcode 'plux_a_a'" },
    { "assign_ind 0 1\nplus_a_a 1 0\n", "x.txt:2: missing location" },
    { "assign_ind 0 1\nplus_a_a 1 0 0 0\n", "x.txt:2: too many operands for plus_a_a" },
    { "assign_d 0 abc\n", "x.txt:1: bad constant 'abc'" },
    { "assign_d -1 2\n", "x.txt:1: bad location '-1'" },
    { "assign_d 4294967295 2\n", "x.txt:1: bad location '4294967295'" },
    { "end_of_tape\n", "x.txt:1: unknown opcode 'end_of_tape'" },
    { "ampi_send\n", "x.txt:1: unknown opcode 'ampi_send'" },
    { "assign_p 0 0\n", "x.txt:1: unknown opcode 'assign_p'" },
  }
  for _, case in ipairs(bad) do
    it("reject " .. case[1]:gsub("\n", "; ") .. " with file and line", function()
      local t, msg = core.read_text(case[1], "x.txt")
      assert.is_nil(t)
      assert.matches(case[2], msg, 1, true)
    end)
  end
end)

describe("classic tapes", function()
  it("reproduce the record sizes of Table 1 of Bischof & Hu 1991", function()
    local t = core.tape_new()
    t:push("assign_ind", 0):push("assign_a", 1, 0):push("assign_d", 2, 1.5)
     :push("eq_plus_a", 1, 0):push("plus_a_a", 3, 0, 1):push("plus_a_d", 3, 3, 2.0)
     :push("min_a_a", 4, 3, 1):push("mult_a_a", 4, 4, 0):push("mult_a_d", 4, 4, 3.0)
     :push("div_d_a", 4, 4, 1.0):push("exp_op", 4, 4):push("death_not", 3, 3)
     :push("assign_dep", 4)
    t:set_x0({ 0.5 })
    local path = H.tmp(".tap")
    assert(t:write(path, "classic"))
    local s = assert(core.stats(path))
    local bytes = {}
    for _, o in ipairs(s.opcodes) do bytes[o.name] = o.bytes / o.count end
    assert.are.same({
      assign_ind = 6, assign_a = 10, assign_d = 18, eq_plus_a = 10, plus_a_a = 14,
      plus_a_d = 18, min_a_a = 14, mult_a_a = 14, mult_a_d = 18, div_d_a = 18,
      exp_op = 10, death_not = 10, assign_dep = 6,
    }, bytes)
    -- 80 header bytes + one double for x0 + the records
    local size = #H.read(path)
    assert.are.equal(80 + 8 + s.operation_bytes + s.death_bytes, size)
    assert.are.equal(12, s.operations)
    assert.are.equal(1, s.death_notices)
    os.remove(path)
  end)

  it("carry the values of the independents and the header counts", function()
    local t = assert(core.read_text(SEED_EXAMPLE, "seed.txt"))
    local path = H.tmp(".tap")
    assert(t:write(path))
    local c = assert(core.read_tape(path))
    assert.are.same({ 1.0, 2.0 }, c:x0())
    local info = c:info()
    assert.are.equal("classic", info.format)
    -- dumps, independents, dependents, buffer size, max live, bytes, ops, freed
    assert.are.same({ 0, 2, 1, 65536, 6, 126, 9, 2 }, info.header)
    os.remove(path)
  end)

  it("need the values of the independents", function()
    local t = assert(core.read_text("assign_ind 0\nassign_dep 0\n"))
    local ok, msg = t:write(H.tmp(".tap"))
    assert.is_nil(ok)
    assert.matches("give --at", msg, 1, true)
  end)

  it("hold long variable-length records (take_stock_op) losslessly", function()
    local t = core.tape_new()
    t:push("assign_ind", 0)
    local vals = {}
    for i = 1, 16 do vals[i] = i / 7 end
    t:push("take_stock_op", 16, 1, table.unpack(vals))
    t:push("plus_a_a", 20, 0, 16)
    t:push("assign_dep", 20)
    t:set_x0({ 1 })
    local path = H.tmp(".tap")
    assert(t:write(path))
    local c = assert(core.read_tape(path))
    assert_same_records(records(t), records(c))
    assert.are.equal(1 + 16 / 7, c:forward()[1])
    os.remove(path)
  end)
end)

describe("round trips", function()
  it("classic -> text -> classic keep operations, values and bytes", function()
    local t = assert(core.read_text(SEED_EXAMPLE, "seed.txt"))
    local c1, txt, c2 = H.tmp(".tap"), H.tmp(".txt"), H.tmp(".tap")
    assert(t:write(c1, "classic"))
    assert(assert(core.read_tape(c1)):write(txt, "text"))
    assert(assert(core.read_tape(txt)):write(c2, "classic"))
    assert.are.equal(H.read(c1), H.read(c2))
    os.remove(c1); os.remove(txt); os.remove(c2)
  end)

  it("hold on 200 random tapes, with bit-identical values", function()
    for seed = 1, 200 do
      local recs, x0 = gen.random_records(seed, { n = 1 + seed % 4, len = 10 + seed % 40,
                                                  store = 4 + seed % 9, deaths = true,
                                                  ops = gen.names })
      local t = gen.tape(recs, x0)
      local c, txt = H.tmp(".tap"), H.tmp(".txt")
      assert(t:write(c, "classic"))
      local tc = assert(core.read_tape(c))
      assert(tc:write(txt, "text"))
      local tt = assert(core.read_tape(txt))
      assert_same_records(records(t), records(tc))
      assert_same_records(records(t), records(tt))
      local y0, y1, y2 = t:forward(), tc:forward(), tt:forward()
      for k = 1, #y0 do
        assert.is_true(same_bits(y0[k], y1[k]) and same_bits(y0[k], y2[k]), "seed " .. seed)
      end
      os.remove(c); os.remove(txt)
    end
  end)
end)

describe("bad classic tapes", function()
  local function classic_file()
    local t = assert(core.read_text(SEED_EXAMPLE, "seed.txt"))
    local path = H.tmp(".tap")
    assert(t:write(path))
    return path, H.read(path)
  end

  it("truncated: clear error with file and record", function()
    local path, bytes = classic_file()
    H.write(path, bytes:sub(1, #bytes - 7))
    local t, msg = core.read_tape(path)
    assert.is_nil(t)
    assert.matches("record 9 (byte 206): truncated classic tape: the file ends at byte 215, "
      .. "the header says at 222", msg, 1, true)
    os.remove(path)
  end)

  it("a record cut short inside the data", function()
    local path, bytes = classic_file()
    -- fix the header's byte count so that only the record structure is wrong
    local cut = bytes:sub(1, #bytes - 3)
    cut = cut:sub(1, 50) .. ("%10d"):format(126 - 3) .. cut:sub(61)
    H.write(path, cut)
    local t, msg = core.read_tape(path)
    assert.is_nil(t)
    assert.matches("record 10 %(byte %d+%): truncated classic tape: the record runs past", msg)
    os.remove(path)
  end)

  it("location out of range names the record", function()
    local path, bytes = classic_file()
    -- header field 5 (max live) claims 4 locations only
    H.write(path, bytes:sub(1, 40) .. ("%10d"):format(4) .. bytes:sub(51))
    local t, msg = core.read_tape(path)
    assert.is_nil(t)
    assert.matches("record 3 (byte 126): operand location 5 >= max live 4", msg, 1, true)
    os.remove(path)
  end)

  it("unknown opcode", function()
    local path, bytes = classic_file()
    H.write(path, bytes:sub(1, 96) .. "\200" .. bytes:sub(98))
    local t, msg = core.read_tape(path)
    assert.is_nil(t)
    assert.matches("record 0 (byte 96): unknown opcode 200", msg, 1, true)
    os.remove(path)
  end)

  it("a header claiming absurd sizes allocates nothing", function()
    local path = H.tmp(".tap")
    H.write(path, ("%10d"):rep(8):format(0, 9999999999, 1, 65536, 9999999999, 10, 1, 0))
    local t, msg = core.read_tape(path)
    assert.is_nil(t)
    assert.matches("truncated classic tape: the file ends at byte 80, inside the values of the "
      .. "9999999999 independents the header declares", msg, 1, true)
    os.remove(path)
  end)

  it("record length byte that disagrees", function()
    local path, bytes = classic_file()
    H.write(path, bytes:sub(1, 101) .. "\9" .. bytes:sub(103))
    local t, msg = core.read_tape(path)
    assert.is_nil(t)
    assert.matches("assign_ind: record length 9, expected 4", msg, 1, true)
    os.remove(path)
  end)

  it("a directory or a missing file", function()
    local t, msg = core.read_tape("spec")
    assert.is_nil(t)
    assert.matches("spec: cannot open: Is a directory", msg, 1, true)
    t, msg = core.read_tape("spec/nonexistent.tap")
    assert.is_nil(t)
    assert.matches("cannot open", msg, 1, true)
  end)
end)

describe("statistics", function()
  it("count operations, bytes, death notices and the real peak of live values", function()
    local path = H.write(H.tmp(".txt"), SEED_EXAMPLE)
    local s = assert(core.stats(path))
    assert.are.equal(9, s.operations)
    assert.are.equal(2, s.death_notices)
    assert.are.equal(2, s.independents)
    assert.are.equal(1, s.dependents)
    assert.are.equal(6, s.locations)
    -- x, y and x+y are live together at plus_a_a; z (slot 3) is never read
    assert.are.equal(3, s.peak_live)
    os.remove(path)
  end)

  it("peak live of a chain that reuses one slot is 1 per live value", function()
    local lines = { "assign_ind 0 1" }
    for _ = 1, 100 do lines[#lines + 1] = "exp_op 0 0" end
    lines[#lines + 1] = "assign_dep 0"
    local path = H.write(H.tmp(".txt"), table.concat(lines, "\n"))
    local s = assert(core.stats(path))
    assert.are.equal(1, s.peak_live)
    assert.are.equal(102, s.operations) -- 1 assign_ind + 100 exp_op + 1 assign_dep
    os.remove(path)
  end)
end)

describe("the command line", function()
  it("cgwb stats --json has the required fields", function()
    local path = H.write(H.tmp(".txt"), SEED_EXAMPLE)
    local out, err, code = H.cgwb("stats --json " .. path)
    assert.are.equal(0, code, err)
    assert.matches('"independents": 2', out, 1, true)
    assert.matches('"dependents": 1', out, 1, true)
    assert.matches('"operations": 9', out, 1, true)
    assert.matches('"plus_a_a": 1', out, 1, true)
    os.remove(path)
  end)

  it("cgwb stats prints Table 1", function()
    local path = H.write(H.tmp(".txt"), SEED_EXAMPLE)
    local out, _, code = H.cgwb("stats " .. path)
    assert.are.equal(0, code)
    assert.matches("opcode%s+# operations%s+%% operations%s+# bytes%s+%% bytes", out)
    assert.matches("Totals%s+9%s+100.0%s+106%s+100.0", out)
    os.remove(path)
  end)

  it("bad input exits 2 with the file named", function()
    local path = H.write(H.tmp(".txt"), "assign_ind 0 1\nfoo 1\n")
    local _, err, code = H.cgwb("stats " .. path)
    assert.are.equal(2, code)
    assert.matches(":2: unknown opcode 'foo'", err, 1, true)
    os.remove(path)
  end)

  it("bad usage exits 2, --help exits 0", function()
    local _, _, code = H.cgwb("stats")
    assert.are.equal(2, code)
    local out
    out, _, code = H.cgwb("convert --help")
    assert.are.equal(0, code)
    assert.matches("Usage: cgwb convert", out, 1, true)
  end)

  it("cgwb convert between classic and text, --at supplies values", function()
    local src = H.write(H.tmp(".txt"), "assign_ind 0\nassign_ind 1\nmult_a_a 2 0 1\nassign_dep 2\n")
    local at = H.write(H.tmp(".x"), "3\n# comment\n4.5\n")
    local cl, back = H.tmp(".tap"), H.tmp(".txt")
    local _, err, code = H.cgwb(("convert %s %s"):format(src, cl))
    assert.are.equal(2, code)
    assert.matches("give --at", err, 1, true)
    _, err, code = H.cgwb(("convert %s %s --at %s"):format(src, cl, at))
    assert.are.equal(0, code, err)
    _, err, code = H.cgwb(("convert %s %s"):format(cl, back))
    assert.are.equal(0, code, err)
    assert.matches("assign_ind 0 3\nassign_ind 1 4.5\nmult_a_a 2 0 1\n", H.read(back), 1, true)
    for _, p in ipairs { src, at, cl, back } do os.remove(p) end
  end)

  it("no output file is left behind when a conversion fails", function()
    local src = H.write(H.tmp(".txt"), "assign_ind 0\nassign_dep 0\n")
    local out = H.tmp(".tap")
    local _, _, code = H.cgwb(("convert %s %s"):format(src, out))
    assert.are.equal(2, code)
    assert.is_nil(io.open(out, "r"))
    os.remove(src)
  end)
end)

describe("doc/formats.md", function()
  it("holds the opcode table the core has", function()
    local out, err = H.tmp(".md"), H.tmp(".err")
    assert(os.execute(("LUA_CPATH='%s/?.so;;' lua5.4 scripts/opcode-table.lua >%s 2>%s")
      :format(H.build, out, err)))
    local doc = H.read("doc/formats.md")
    local n = 0
    for line in H.read(out):gmatch("[^\n]+") do
      assert.is_truthy(doc:find(line, 1, true), "missing from doc/formats.md: " .. line)
      n = n + 1
    end
    assert.is_true(n > 90)
    os.remove(out); os.remove(err)
  end)
end)
