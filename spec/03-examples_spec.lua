-- spec/03-examples_spec.lua: the example tapes that `make examples` records
-- (examples/tapes/), through the command line.
--
-- For Bratu, Shallow and Cavity: the ADOL-C set converts to a classic tape,
-- to text and back to the same bytes and records; the classic tape evaluates
-- to the dependents ADOL-C computed (examples/tapes/<name>.y) bit for bit; the
-- Lua tracer's tape of the same program agrees; `cgwb stats` counts what the
-- Operations file holds.  Then bad input of every kind, each rejected with exit
-- status 2 and one line naming the file (and the record where there is one).
-- Last, the main job (examples/markowitz.lua) on Bratu and Cavity: its legend,
-- the Jacobian's nonzeros, the cost of lowest-id ties, the Cavity table
-- against the orderings run here, determinism, bad arguments, branch changes.
local H = require "spec.helper"
local core = require "cgwb.core"

local TAPES = "examples/tapes"
local EXAMPLES = {
  { name = "bratu", tag = 1 },
  { name = "shallow", tag = 2 },
  { name = "cavity", tag = 3 },
}
local KINDS = { "Operations", "Locations", "Values" }

-- {==== helpers ====}

local function exists(path)
  local fh = io.open(path, "rb")
  if fh then fh:close() end
  return fh ~= nil
end

local function set_file(kind, tag, dir)
  return ("%s/ADOLC-%s_%d.tap"):format(dir or TAPES, kind, tag)
end

-- True when the ADOL-C set, x0 and y of an example have been recorded.
local function recorded(ex)
  for _, k in ipairs(KINDS) do
    if not exists(set_file(k, ex.tag)) then return false end
  end
  return exists(("%s/%s.x"):format(TAPES, ex.name)) and exists(("%s/%s.y"):format(TAPES, ex.name))
end

local function point(path) return assert(require("cgwb").read_point(path)) end

local same_bits = H.same_bits

-- One string per record ("name l1 l2 ... c1 ..."; constants in %a, exact).
local function fingerprint(tape)
  local out = {}
  for i, name, locs, vals in tape:records() do
    local v = {}
    for k = 1, #vals do v[k] = ("%a"):format(vals[k]) end
    out[i] = name .. " " .. table.concat(locs, " ") .. " | " .. table.concat(v, " ")
  end
  return out
end

-- Asserts that two record lists are equal, naming the first difference.
local function assert_same_records(a, b, what)
  assert.are.equal(#a, #b, what .. ": record count")
  for i = 1, #a do
    if a[i] ~= b[i] then
      error(("%s: record %d differs: %s / %s"):format(what, i, a[i], b[i]))
    end
  end
end

local function assert_same_values(ref, y, what)
  assert.are.equal(#ref, #y, what .. ": number of values")
  for i = 1, #ref do
    if not same_bits(ref[i], y[i]) then
      error(("%s: value %d is %.17g, expected %.17g"):format(what, i, y[i], ref[i]))
    end
  end
end

-- Runs cgwb and checks the failure: exit status 2, one line on stderr, each
-- needle in it (plain text), nothing on stdout.
local function assert_bad(args, needles)
  local out, err, code = H.cgwb(args)
  assert.are.equal(2, code, "cgwb " .. args .. ": " .. err)
  assert.is_truthy(err:match("^[^\n]+\n$"), "not one line: " .. err)
  assert.are.equal("", out)
  for _, needle in ipairs(needles) do
    assert.is_truthy(err:find(needle, 1, true), ("%q missing from %q"):format(needle, err))
  end
  return err
end

-- A fresh directory for a modified copy of a tape set; removed by `cleanup`.
local dirs = {}
local function tmpdir()
  local d = H.tmp(".d")
  assert(os.execute("mkdir -p " .. d))
  dirs[#dirs + 1] = d
  return d
end
local function cleanup()
  for _, d in ipairs(dirs) do os.execute("rm -rf " .. d) end
  dirs = {}
end

-- Copies the set of `tag` into a fresh directory; returns the directory.
local function copy_set(tag)
  local d = tmpdir()
  for _, k in ipairs(KINDS) do H.write(set_file(k, tag, d), H.read(set_file(k, tag))) end
  return d
end

-- Overwrites bytes of a file at a 0-based offset.
local function poke(path, offset, bytes)
  local s = H.read(path)
  H.write(path, s:sub(1, offset) .. bytes .. s:sub(offset + #bytes + 1))
end

local function chop(path, nbytes)
  local s = H.read(path)
  H.write(path, s:sub(1, #s - nbytes))
end

-- Converts an example's ADOL-C set (named by `kind`'s file) to a classic tape.
local function to_classic(ex, kind)
  local out = H.tmp(".tap")
  local _, err, code = H.cgwb(("convert %s %s --at %s/%s.x"):format(set_file(kind, ex.tag), out,
                                                                      TAPES, ex.name))
  assert.are.equal(0, code, err)
  return out
end

-- {==== the three examples ====}

for _, ex in ipairs(EXAMPLES) do
  describe(ex.name .. " (examples/tapes)", function()
    if not recorded(ex) then
      pending(ex.name .. ": examples/tapes not recorded (run make examples)")
      return
    end
    local ops = set_file("Operations", ex.tag)
    local x = point(("%s/%s.x"):format(TAPES, ex.name))
    local y = point(("%s/%s.y"):format(TAPES, ex.name))
    -- each example names the set by a different file: any of the three will do
    local kind = KINDS[ex.tag]

    it("ADOL-C set -> classic (--at x) -> text -> classic: same bytes, same records", function()
      local c1, txt, c2 = to_classic(ex, kind), H.tmp(".txt"), H.tmp(".tap")
      local _, err, code = H.cgwb(("convert %s %s"):format(c1, txt))
      assert.are.equal(0, code, err)
      _, err, code = H.cgwb(("convert %s %s"):format(txt, c2))
      assert.are.equal(0, code, err)
      local b1, b2 = H.read(c1), H.read(c2)
      assert.are.equal(#b1, #b2)
      assert.is_true(b1 == b2, "classic files differ")
      local made = ("%s/%s.tap"):format(TAPES, ex.name) -- what make examples converted
      if exists(made) then assert.is_true(H.read(made) == b1, made .. " differs") end

      local ref = fingerprint(assert(core.read_tape(ops)))
      for _, p in ipairs { c1, txt, c2 } do
        local t = assert(core.read_tape(p))
        assert_same_records(ref, fingerprint(t), p)
        assert_same_values(x, t:x0(), p .. ": x0")
      end
      for _, p in ipairs { c1, txt, c2 } do os.remove(p) end
    end)

    it("the classic tape evaluates to ADOL-C's dependents bit for bit", function()
      local c = to_classic(ex, "Operations")
      local t = assert(core.read_tape(c))
      assert.are.equal(#x, t:n())
      local yc, branches = t:forward()
      assert.are.equal(0, branches)
      assert_same_values(y, yc, ex.name .. ".tap")
      -- the ADOL-C tape itself, given x, agrees too
      assert_same_values(y, (assert(core.read_tape(ops)):forward(x)), ops)
      os.remove(c)
    end)

    it("the Lua tracer's tape has the same independents, x0 and dependents", function()
      local path = ("%s/%s-lua.tap"):format(TAPES, ex.name) -- recorded by make examples
      local own = not exists(path)
      if own then
        path = H.tmp(".tap")
        local _, err, code = H.cgwb(("trace examples/lua/%s.lua -o %s"):format(ex.name, path))
        assert.are.equal(0, code, err)
      end
      local t = assert(core.read_tape(path))
      assert.are.equal(#x, t:n())
      assert.are.equal(#y, t:m())
      assert_same_values(x, t:x0(), path .. ": x0")
      local yl, branches = t:forward()
      assert.are.equal(0, branches)
      for i = 1, #y do
        local rel = math.abs(yl[i] - y[i]) / math.max(1, math.abs(y[i]))
        assert.is_true(rel <= 1e-12, ("y[%d]: %.17g vs %.17g"):format(i, yl[i], y[i]))
      end
      if own then os.remove(path) end
    end)

    it("cgwb stats --json counts what the Operations file holds", function()
      local out, err, code = H.cgwb("stats --json " .. ops)
      assert.are.equal(0, code, err)
      local function field(name) return tonumber(out:match('"' .. name .. '": (%d+)')) end
      -- one byte per record in the Operations file: count them here, markers
      -- (start/end of tape, block ends) and death notices excluded
      local names = {}
      for _, o in ipairs(core.opcodes()) do names[o.code] = o.name end
      local bytes, count, hist = H.read(ops), 0, {}
      for i = 1, #bytes do
        local b = bytes:byte(i)
        if b ~= 0 and (b < 32 or b > 36) then
          count = count + 1
          hist[names[b]] = (hist[names[b]] or 0) + 1
        end
      end
      assert.are.equal(count, field("operations"))
      local t = assert(core.read_tape(ops))
      local deaths = 0
      for _, name in t:records() do
        if name == "death_not" then deaths = deaths + 1 end
      end
      assert.are.equal(t:len() - deaths, field("operations"))
      for name, n in pairs(hist) do
        assert.are.equal(n, tonumber(out:match('"' .. name .. '": (%d+)')), name)
      end
      -- the header of the Locations file: NUM_INDEPENDENTS, NUM_DEPENDENTS
      local header = t:info().stats
      local stats = {}
      for v in out:match('"adolc_stats": (%b[])'):gmatch("%d+") do
        stats[#stats + 1] = tonumber(v)
      end
      assert.are.equal(header[1], stats[1])
      assert.are.equal(header[2], stats[2])
      assert.are.equal(header[1], field("independents"))
      assert.are.equal(header[2], field("dependents"))
      assert.are.equal(#x, field("independents"))
      assert.are.equal(#y, field("dependents"))
    end)

    it("cgwb stats works on each of the three files of the set, with one result", function()
      local first
      for _, k in ipairs(KINDS) do
        local out, err, code = H.cgwb("stats " .. set_file(k, ex.tag))
        assert.are.equal(0, code, err)
        local body = out:gsub("^[^\n]*\n", "") -- the first line names the file
        assert.matches("Totals", body, 1, true)
        first = first or body
        assert.are.equal(first, body)
      end
    end)
  end)
end

-- {==== bad input through the command line ====}

describe("bad example tapes through the command line", function()
  local ex, other = EXAMPLES[1], EXAMPLES[3]
  if not (recorded(ex) and recorded(other)) then
    pending("examples/tapes not recorded (run make examples)")
    return
  end
  local tag = ex.tag
  local at = ("%s/%s.x"):format(TAPES, ex.name)
  after_each(cleanup)

  -- Both stats and convert refuse the set, and convert writes nothing.
  local function refused(file, needles)
    assert_bad("stats " .. file, needles)
    local out = H.tmp(".tap")
    assert_bad(("convert %s %s --at %s"):format(file, out, at), needles)
    assert.is_false(exists(out), "convert left " .. out)
  end

  local OPS, LOCS, VALS = "ADOLC-Operations_1.tap", "ADOLC-Locations_1.tap", "ADOLC-Values_1.tap"

  describe("ADOL-C sets", function()
    it("truncated Operations file", function()
      local d = copy_set(tag)
      chop(set_file("Operations", tag, d), 1)
      refused(set_file("Operations", tag, d), { OPS, "truncated ADOL-C tape file" })
    end)

    it("truncated Locations file", function()
      local d = copy_set(tag)
      chop(set_file("Locations", tag, d), 4)
      refused(set_file("Values", tag, d), { LOCS, "truncated ADOL-C tape file" })
    end)

    it("truncated Values file", function()
      local d = copy_set(tag)
      chop(set_file("Values", tag, d), 8)
      refused(set_file("Locations", tag, d), { VALS, "truncated ADOL-C tape file" })
    end)

    it("wrong version bytes in the Locations header", function()
      local d = copy_set(tag)
      poke(set_file("Locations", tag, d), 2, "\4\0") -- adolc_sub: 2.4.2
      refused(set_file("Operations", tag, d), { LOCS, "2.4.2", "supported" })
      poke(set_file("Locations", tag, d), 0, "\3\0\0\0") -- 3.0.2
      refused(set_file("Operations", tag, d), { LOCS, "3.0.2" })
    end)

    it("a Locations file from another tape", function()
      local d = copy_set(tag)
      H.write(set_file("Locations", tag, d), H.read(set_file("Locations", other.tag)))
      refused(set_file("Operations", tag, d), { OPS, "different tapes" })
    end)

    it("a directory, named or in place of a file of the set", function()
      local d = copy_set(tag)
      refused(d, { d .. ": cannot open: Is a directory" })
      os.remove(set_file("Locations", tag, d))
      assert(os.execute("mkdir " .. set_file("Locations", tag, d)))
      refused(set_file("Operations", tag, d), { LOCS .. ": cannot open: Is a directory" })
    end)

    it("an unknown opcode byte", function()
      local d = copy_set(tag)
      poke(set_file("Operations", tag, d), 5, "\70")
      refused(set_file("Operations", tag, d), { OPS .. ": record 5: unknown opcode 70" })
    end)

    it("an AMPI opcode byte, rejected by name", function()
      local d = copy_set(tag)
      poke(set_file("Operations", tag, d), 5, "\131")
      refused(set_file("Operations", tag, d),
              { OPS .. ": record 5: AMPI opcode ampi_send is not supported" })
    end)

    it("a missing Operations file", function()
      local d = copy_set(tag)
      os.remove(set_file("Operations", tag, d))
      refused(set_file("Locations", tag, d), { OPS, "cannot open" })
    end)
  end)

  describe("classic tapes", function()
    local function classic()
      local d = tmpdir()
      local path = d .. "/" .. ex.name .. ".tap"
      local _, err, code = H.cgwb(("convert %s %s --at %s")
        :format(set_file("Operations", tag), path, at))
      assert.are.equal(0, code, err)
      return path, ex.name .. ".tap"
    end

    it("truncated", function()
      local path, base = classic()
      chop(path, 5)
      refused(path, { base .. ": record", "truncated classic tape: the file ends at byte" })
    end)

    it("bad header digits", function()
      local path, base = classic()
      -- field 7 (operations) one too many: the records contradict it
      local n = tonumber(H.read(path):sub(61, 70))
      poke(path, 60, ("%10d"):format(n + 1))
      refused(path, { base .. ": record", ("header says %d operations"):format(n + 1) })
      -- field 2 no longer a number: not a classic tape at all
      path, base = classic()
      poke(path, 10, "     32x00")
      refused(path, { base })
    end)

    it("location out of range, with record and byte offset", function()
      local path, base = classic()
      poke(path, 40, ("%10d"):format(10)) -- field 5, max live
      local err = assert_bad("stats " .. path, { base .. ": record " })
      assert.matches("record %d+ %(byte %d+%): operand location %d+ >= max live 10", err)
    end)
  end)

  describe("text tapes", function()
    -- The example as a text tape with line `k` (the first `opcode` line) replaced.
    local function text_with(opcode, edit)
      local d = tmpdir()
      local c, txt = d .. "/c.tap", d .. "/" .. ex.name .. ".txt"
      local _, err, code = H.cgwb(("convert %s %s --at %s")
        :format(set_file("Operations", tag), c, at))
      assert.are.equal(0, code, err)
      _, err, code = H.cgwb(("convert %s %s"):format(c, txt))
      assert.are.equal(0, code, err)
      local lines, k = {}, nil
      for line in H.read(txt):gmatch("[^\n]*\n") do
        lines[#lines + 1] = line
        if not k and line:match("^" .. opcode .. " ") then
          k = #lines
          lines[k] = edit(line)
        end
      end
      assert.is_not_nil(k, opcode .. " not in the text tape")
      H.write(txt, table.concat(lines))
      return txt, ("%s.txt:%d: "):format(ex.name, k)
    end

    it("an unknown opcode, with its line", function()
      local txt, where = text_with("exp_op", function(l) return (l:gsub("^exp_op", "exq_op")) end)
      refused(txt, { where .. "unknown opcode 'exq_op'" })
    end)

    it("missing operands, with their line", function()
      local txt, where = text_with("plus_a_a", function(l) return (l:gsub(" %d+\n$", "\n")) end)
      refused(txt, { where .. "missing location" })
    end)
  end)

  describe("cgwb convert and --at", function()
    it("an ADOL-C tape to a classic file without --at fails and writes nothing", function()
      local out = H.tmp(".tap")
      assert_bad(("convert %s %s"):format(set_file("Operations", tag), out), { "give --at" })
      assert.is_false(exists(out))
    end)

    it("--at with the wrong number of values fails clearly and writes nothing", function()
      local short = H.write(H.tmp(".x"), "0.5\n0.25\n")
      local out = H.tmp(".tap")
      assert_bad(("convert %s %s --at %s"):format(set_file("Operations", tag), out, short),
                 { short .. ": 2 values for 3200 independents" })
      assert.is_false(exists(out))
      os.remove(short)
    end)

    it("--at with a line that is not a number names the file and line", function()
      local bad = H.write(H.tmp(".x"), "0.5\nhalf\n")
      local out = H.tmp(".tap")
      assert_bad(("convert %s %s --at %s"):format(set_file("Operations", tag), out, bad),
                 { bad .. ":2: not a number" })
      assert.is_false(exists(out))
      os.remove(bad)
    end)
  end)
end)

-- {==== the main job: examples/markowitz.lua ====}

describe("the main job (examples/markowitz.lua)", function()
  local bratu, cavity = TAPES .. "/bratu.tap", TAPES .. "/cavity.tap"
  if not (exists(bratu) and exists(cavity)) then
    pending("examples/tapes not recorded (run make examples)")
    return
  end
  local cgwb = require "cgwb"
  local out, err, code = H.cgwb(("run examples/markowitz.lua %s %s"):format(bratu, cavity))

  -- The table printed for `path`: its rows by ordering name, as arrays of fields.
  local function table_of(path)
    local block = out:match("\n" .. path:gsub("%p", "%%%0") .. ": .-\n\n(ordering.-)\n\n")
    assert.is_not_nil(block, "no table for " .. path)
    local rows = {}
    for line in block:gmatch("[^\n]+") do
      local name, rest = line:match("^(%a.-)%s%s+(%d.*)$")
      if name then
        local f = {}
        for w in rest:gmatch("%S+") do f[#f + 1] = w end
        rows[name] = f
      end
    end
    return rows
  end

  -- The multiplications of an elimination of `path`'s linearized graph under spec.
  local function mults(path, spec)
    local lg <close> = assert(cgwb.linearize(path))
    local cost = assert(lg:eliminate(spec))
    return cost.mults
  end

  it("runs on Bratu and Cavity, exit status 0", function()
    assert.are.equal(0, code, err)
    assert.are.equal("", err)
  end)

  it("explains its columns once, before the tables", function()
    assert.is_truthy(out:find("^columns: mults = products of two edge weights; nontrivial = those of them where neither\n  factor is a structural %+1 or %-1"))
    assert.is_truthy(out:find("from a\n  forward tangent sweep over the linearized graph", 1, true))
    assert.is_truthy(out:find("\nties: after the rule, ties go to the highest vertex id", 1, true))
    local _, n = out:gsub("columns: ", "")
    assert.are.equal(1, n)
  end)

  it("prints the Jacobian's size and nonzeros for each tape", function()
    for _, path in ipairs { bratu, cavity } do
      local lg <close> = assert(cgwb.linearize(path))
      local J = lg:jacobian("forward")
      local line = ("%d x %d Jacobian, %d nonzeros"):format(J.m, J.n, J.nnz)
      assert.is_truthy(out:find(path .. ": [^\n]*" .. line:gsub("%p", "%%%0") .. "\n"),
                       line .. " missing for " .. path)
    end
  end)

  it("measures what lowest-id ties cost against highest-id ties", function()
    for _, path in ipairs { bratu, cavity } do
      local high = mults(path, { "markowitz" })
      local low = mults(path, { "markowitz", lowest_first = true })
      assert.is_true(low > high, path) -- the note says something only where they differ
      local line = ("ties: Markowitz with lowest-id ties costs %d multiplications, %.2fx the %d of highest-id ties")
        :format(low, low / high, high)
      assert.is_truthy(out:find(line, 1, true), line .. " missing")
      local rows = table_of(path)
      assert.are.equal(tostring(low), rows["markowitz (Lua), lowest-id ties"][1])
    end
  end)

  it("says which side of the Lua/built-in comparison is slower", function()
    local _, n = out:gsub("Lua Markowitz: %d+ multiplications in [%d.]+ s; built%-in: %d+ in [%d.]+ s; "
                          .. "the [%a-]+ ordering is slower, [%d.]+x %(timing%)\n", "")
    assert.are.equal(2, n)
  end)

  it("Cavity's table: the orderings differ, each row costs what the ordering costs", function()
    local rows = table_of(cavity)
    local distinct = {}
    for _, name in ipairs { "markowitz", "forward", "reverse", "min-fill", "momr" } do
      assert.is_not_nil(rows[name], name)
      assert.are.equal(tostring(mults(cavity, name)), rows[name][1], name)
      distinct[rows[name][1]] = true
      assert.are.equal("0", rows[name][6], name .. ": max rel. diff") -- Cavity is exact
    end
    local n = 0
    for _ in pairs(distinct) do n = n + 1 end
    assert.is_true(n >= 4)
    assert.are.equal(rows.markowitz[1], rows["markowitz (Lua)"][1])
  end)

  it("is deterministic but for the timing", function()
    local again = H.cgwb(("run examples/markowitz.lua %s %s"):format(bratu, cavity))
    local function strip(s)
      return (s:gsub("[^\n]*%(timing%)\n", ""):gsub("%d+%.%d%d%d%d", "T"))
    end
    assert.are.equal(strip(out), strip(again))
    assert.is_truthy(out:find("(timing)", 1, true))
  end)

  it("bad arguments: one line naming the problem, exit status 2", function()
    for _, case in ipairs {
      { "-- " .. bratu .. " --frobnicate", "unknown option --frobnicate" },
      { "-- " .. bratu .. " --at " .. TAPES .. "/cavity.x",
        "cavity.x: 961 values for the 3200 independents of " .. bratu },
      { "-- " .. TAPES .. "/missing.tap", "missing.tap" },
      { "-- " .. bratu .. " --at", "--at needs a file of values" },
    } do
      local args, needle = case[1], case[2]
      local o, e, c = H.cgwb("run examples/markowitz.lua " .. args)
      assert.are.equal(2, c, args .. ": " .. e)
      assert.are.equal("", o)
      assert.is_truthy(e:match("^[^\n]+\n$"), "not one line: " .. e)
      assert.is_truthy(e:find(needle, 1, true), ("%q missing from %q"):format(needle, e))
    end
  end)

  it("--at a point where a branch goes the other way: a warning and exit status 3", function()
    -- y = x*x where x > 1 at recording (x = 2); at x = 0.5 the branch flips
    local tape = cgwb.trace(function(x)
      if x[1] > 1 then return x[1] * x[1] end
      return x[1] * 3
    end, { 2.0 })
    local path, at = H.tmp(".tap"), H.write(H.tmp(".x"), "0.5\n")
    assert(tape:write(path, "classic"))
    local g <close> = assert(cgwb.build_graph(path, { at = point(at) }))
    if not g.branch_changes then
      pending("graph:branch_changes() is not in this build")
      return
    end
    local o, e, c = H.cgwb(("run examples/markowitz.lua -- %s --at %s"):format(path, at))
    assert.are.equal(3, c, e)
    assert.is_truthy(e:match("^[^\n]+\n$"), "not one line: " .. e)
    assert.is_truthy(e:find("warning: 1 branch(es) change", 1, true), e)
    assert.is_truthy(e:find("the first at record %d+"), e)
    assert.is_falsy(o:find("ordering", 1, true))
    -- at the recorded point nothing changes
    _, e, c = H.cgwb(("run examples/markowitz.lua -- %s --at %s"):format(path, H.write(at, "2\n")))
    assert.are.equal(0, c, e)
    os.remove(path)
    os.remove(at)
  end)
end)
