#!/usr/bin/env lua5.4
-- scripts/results-adjoint.lua DIR TABLE N...: writes doc/results/adjoint-loops.md,
-- its plot doc/results/adjoint-loops-tape.svg and data adjoint-loops.csv, and the
-- section "## Adjoints of parallel loops" of doc/benchmarks.md, from the raw
-- figures scripts/bench-adjoint.sh leaves in DIR (driverN.txt, adolcN.txt,
-- gradN.txt, adolc_gradN.txt, std/report.json, tr/report.json) for the meshes of
-- N squares a side; TABLE is the mesh of the memory table (about 1000 triangles,
-- as Hascoët, Fidanova & Held, sec. 4).  Run from the top level:
--   scripts/cgwb run scripts/results-adjoint.lua build/bench/adjoint 22 12 16 22 ...
-- Every number on the page comes from DIR; nothing is dated, so the same figures
-- give the same bytes.
local json = require "cgwb.json"

local DIR, TABLE = arg[1], math.tointeger(tonumber(arg[2] or ""))
local SIZES = {}
for i = 3, #arg do SIZES[#SIZES + 1] = math.tointeger(tonumber(arg[i])) end
if not DIR or not TABLE or #SIZES == 0 then
  io.stderr:write("usage: results-adjoint.lua DIR TABLE N...\n")
  os.exit(2)
end

-- {==== reading ====}

local function slurp(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  local s = f:read("a")
  f:close()
  return s
end

local function must(path) return assert(slurp(path)) end

--- "key v1 v2 ..." lines into { key = {numbers...} } (a key twice: "check" keeps sub-keys).
local function keyed(text)
  local t = {}
  for line in text:gmatch("[^\n]+") do
    local w = {}
    for x in line:gmatch("%S+") do w[#w + 1] = x end
    local key = table.remove(w, 1)
    if key == "check" then key = "check_" .. table.remove(w, 1) end
    for i, x in ipairs(w) do w[i] = tonumber(x) or x end
    t[key] = w
  end
  return t
end

local runs = {}
for _, n in ipairs(SIZES) do
  local d, a = keyed(must(("%s/driver%d.txt"):format(DIR, n))), keyed(must(("%s/adolc%d.txt"):format(DIR, n)))
  runs[n] = { d = d, a = a, nt = d.mesh[3], nv = d.mesh[1], ne = d.mesh[2] }
end

local function numbers(path)
  local t = {}
  for x in must(path):gmatch("%S+") do t[#t + 1] = tonumber(x) end
  return t
end

-- {==== formatting ====}

local function group(n) -- 2868000 -> 2,868,000
  local s = ("%d"):format(math.floor(n + 0.5))
  return (s:reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", ""))
end
local function f3(x) return ("%.3g"):format(x) end
local function ms(x) return ("%.3f"):format(1e3 * x) end
local function pct(a, b) return ("%+.1f %%"):format(100 * (a / b - 1)) end

-- {==== the memory table ====}

local R = runs[TABLE] or error("results-adjoint: no run for the table's mesh " .. TABLE)
local d, a = R.d, R.a
local std_tape, tr_tape = d.standard[2], d.transformed[2]
local std_snap, tr_snap = d.standard[4], d.transformed[4]
local orig, adjv = d.memory[1], d.memory[2]
local adolc_trace, adolc_tay, adolc_lives = a.adolc_tape[4], a.adolc_taylor[2], a.adolc_lives[2]
local adolc_tape = adolc_trace + adolc_tay
local rows = {
  { "memory for original computation", "171,000", "171,000", group(orig), group(orig), group(orig) },
  { "memory for adjoint variables", "297,000", "297,000", group(adjv), group(adjv), group(adolc_lives) },
  { "memory for dry-running", "0", "47,000", group(std_snap), group(tr_snap), "0" },
  { "memory for tape storage", "2,400,000", "800", group(std_tape), group(tr_tape), group(adolc_tape) },
  { "*total*", "2,868,000", "515,800", group(orig + adjv + std_snap + std_tape),
    group(orig + adjv + tr_snap + tr_tape), group(orig + adolc_lives + adolc_tape) },
}

-- The gradients: ours against ADOL-C's (max difference over max magnitude).
local gs, ga = numbers(("%s/grad%d.txt"):format(DIR, TABLE)), numbers(("%s/adolc_grad%d.txt"):format(DIR, TABLE))
assert(#gs == #ga and #gs > 0, "results-adjoint: gradient files differ in length")
local dmax, gmax = 0, 0
for i = 1, #gs do
  dmax = math.max(dmax, math.abs(gs[i] - ga[i]))
  gmax = math.max(gmax, math.abs(gs[i]))
end
local adolc_rel = dmax / gmax

-- {==== the loops (from the --report of --loops auto) ====}

local function loop_rows()
  local text = slurp(DIR .. "/tr/report.json")
  local rep = text and json.decode(text)
  if not rep or type(rep.loops) ~= "table" then return "(no --report from `cgwb adjoint`)" end
  local out = { "| line | verdict | transformed | terminal | dry run | snapshot | reason |",
                "| --- | --- | --- | --- | --- | --- | --- |" }
  for _, l in ipairs(rep.loops) do
    local snap = type(l.snapshot) == "table" and table.concat(l.snapshot, ", ") or ""
    out[#out + 1] = ("| %s | %s | %s | %s | %s | %s | %s |"):format(tostring(l.line), tostring(l.verdict),
      tostring(l.transformed), tostring(l.terminal), tostring(l.dry_run), snap, tostring(l.reason))
  end
  return table.concat(out, "\n")
end

-- {==== the plot ====}

local function write(path, text)
  local f = assert(io.open(path .. ".tmp", "wb"))
  f:write(text)
  assert(f:close())
  assert(os.rename(path .. ".tmp", path))
end

local csv = { "triangles,vertices,edges,standard_tape_bytes,transformed_tape_bytes,adolc_tape_bytes,standard_snapshot_bytes,transformed_snapshot_bytes" }
local data = {}
for _, n in ipairs(SIZES) do
  local r = runs[n]
  local at = r.a.adolc_tape[4] + r.a.adolc_taylor[2]
  csv[#csv + 1] = ("%d,%d,%d,%d,%d,%d,%d,%d"):format(r.nt, r.nv, r.ne, r.d.standard[2], r.d.transformed[2], at,
                                                   r.d.standard[4], r.d.transformed[4])
  data[#data + 1] = ("%d %d %d %d %d"):format(r.nt, r.d.standard[2], r.d.transformed[2], at, r.d.transformed[4])
end
write("doc/results/adjoint-loops.csv", table.concat(csv, "\n") .. "\n")
local dat = os.tmpname()
write(dat, table.concat(data, "\n") .. "\n")
local gp = table.concat({
  "set terminal svg size 720,520 font 'DejaVu Sans,12'",
  "set output 'doc/results/adjoint-loops-tape.svg.tmp'",
  "set title 'nsloops: tape (high-water mark) against mesh size'",
  "set xlabel 'triangles'", "set ylabel 'bytes'", "set logscale xy", "set format y '10^{%L}'",
  "set key below", "set grid", "set yrange [100:1e9]",
  ("plot '%s' using 1:2 with linespoints title 'standard adjoint (--loops none)', "
   .. "'%s' using 1:4 with linespoints title 'ADOL-C (trace + value stack)', "
   .. "'%s' using 1:3 with linespoints title 'transformed adjoint (--loops auto)', "
   .. "'%s' using 1:5 with linespoints dashtype 2 title 'its dry-run snapshots (not tape)'"):format(dat, dat, dat, dat),
}, "; ")
local ok = os.execute("gnuplot -e \"" .. gp:gsub('"', '\\"') .. "\"")
os.remove(dat)
if ok then
  -- gnuplot's SVG names its version in a <desc>: dropped, so the bytes depend
  -- on the figures only.
  local svg = assert(slurp("doc/results/adjoint-loops-tape.svg.tmp"))
  write("doc/results/adjoint-loops-tape.svg", (svg:gsub("<desc>Produced by GNUPLOT[^<]*</desc>\n?", "")))
  os.remove("doc/results/adjoint-loops-tape.svg.tmp")
else
  os.remove("doc/results/adjoint-loops-tape.svg.tmp")
  io.stderr:write("results-adjoint: gnuplot failed; the plot is not updated\n")
end

-- {==== the page ====}

local last = runs[SIZES[#SIZES]]
local first = runs[SIZES[1]]
local t = d.time -- primal, standard, transformed (fresh calls)
local w = d.time_warm -- standard, transformed (warm calls)
local ratio_tape = std_tape / tr_tape
local aims = {
  ("* tape at least 1000x smaller than the standard adjoint's: %.0fx (%s).")
    :format(ratio_tape, ratio_tape >= 1000 and "met" or "not met"),
}
local time_aims = {
  ("* transformed adjoint at most 10 %% slower than the standard one: %s for a fresh call (%s), %s for a "
   .. "warm one (%s)."):format(pct(t[3], t[2]), t[3] <= 1.10 * t[2] and "met" or "not met",
    pct(w[2], w[1]), w[2] <= 1.10 * w[1] and "met" or "not met"),
  ("* transformed adjoint faster than ADOL-C's `gradient()` on its recorded tape: %s ms against %s ms (%s); "
   .. "against taping plus `gradient()`, as a caller needs at a new point: %s ms (%s).")
    :format(ms(t[3]), ms(a.adolc_time[2]), t[3] < a.adolc_time[2] and "met" or "not met",
            ms(a.adolc_time[3]), t[3] < a.adolc_time[3] and "met" or "not met"),
}

local tab = { "| | paper, reference | paper, transformed | standard (`--loops none`) | transformed (`--loops auto`) | ADOL-C |",
              "| --- | ---: | ---: | ---: | ---: | ---: |" }
for _, r in ipairs(rows) do tab[#tab + 1] = "| " .. table.concat(r, " | ") .. " |" end
local time_ratio = ("| run time relative to the standard adjoint (fresh call; warm) | | +3 %% | 1.00; 1.00 | %.2f; %.2f | %.2f (taping + `gradient()`) |")
  :format(t[3] / t[2], w[2] / w[1], a.adolc_time[3] / t[2])

local sizes_rows = { "| triangles | vertices | edges | standard tape | transformed tape | ratio | transformed snapshots | ADOL-C trace + value stack |",
                     "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |" }
for _, n in ipairs(SIZES) do
  local r = runs[n]
  sizes_rows[#sizes_rows + 1] = ("| %s | %s | %s | %s | %s | %.0f | %s | %s |"):format(group(r.nt), group(r.nv), group(r.ne),
    group(r.d.standard[2]), group(r.d.transformed[2]), r.d.standard[2] / r.d.transformed[2],
    group(r.d.transformed[4]), group(r.a.adolc_tape[4] + r.a.adolc_taylor[2]))
end

local time_rows = { "| triangles | primal | standard, fresh | transformed, fresh | ratio | standard, warm | transformed, warm | ratio | ADOL-C taping | ADOL-C `gradient()` |",
                    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |" }
for _, n in ipairs(SIZES) do
  local r = runs[n]
  local rt, rw = r.d.time, r.d.time_warm
  time_rows[#time_rows + 1] = ("| %s | %s | %s | %s | %.2f | %s | %s | %.2f | %s | %s |"):format(group(r.nt), ms(rt[1]),
    ms(rt[2]), ms(rt[3]), rt[3] / rt[2], ms(rw[1]), ms(rw[2]), rw[2] / rw[1], ms(r.a.adolc_time[1]), ms(r.a.adolc_time[2]))
end

local page = ([[
# Adjoints of parallel loops: the memory table

Generated by `make results` or `make bench` (`scripts/bench-adjoint.sh`, then
`scripts/results-adjoint.lua`); do not edit by hand. Everything above the last section is the
same from run to run; the times are in the last section, "Timings".
Hascoët, Fidanova & Held, "Adjoining Independent Computations", sec. 4, adjoined the 7
parallel loops of a Navier-Stokes kernel on a mesh of about 1000 triangles per iteration
(Fig. 4), with dry runs for the loops that are not terminal (Fig. 5), and printed the
memory table below. Ours: `examples/kernels/nsloops.c`, seven loops of the same shape
(conservative to primitive variables, P1 gradients, their scatter and scaling, limited
edge fluxes, viscous fluxes, update and cost), on the %s-triangle mesh of
`scripts/bench/mesh.lua %d 1` (%s vertices, %s edges; jittered and renumbered at random, so
the loops reach their vertices in an irregular order). Independents: the state `w0..w3`
and the coordinates `x, y`; dependent: `cost`.

* **standard**: `cgwb adjoint examples/kernels/nsloops.c --function nsloops --loops none`
  (the forward sweep pushes what the reverse sweep needs);
* **transformed**: the same with `--loops auto` (every accepted loop adjoined per
  iteration; the non-terminal ones dry-run, their snapshots restored before the re-run);
* **ADOL-C**: Debian's ADOL-C 2.7.2 taping the same kernel text over `adouble`
  (`scripts/bench/adolc_nsloops.cpp`), then `gradient()`.

Bytes. Original computation: every array `nsloops` reads or writes (the mesh's int
maps included). Adjoint variables: the adjoints of its `double` parameters (ADOL-C: its
adjoint vector, 8 bytes per location of its value store, `NUM_MAX_LIVES`). Dry-running:
the snapshot stack's high-water mark (a saved cell is its value with its array and
offset, `lua/cgwb/runtime/cgwb_adstack.h`; what each loop saves is listed under "The
loops"; each cell at most once per dry run, the bitmaps that say so counted too). Most of
it is the increment targets of loops 3, 5 and 6 (`rx`..`py`, `dual`, `res0`..`res3`):
neither the re-run nor the adjoint needs their values, but `nsloops_b` recomputes the
primal results from the entry state the reverse sweep restores, and the analysis cannot
prove that loop 1's zeroing covers every cell the maps reach, so their entry values are
kept (without them the snapshots would take 101,600 bytes, but the primal results would be
wrong whenever a target's entry value is used). Tape: the tape's high-water mark (`cgwb_adstats`); for ADOL-C the trace
(operations 1 byte, locations 4, values 8: %s bytes) plus the value stack its forward
sweep keeps for the reverse sweep (%s bytes). The paper's figures are its own (bytes, for
another kernel and machine); they are shown for the shape of the table, not for a match.

%s

## Checks

The two adjoints' gradients agree to %s (max difference over max magnitude; aim
1e-12); the standard adjoint against central differences of the compiled kernel in 4
random directions: %s (relative; h = 1e-6); against ADOL-C's gradient: %s. Both adjoints
leave the primal results as `nsloops` does, bit for bit: %s. (`scripts/bench/adjoint_driver.c`
fails the benchmark when a check fails.)

## The loops

What `cgwb adjoint --loops auto --report` says of each loop, in source order (the
nested loops too: `transformed` marks the loops adjoined per iteration, the top-level
ones; a nested loop is adjoined inside its parent's iteration):

%s

## Tape against mesh size

![tape bytes against triangles](adjoint-loops-tape.svg)

%s

The standard adjoint's tape and ADOL-C's grow with the mesh (%.1fx and %.1fx from %s to %s
triangles, for %.1fx the triangles); the transformed adjoint's stays at one iteration's
(%s to %s bytes), while its snapshots grow with the mesh, as the arrays they save do.
Data: `adjoint-loops.csv`.

## Aims

%s

## Timings (change from run to run)

Run time, against the standard adjoint's (the paper's transformed adjoint: +3 %%):

| | paper, reference | paper, transformed | standard (`--loops none`) | transformed (`--loops auto`) | ADOL-C |
| --- | ---: | ---: | ---: | ---: | ---: |
%s

Medians of %d calls at the table's size (11 on the other meshes up to 8,192 triangles,
3 above), in milliseconds; the primal and the four adjoint timings are taken in turns in
one process. A *fresh* adjoint call starts from empty stacks (`F_b_reset`, which frees
them, before it: growing them, and the kernel's page faults on the new memory, are in the
figure); a *warm* one is the call right after it, on the stacks the fresh call grew (a
caller calling `F_b` again and again). ADOL-C runs in its own process (taping: `trace_on`
.. `trace_off`; `gradient()` on the recorded tape). The machine is a shared VM: these vary
from run to run, the memory figures above do not.

%s

Aims on run time:

%s
]]):format(group(R.nt), TABLE, group(R.nv), group(R.ne), group(adolc_trace), group(adolc_tay),
  table.concat(tab, "\n"), f3(d.check_std_vs_tr[1]), f3(d.check_fd[1]), f3(adolc_rel),
  d.check_primal[1] == 1 and "yes" or "NO",
  loop_rows(), table.concat(sizes_rows, "\n"),
  last.d.standard[2] / first.d.standard[2],
  (last.a.adolc_tape[4] + last.a.adolc_taylor[2]) / (first.a.adolc_tape[4] + first.a.adolc_taylor[2]),
  group(first.nt), group(last.nt), last.nt / first.nt, group(first.d.transformed[2]), group(last.d.transformed[2]),
  table.concat(aims, "\n"), time_ratio,
  d.reps[1], table.concat(time_rows, "\n"), table.concat(time_aims, "\n"))
write("doc/results/adjoint-loops.md", page)

-- {==== the section of doc/benchmarks.md ====}

local section = ([[
## Adjoints of parallel loops

`scripts/bench-adjoint.sh`: `examples/kernels/nsloops.c` (7 parallel loops, Hascoët, Fidanova &
Held, sec. 4) on a %s-triangle mesh; the full table, the loops' verdicts and the plot
against mesh size in `doc/results/adjoint-loops.md`.

| what | standard (`--loops none`) | transformed (`--loops auto`) | ADOL-C |
| --- | ---: | ---: | ---: |
| tape, high-water mark (bytes) | %s | %s | %s |
| dry-run snapshots (bytes) | %s | %s | |
| run time (ms, median; fresh call) | %s | %s | %s (`gradient()`), %s (taping + `gradient()`) |
| run time (ms, median; warm call) | %s | %s | |

%s]]):format(group(R.nt), group(std_tape), group(tr_tape), group(adolc_tape), group(std_snap), group(tr_snap),
  ms(t[2]), ms(t[3]), ms(a.adolc_time[2]), ms(a.adolc_time[3]), ms(w[1]), ms(w[2]),
  table.concat(aims, "\n") .. "\n" .. table.concat(time_aims, "\n"))

-- `make results` (scripts/results.sh) leaves doc/benchmarks.md to `make bench`.
if os.getenv("CGWB_RESULTS_ONLY") == "1" then
  io.write(page)
  return
end
local bench = slurp("doc/benchmarks.md") or "# Benchmarks\n"
local out, skip, done = {}, false, false
for line in (bench .. (bench:sub(-1) == "\n" and "" or "\n")):gmatch("([^\n]*)\n") do
  if line == "## Adjoints of parallel loops" then
    out[#out + 1] = section
    skip, done = true, true
  elseif skip and line:match("^## ") then
    skip = false
    out[#out + 1] = ""
    out[#out + 1] = line
  elseif not skip then
    out[#out + 1] = line
  end
end
if not done then
  if out[#out] ~= "" then out[#out + 1] = "" end
  out[#out + 1] = section
end
local text = table.concat(out, "\n"):gsub("\n*$", "\n")
write("doc/benchmarks.md", text)
io.write(page)
