#!/usr/bin/env lua5.4
-- Writes doc/results/tape-statistics.md: Table 1 of Bischof & Hu 1991 for the three
-- example programs (ADOL-C tapes, and tapes of the Lua tracer), beside the
-- paper's numbers, with a side-by-side summary and the explanation of the
-- differences.  Run from the top level after `make examples`:
--   scripts/cgwb run scripts/results-tape-stats.lua
-- Every number in the text is filled in from the tapes ({name.source.key}
-- placeholders, see `fill`), so the page stays true when the examples change.
local cgwb = require "cgwb"
local report = require "cgwb.report"

-- {==== the paper ====}

-- Table 1 of Bischof & Hu 1991 (ADOL-C 1.0, 1991) as printed: opcode, # operations,
-- % operations, # bytes, % bytes.  The printed Totals row is kept apart
-- (`total`): for Bratu and Cavity its count includes the death notices.
local paper = {
  shallow = { deaths = 29131, maxlive = 18365, total = { 281805, 3843234 }, rows = {
    { "assign_ind", 3483, "1.2", 20898, "0.5" }, { "assign_dep", 1, "0.0", 6, "0.0" },
    { "assign_a", 61236, "21.7", 612360, "15.9" }, { "assign_d", 7955, "2.8", 143190, "3.7" },
    { "eq_plus_a", 24984, "8.9", 249840, "6.5" }, { "plus_a_a", 43062, "15.3", 602868, "15.7" },
    { "plus_a_d", 10890, "3.9", 196020, "5.1" }, { "min_a_a", 30537, "10.8", 427518, "11.1" },
    { "mult_a_a", 50823, "18.0", 711522, "18.5" }, { "mult_a_d", 48834, "17.3", 879012, "22.9" },
  } },
  bratu = { deaths = 25459, maxlive = 6413, total = { 246972, 3182250 }, rows = {
    { "assign_ind", 3200, "1.4", 19200, "0.6" }, { "assign_dep", 3200, "1.4", 19200, "0.6" },
    { "assign_a", 30578, "13.8", 305780, "9.6" }, { "eq_plus_a", 24178, "10.9", 241780, "7.6" },
    { "plus_a_a", 36267, "16.4", 507738, "16.0" }, { "plus_a_d", 12089, "5.5", 217602, "6.8" },
    { "mult_a_a", 12089, "5.5", 169246, "5.3" }, { "mult_a_d", 75734, "34.1", 1363212, "42.8" },
    { "div_d_a", 12089, "5.5", 217602, "6.8" }, { "exp_op", 12089, "5.5", 120890, "3.8" },
  } },
  cavity = { deaths = 12628, maxlive = 2355, total = { 149667, 1762478 }, rows = {
    { "assign_ind", 961, "0.7", 5766, "0.3" }, { "assign_dep", 961, "0.7", 5766, "0.3" },
    { "assign_a", 49139, "35.9", 491390, "27.9" }, { "assign_d", 6284, "4.6", 87976, "5.0" },
    { "plus_a_a", 19220, "14.0", 269080, "15.3" }, { "plus_a_d", 4933, "3.6", 88794, "5.0" },
    { "min_a_a", 34976, "25.5", 489664, "27.8" }, { "min_d_a", 961, "0.7", 17298, "1.0" },
    { "mult_a_a", 11532, "8.4", 161448, "9.2" }, { "mult_a_d", 8072, "5.9", 145296, "8.2" },
  } },
}

local examples = {
  { name = "shallow", title = "Shallow (9x9x3, 31 steps)", tag = 2 },
  { name = "bratu", title = "Bratu (40x80)", tag = 1 },
  { name = "cavity", title = "Cavity (31x31)", tag = 3 },
}

-- {==== numbers ====}

-- Thousands grouped by spaces, as in the prose of doc/tracer.md: 66 808.  The
-- space is "\1" until `reflow` has kept each number on one line.
local function group(n)
  local s = tostring(math.tointeger(n) or n)
  local out = s:reverse():gsub("(%d%d%d)", "%1\1"):reverse()
  return (out:gsub("^\1", ""))
end

local function is_const(name) return name == "assign_d" or name:match("^assign_d_") end

-- Number of constants of each opcode, from the core's table.
local NVAL = {}
for _, o in ipairs(cgwb.opcodes()) do NVAL[o.name] = o.nval end

-- The summary of one tape from (opcode name, count, bytes) triples.
local function summarize(list, extra)
  local c = { n = 0, m = 0, ops = 0, copies = 0, consts = 0, inplace = 0, arith = 0, bytes = 0,
              with_const = 0, op = {} }
  for _, o in ipairs(list) do
    local name, count = o[1], o[2]
    if name ~= "death_not" then
      c.op[name] = count
      c.ops, c.bytes = c.ops + count, c.bytes + o[3]
      local nval = assert(NVAL[name], "unknown opcode " .. name)
      if nval ~= 0 then c.with_const = c.with_const + count end
      if name == "assign_ind" then c.n = count
      elseif name == "assign_dep" then c.m = count
      elseif name == "assign_a" then c.copies = count
      elseif is_const(name) then c.consts = c.consts + count
      elseif name:match("^eq_") then c.inplace = c.inplace + count
      else c.arith = c.arith + count end
    end
  end
  for k, v in pairs(extra) do c[k] = v end
  c.bpo = ("%.1f"):format(c.bytes / c.ops)
  c.pct_copies = ("%.1f"):format(100 * c.copies / c.ops)
  c.const_share = ("%.0f"):format(100 * c.with_const / c.ops)
  return c
end

local function from_paper(p)
  local list = {}
  for i, r in ipairs(p.rows) do list[i] = { r[1], r[2], r[4] } end
  return summarize(list, { deaths = p.deaths, maxlive = p.maxlive })
end

local function from_stats(s)
  local list = {}
  for i, o in ipairs(s.opcodes) do list[i] = { o.name, o.count, o.bytes } end
  return summarize(list, { deaths = s.death_notices, maxlive = s.max_live,
                           locations = s.locations, peak = s.peak_live })
end

-- {==== tables ====}

local function paper_table(p)
  local rows = { { "opcode", "# operations", "% operations", "# bytes", "% bytes" } }
  for _, r in ipairs(p.rows) do
    rows[#rows + 1] = { r[1], tostring(r[2]), r[3], tostring(r[4]), r[5] }
  end
  rows[#rows + 1] = { "Totals", tostring(p.total[1]), "100.0", tostring(p.total[2]), "100.0" }
  return report.columns(rows)
end

local function summary_line(s)
  return ("%d operations, %d death notice%s, %d locations used, peak of %d live values%s")
    :format(s.operations, s.death_notices, s.death_notices == 1 and "" or "s", s.locations,
            s.peak_live,
            s.format == "adolc" and (", store capacity %d"):format(s.max_live) or "")
end

-- The three tapes side by side, as a Markdown table.
local function side_by_side(title, p, a, l)
  local function row(label, f)
    return ("| %s | %s | %s | %s |"):format(label, f(p), f(a), f(l))
  end
  local function key(k) return function(c) return c[k] and tostring(c[k]) or "–" end end
  return table.concat({
    ("| %s | paper (ADOL-C 1.0) | ADOL-C 2.7.2 | Lua tracer |"):format(title),
    "| --- | ---: | ---: | ---: |",
    row("independents / dependents", function(c) return c.n .. " / " .. c.m end),
    row("operations (death notices excluded)", key "ops"),
    row("copies (`assign_a`)", key "copies"),
    row("constants (`assign_d`, `assign_d_zero`, `assign_d_one`)", key "consts"),
    row("in-place updates (`eq_*`)", key "inplace"),
    row("arithmetic and intrinsics (all other operations)", key "arith"),
    row("death notices", key "deaths"),
    row("max live (header)", function(c)
      return tostring(c.maxlive) .. (c == a and " (store capacity)" or "")
    end),
    row("locations used", key "locations"),
    row("peak of live values", key "peak"),
    row("bytes of the operations", key "bytes"),
    row("bytes per operation", key "bpo"),
  }, "\n")
end

-- {==== the explanation ====}

-- The final section.  {ex.src.key} is a number of the summary of tape `src`
-- (paper, adolc, lua) of example `ex`; {ex.key} a derived number (see below).
local WHY = [[
Each section ends with the three tapes side by side. Three causes explain the differences,
and comparing the columns pairwise separates them.

**The programs are not the paper's.** The 1991 sources were not published; the programs in
`examples/adolc/` are our reconstructions from the one-paragraph descriptions of Bischof & Hu 1991,
section 4: the same problems, grids and numbers of independents and dependents, but our own
discretisations. So the arithmetic differs by large factors and no row of the paper's table
is expected to match. Bratu's 1991 tape holds {bratu.paper.arith} arithmetic operations,
among them {bratu.paper.exp_op} each of `exp_op`, `div_d_a`, `mult_a_a` and `plus_a_d`
(about 3.8 per grid
point, presumably the exponential term evaluated at several points of each cell); ours is a 5-point
finite-volume residual with one `exp_op` per grid point, {bratu.adolc.arith} arithmetic
operations and {bratu.adolc.inplace} in-place updates. Cavity: {cavity.paper.arith}
arithmetic operations in the paper, {cavity.adolc.arith} (plus {cavity.adolc.inplace}
in-place updates) in ours; Shallow: {shallow.paper.arith} against {shallow.adolc.arith}
(plus {shallow.adolc.inplace}). The paper's Shallow table lists {shallow.paper.n}
`assign_ind` records although its text speaks of 243 independents (the 9x9x3 initial state),
which is what ours has, and its max live of {shallow.paper.maxlive} is an order of magnitude
above our {shallow.adolc.locations} locations: the 1991 code kept far more values alive than
our three-level time stepping, for reasons the paper does not give. The paper's Totals
rows are also not what they seem: for Bratu and Cavity the operation count includes the death
notices ({bratu.paper.ops} + {bratu.paper.deaths} = {bratu.paper_total};
{cavity.paper.ops} + {cavity.paper.deaths} = {cavity.paper_total}) while the byte totals and
the percentages do not; Shallow's total excludes them. The summaries compare the sums of the
rows.

**ADOL-C 2.7.2 against the Lua tracer: one program, two ways of taping.** The scripts in
`examples/lua/` are line-by-line ports of the C++ programs (same formulas, same order of
operations, same x0), their dependents agree with ADOL-C's (largest relative difference
{maxrel}), and the arithmetic and in-place rows agree exactly in all three examples. All the
other differences come from how each one records:

* *Assignment folding.* ADOL-C 2.x tapes `y = expr` by rewriting the result location of the
  last operation of `expr` to `y`'s location, so only copies of named variables (`u = x[k]`,
  `f[k] = fk`) remain as `assign_a`. The tracer records an assignment the 1991 way, the
  expression into a temporary and then an `assign_a` into the variable: {bratu.more_copies}
  more `assign_a` for Bratu, {shallow.more_copies} for Shallow, {cavity.more_copies} for
  Cavity. Its share of copies ({bratu.lua.pct_copies}%, {shallow.lua.pct_copies}%,
  {cavity.lua.pct_copies}% of the operations of Bratu, Shallow, Cavity) is in the range of
  the paper's ({bratu.paper.pct_copies}%, {shallow.paper.pct_copies}%,
  {cavity.paper.pct_copies}%, in the same order); these
  copies are what the graph builder's assignment removal (Bischof & Hu 1991, sec. 2) takes out.
* *Constants.* Every default-constructed `adouble` tapes `assign_d_zero`, and ADOL-C 2.x
  writes an assigned 0 or 1 as `assign_d_zero` or `assign_d_one`. The C++ driver's
  `new adouble[n]` for the independents alone gives {bratu.adolc.n}, {shallow.adolc.n} and
  {cavity.adolc.n} of them, overwritten at once by `assign_ind`. The tracer's independents are
  born by `assign_ind`; it tapes a declared variable (`T.var()`) as `assign_d_zero` and an
  assigned constant as `assign_d`, even 0 (Bratu's `ur = 0.0` at the wall:
  {bratu.lua.assign_d} `assign_d`). So the tracer has {bratu.fewer_consts},
  {shallow.fewer_consts} and {cavity.fewer_consts} fewer constant records (for Shallow one
  more than the independents: the driver's array of one dependent, which the Lua port does not
  declare).
* Together: the tracer's tape is longer by {bratu.more_copies} − {bratu.fewer_consts} =
  {bratu.extra} operations for Bratu, {shallow.more_copies} − {shallow.fewer_consts} =
  {shallow.extra} for Shallow, {cavity.more_copies} − {cavity.fewer_consts} = {cavity.extra}
  for Cavity. Opcode names differ once more without changing counts: ADOL-C 2.x has no `*_a_d`
  opcodes and tapes both `a + c` and `a - c` as `plus_d_a` (with −c for the subtraction:
  {shallow.adolc.plus_d_a} in Shallow, {cavity.adolc.plus_d_a} in Cavity), where the tracer
  writes `plus_a_d` or `min_a_d` as the source reads.
* *Compound updates.* Both tape `+=`, `-=`, `*=` as `eq_plus_a`, `eq_min_a`, `eq_mult_d`,
  `eq_mult_a` ({bratu.adolc.inplace} in Bratu). The paper's tables show only `eq_plus_a`
  (Bratu {bratu.paper.inplace}, Shallow {shallow.paper.inplace}, none in Cavity): the 1991 codes
  scaled and subtracted with binary operations (Bratu's {bratu.paper.mult_a_d} `mult_a_d`).
* *Death notices and live variables.* ADOL-C 2.x reuses freed locations through its store's
  free list without taping it, and writes a single death notice at `trace_off` spanning the
  whole store. Its `NUM_MAX_LIVES` ({bratu.adolc.maxlive}, {shallow.adolc.maxlive},
  {cavity.adolc.maxlive} for Bratu, Shallow, Cavity) is the capacity of that store, a power
  of two, not a count of live
  variables; the locations actually used ({bratu.adolc.locations},
  {shallow.adolc.locations}, {cavity.adolc.locations}) are what compares with a max live. The
  tracer computes liveness after recording and writes 1991-style death notices, one per
  contiguous run of slots freed after a record: {bratu.lua.deaths} for Bratu (paper
  {bratu.paper.deaths}), {shallow.lua.deaths} for Shallow (paper {shallow.paper.deaths}),
  {cavity.lua.deaths} for Cavity (paper {cavity.paper.deaths}). Its max live for Bratu,
  {bratu.lua.maxlive}, is close to the paper's {bratu.paper.maxlive}: in both, the {bratu.adolc.n}
  independents and {bratu.adolc.m} dependents are alive at the same time. The peak of live
  values (values written and still to be read) is the same for both of our tapes
  ({bratu.adolc.peak}, {shallow.adolc.peak}, {cavity.adolc.peak}): folding copies and
  choosing other slots does not change it.

**Bytes.** ADOL-C 2.x spends 1 byte per opcode (Operations file), 4 per location and 8 per
constant: `assign_ind` 5, `assign_a` 9, `plus_a_a` 13, `mult_d_a` 17, `assign_d_zero` 5. The
1991 tape wrote each record as a C struct framed by an opcode byte and a length byte, with
padding before a double: `assign_ind` 6, `assign_a` 10, `plus_a_a` 14, `mult_a_d` 18. cgwb's
classic format reproduces that layout (doc/formats.md), so the tracer's column is in 1991
bytes. Bytes per operation: {bratu.paper.bpo} (paper), {bratu.adolc.bpo} (ADOL-C 2.7.2),
{bratu.lua.bpo} (tracer) for Bratu; {shallow.paper.bpo}, {shallow.adolc.bpo},
{shallow.lua.bpo} for Shallow; {cavity.paper.bpo}, {cavity.adolc.bpo}, {cavity.lua.bpo} for
Cavity. Record for record, ADOL-C 2.x's are the smallest (no length byte, no padding); the
tracer's average comes close to it for Shallow because most of its extra records are 10-byte
copies, below its average. The paper's are
the highest because a larger share of its operations carry a constant (18 bytes each in the
1991 layout): in Bratu, operations with a constant are {bratu.paper.const_share}% of the
paper's tape (`mult_a_d`, `plus_a_d`, `div_d_a`) and {bratu.lua.const_share}% of the
tracer's.]]

-- Replaces the {…} placeholders of `text` with numbers from `env`; an unknown
-- name is an error, so a typo cannot reach the page.
local function fill(text, env)
  return (text:gsub("{([%w_%.]+)}", function(path)
    local v = env
    for part in path:gmatch("[^.]+") do
      v = type(v) == "table" and (v[part] or (v.op and v.op[part])) or nil
    end
    assert(v ~= nil, "results-tape-stats.lua: no number for {" .. path .. "}")
    return type(v) == "number" and group(v) or tostring(v)
  end))
end

-- Re-wraps the filled text: paragraphs and "* " items to `width` columns.
local function reflow(text, width)
  local out = {}
  local function wrap(words, first, rest)
    local line = first
    for i, word in ipairs(words) do
      if i > 1 and #line + 1 + #word > width then
        out[#out + 1] = line
        line = rest .. word
      else
        line = line .. (i > 1 and " " or "") .. word
      end
    end
    out[#out + 1] = line
  end
  -- a block is a run of non-blank lines; an item starts at its first line or at "* "
  for block in (text .. "\n\n"):gmatch("(.-)\n\n+") do
    local items = {}
    for line in block:gmatch("[^\n]+") do
      if #items == 0 or line:match("^%* ") then items[#items + 1] = line
      else items[#items] = items[#items] .. " " .. line end
    end
    for _, item in ipairs(items) do
      local bullet = item:match("^%* ") and "* " or ""
      local words = {}
      for word in item:sub(#bullet + 1):gmatch("%S+") do words[#words + 1] = word end
      wrap(words, bullet, bullet == "" and "" or "  ")
    end
    out[#out + 1] = ""
  end
  out[#out] = nil
  return (table.concat(out, "\n"):gsub("\1", " "))
end

-- {==== the page ====}

-- The Lua tracer's tape of an example, recorded afresh (examples/tapes/<name>-lua.tap
-- is the same tape, but a fresh recording cannot be stale).
local function lua_tape(name)
  local path = ("build/results/%s-lua.tap"):format(name)
  os.execute("mkdir -p build/results")
  local tape = assert(require("cgwb.trace").run_script(("examples/lua/%s.lua"):format(name)))
  assert(tape:write(path))
  return path
end

-- Largest relative difference between the tracer's dependents and ADOL-C's.
local function max_rel(path, name)
  local y = assert(cgwb.read_point(("examples/tapes/%s.y"):format(name)))
  local yl = assert(cgwb.read_tape(path)):forward()
  local m = 0
  for i = 1, #y do m = math.max(m, math.abs(yl[i] - y[i]) / math.max(1, math.abs(y[i]))) end
  return m
end

local out = {}
local function w(s) out[#out + 1] = s end

w("# Tape statistics (Bischof & Hu 1991, Table 1)")
w("")
w("Generated by `scripts/cgwb run scripts/results-tape-stats.lua` from the tapes that")
w("`make examples` records. For each example: the paper's Table 1 (ADOL-C 1.0, 1991), the")
w("tape Debian's ADOL-C 2.7.2 records from `examples/adolc/<name>.cpp`, and the tape cgwb's")
w("Lua tracer records from `examples/lua/<name>.lua` (the same code, line by line); then the")
w("three side by side. Bytes are counted in each file's own encoding: ADOL-C 2.x spends 1 +")
w("4 per location + 8 per constant; the classic tapes of cgwb's tracer use the 1991 record")
w("layout (doc/formats.md). Death notices are not operations and are counted apart, as in the")
w("paper. The last section explains the differences.")
w("")

local env, maxrel = {}, 0
for _, ex in ipairs(examples) do
  local p = paper[ex.name]
  local adolc = ("examples/tapes/ADOLC-Operations_%d.tap"):format(ex.tag)
  local sa = assert(cgwb.tape_stats(adolc))
  local luatape = lua_tape(ex.name)
  local sl = assert(cgwb.tape_stats(luatape))
  maxrel = math.max(maxrel, max_rel(luatape, ex.name))
  local e = { paper = from_paper(p), adolc = from_stats(sa), lua = from_stats(sl),
              paper_total = p.total[1] }
  e.more_copies = e.lua.copies - e.adolc.copies
  e.fewer_consts = e.adolc.consts - e.lua.consts
  e.extra = e.lua.ops - e.adolc.ops
  env[ex.name] = e

  w("## " .. ex.title)
  w("")
  w(("Paper: %d death notices, max live %d."):format(p.deaths, p.maxlive))
  w("")
  w("```")
  w(paper_table(p))
  w("```")
  if p.total[1] ~= e.paper.ops then
    w("")
    w(("The rows add up to %d operations; the printed total adds the %d death notices.")
      :format(e.paper.ops, p.deaths))
  end
  w("")
  w("ADOL-C 2.7.2: " .. summary_line(sa) .. ".")
  w("")
  w("```")
  w(report.table1(sa))
  w("```")
  w("")
  w("cgwb Lua tracer: " .. summary_line(sl) .. ".")
  w("")
  w("```")
  w(report.table1(sl))
  w("```")
  w("")
  w(side_by_side(ex.title, e.paper, e.adolc, e.lua))
  w("")
end
env.maxrel = maxrel == 0 and "0" or ("%.1e"):format(maxrel)

-- {==== the claims the explanation makes, checked (scripts/results-lib.lua) ====}

local R = dofile("scripts/results-lib.lua")
local claims = R.claims("results-tape-stats")
local function num(x) return tonumber(x) end
local lo, hi = math.huge, -math.huge
for _, ex in ipairs(examples) do
  local e = env[ex.name]
  lo, hi = math.min(lo, num(e.paper.pct_copies)), math.max(hi, num(e.paper.pct_copies))
end
for _, ex in ipairs(examples) do
  local e = env[ex.name]
  claims:equal(ex.name .. ": arithmetic rows of ADOL-C and the tracer agree", e.lua.arith, e.adolc.arith)
  claims:equal(ex.name .. ": in-place rows of ADOL-C and the tracer agree", e.lua.inplace, e.adolc.inplace)
  claims:check(num(e.lua.pct_copies) >= lo and num(e.lua.pct_copies) <= hi,
    ex.name .. ": the tracer's share of copies is in the range of the paper's")
  claims:check(e.lua.copies > e.adolc.copies, ex.name .. ": the tracer records more copies than ADOL-C")
  claims:check(num(e.paper.bpo) > num(e.adolc.bpo) and num(e.paper.bpo) > num(e.lua.bpo),
    ex.name .. ": the paper's bytes per operation are the highest")
  claims:check(e.adolc.bytes / e.adolc.ops < e.lua.bytes / e.lua.ops,
    ex.name .. ": ADOL-C 2.x's records are the smallest on average")
end
claims:check(math.abs(env.bratu.lua.maxlive - env.bratu.paper.maxlive) <= 0.01 * env.bratu.paper.maxlive,
  "Bratu: the tracer's max live is close (1%) to the paper's")
claims:check(math.abs(num(env.shallow.lua.bpo) - num(env.shallow.adolc.bpo)) <= 0.2,
  "Shallow: the tracer's bytes per operation come close (0.2) to ADOL-C's")
claims:check(env.shallow.paper.maxlive >= 10 * env.shallow.adolc.locations,
  "Shallow: the paper's max live is an order of magnitude above our locations")
claims:check(num(env.bratu.paper.const_share) > num(env.bratu.lua.const_share),
  "Bratu: a larger share of the paper's operations carry a constant")
claims:equal("Bratu: the printed total is the rows plus the death notices", env.bratu.paper.ops + env.bratu.paper.deaths,
  env.bratu.paper_total)
claims:equal("Cavity: the printed total is the rows plus the death notices", env.cavity.paper.ops + env.cavity.paper.deaths,
  env.cavity.paper_total)
claims:equal("Shallow: the printed total is the rows alone", env.shallow.paper.ops, env.shallow.paper_total)
claims:finish()
w("## Where and why the numbers differ")
w("")
-- code spans stay on one line, like the numbers
w(reflow(fill(WHY, env):gsub("`[^`]*`", function(c) return (c:gsub(" ", "\1")) end), 92))
local f = assert(io.open("doc/results/tape-statistics.md", "w"))
f:write(table.concat(out, "\n"), "\n")
f:close()
