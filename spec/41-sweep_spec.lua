-- spec/41-sweep_spec.lua: cgwb sweep (doc/sweep.md).  A plan expands into
-- jobs whose ids hash their parameters; bad plans are refused naming the key;
-- the local, parallel, ssh (':', this machine) and Slurm runners give the
-- same CSV byte for byte, whose numbers are those of running the commands
-- directly; a failed and a timed-out job are recorded and run again alone
-- with --rerun-failed, and a job recorded ok is never run again.
local H = require "spec.helper"
local sweep = require "cgwb.sweep"
local json = require "cgwb.json"

local function sh_read(cmd)
  local p = assert(io.popen(cmd))
  local s = p:read("a")
  p:close()
  return s
end

local ROOT = sh_read("pwd"):gsub("\n$", "")
local GRAPHS = ROOT .. "/examples/graphs/"

-- A fresh scratch directory.
local function scratch()
  local d = H.tmp("-sweep")
  os.execute("rm -rf " .. d .. " && mkdir -p " .. d)
  return d
end

-- Runs `cgwb sweep ARGS` with env (a prefix of NAME=VALUE words); returns
-- stdout, stderr, exit status.
local function cgwb_sweep(args, env)
  local out, err = H.tmp(".out"), H.tmp(".err")
  local _, _, code = os.execute(("%s CGWB_BUILD=%s scripts/cgwb sweep %s >%s 2>%s")
    :format(env or "", H.build, args, out, err))
  local o, e = H.read(out), H.read(err)
  os.remove(out)
  os.remove(err)
  return o, e, code
end

-- The CSV's rows as tables keyed by the header's names.
local function csv_rows(text)
  local lines = {}
  for l in text:gmatch("[^\n]+") do lines[#lines + 1] = l end
  local head, rows = {}, {}
  for f in (lines[1] .. ","):gmatch("([^,]*),") do head[#head + 1] = f end
  for i = 2, #lines do
    local r, k = {}, 0
    for f in (lines[i] .. ","):gmatch("([^,]*),") do k = k + 1; r[head[k]] = f end
    rows[#rows + 1] = r
  end
  return rows
end

local function inode(path) return sh_read("stat -c %i " .. path) end

describe("sweep: plans and their jobs", function()
  local plan = {
    inputs = { GRAPHS .. "lighthouse.cg", GRAPHS .. "lion.cg" },
    orderings = { "markowitz", "forward", "min-fill" },
    modes = { "vertex", "edge" },
    seeds = { 1, 2 },
    budgets = { 10 },
  }

  it("expands to the product of the lists, ids of 16 hex digits, all different", function()
    local jobs = assert(sweep.expand(assert(sweep.check_plan(plan))))
    assert.equal(2 * 3 * 2 * 2, #jobs)
    local seen = {}
    for k, j in ipairs(jobs) do
      assert.truthy(j.id:match("^%x+$") and #j.id == 16, j.id)
      assert.is_nil(seen[j.id])
      seen[j.id] = true
      assert.equal(k, j.index)
      assert.equal("eliminate", j.command) -- a graph file's default command
    end
    assert.same({ "eliminate", GRAPHS .. "lighthouse.cg", "--order", "markowitz", "--mode", "vertex", "--seed", "1",
                  "--budget", "10", "--json", "--quiet" }, jobs[1].args)
  end)

  it("a job's id hashes its parameters, not its position in the plan", function()
    local function ids(p)
      local t = {}
      for _, j in ipairs(assert(sweep.expand(assert(sweep.check_plan(p))))) do
        t[table.concat({ j.input, j.order, j.mode, j.seed, j.budget }, "|")] = j.id
      end
      return t
    end
    local a = ids(plan)
    local moved = { inputs = { GRAPHS .. "speelpenning10.cg", GRAPHS .. "lion.cg", GRAPHS .. "lighthouse.cg" },
                    orderings = { "min-fill", "reverse", "markowitz", "forward" }, modes = { "edge", "vertex" },
                    seeds = { 2, 1 }, budgets = { 10 } }
    local b = ids(moved)
    local n = 0
    for key, id in pairs(a) do
      n = n + 1
      assert.equal(id, b[key], key)
    end
    assert.equal(24, n)
    -- and the hash itself stays put from version to version (records already written keep their ids)
    assert.equal("bce9723a7dc62fab", sweep.expand(assert(sweep.check_plan {
      inputs = { "examples/graphs/lighthouse.cg" } }))[1].id)
    assert.equal("cbf29ce484222325", sweep.hash("")) -- FNV-1a 64's offset basis
    assert.equal("af63dc4c8601ec8c", sweep.hash("a"))
  end)

  it("reads a plan file: paths relative to its directory, globs sorted, command by kind", function()
    local p = assert(sweep.load_plan("examples/sweep/orderings.lua"))
    assert.equal("orderings", p.name)
    local jobs = assert(sweep.expand(p))
    assert.equal(6 * 5 * 2 * 2 * 1, #jobs)
    assert.equal("../graphs/heart-dipole.cg", jobs[1].input)
    assert.equal("examples/graphs/heart-dipole.cg", jobs[1].args[2])
    assert.equal("../tapes/bratu.tap", jobs[#jobs].input)
    assert.equal("jacobian", jobs[#jobs].command)
    local inputs = {}
    for _, j in ipairs(jobs) do if inputs[#inputs] ~= j.input then inputs[#inputs + 1] = j.input end end
    assert.same({ "../graphs/heart-dipole.cg", "../graphs/hovland-fig2.cg", "../graphs/lighthouse.cg",
                  "../graphs/lion.cg", "../graphs/speelpenning10.cg", "../tapes/bratu.tap" }, inputs)
  end)

  it("refuses a bad plan, naming the key and its line (exit 2)", function()
    local d = scratch()
    local cases = {
      { 'return {\n  inputs = { "x.cg" },\n  ordering = { "markowitz" },\n}\n', "plan.lua:3: unknown key 'ordering'" },
      { 'return {\n  inputs = { "%s" },\n  modes = { "diagonal" },\n}\n', "plan.lua:3: modes[1]: 'diagonal'" },
      { 'return {\n  inputs = { "%s" },\n\n  seeds = { 1.5 },\n}\n', "plan.lua:4: seeds[1] must be an integer" },
      { 'return { inputs = { "%s" }, timeout = -1 }\n', "plan.lua:1: timeout must be" },
      { 'return { inputs = { "%s" }, command = "stats" }\n', "command must be jacobian or eliminate" },
      { 'return { inputs = { "nosuch*.cg" } }\n', "inputs[1]: no file matches 'nosuch*.cg'" },
      { 'return { orderings = { "markowitz" } }\n', "plan.lua: the plan has no inputs" },
      { 'return { inputs = { "%s" }, orderings = { "markowitz", "lmmd" }, modes = { "vertex", "face" } }\n',
        "plan.lua: orderings[2]: unknown ordering 'lmmd' for face elimination" },
      { 'return { inputs = { "%s" }, orderings = { "mine.lua" } }\n', "plan.lua: orderings[1]: no file 'mine.lua'" },
      { 'return 42\n', "a plan returns a table, got number" },
      { 'return {\n', "plan.lua:2:" },
    }
    for _, c in ipairs(cases) do
      H.write(d .. "/plan.lua", c[1]:gsub("%%s", GRAPHS .. "lion.cg"))
      local _, err, code = cgwb_sweep(d .. "/plan.lua --dry-run")
      assert.equal(2, code, c[2])
      assert.truthy(err:find(c[2], 1, true), err)
    end
    assert.is_nil(sweep.check_plan({ inputs = { "a" }, extra = { 1 } }))
    assert.truthy(sweep.check_plan({ inputs = { "a" }, extra = { "--check" } }))
  end)
end)

describe("sweep: runners", function()
  local d, plan_path, base
  setup(function()
    d = scratch()
    plan_path = H.write(d .. "/plan.lua", ([[
return {
  name = "spec",
  inputs = { "%slighthouse.cg", "%slion.cg", "%s/examples/tapes/bratu.tap" },
  orderings = { "markowitz", "forward" },
  modes = { "vertex", "edge" },
  timeout = 60,
}
]]):format(GRAPHS, GRAPHS, ROOT))
  end)

  it("the local runner records every job and merges them", function()
    local out, err, code = cgwb_sweep(plan_path .. " --out " .. d .. "/local")
    assert.equal(0, code, err)
    assert.truthy(err:find("12 jobs, 12 run, 0 already recorded", 1, true), err)
    assert.truthy(out:find("12 jobs: 12 ok, 0 failed, 0 timed out", 1, true), out)
    base = H.read(d .. "/local/results.csv")
    assert.equal(13, select(2, base:gsub("\n", "")))
    local again, err2 = cgwb_sweep(plan_path .. " --out " .. d .. "/local")
    assert.truthy(err2:find("12 jobs, 0 run, 12 already recorded", 1, true), err2)
    assert.equal(out, again)
  end)

  it("the merged numbers are those of cgwb jacobian/eliminate --json run directly", function()
    local rows = csv_rows(base)
    assert.equal(12, #rows)
    for _, r in ipairs(rows) do
      local o, e, c = H.cgwb(("%s %s --order %s --mode %s --json"):format(r.command, r.input, r.order, r.mode))
      assert.equal(0, c, e)
      local j = json.decode(o)
      for _, k in ipairs { "mults", "adds", "nnz", "fill", "n", "m", "steps" } do
        assert.equal(tostring(j[k]), r[k], r.input .. " " .. r.order .. " " .. r.mode .. " " .. k)
      end
      assert.equal("ok", r.status)
    end
  end)

  it("the parallel runner gives the same CSV byte for byte", function()
    local out, err, code = cgwb_sweep(plan_path .. " --runner parallel --jobs 2 --out " .. d .. "/par")
    assert.equal(0, code, err)
    assert.equal(base, H.read(d .. "/par/results.csv"))
    local merged = cgwb_sweep("--merge " .. d .. "/par -o " .. d .. "/par.csv")
    assert.equal(out, merged)
    assert.equal(base, H.read(d .. "/par.csv"))
  end)

  it("the ssh runner on ':' (this machine) gives the same CSV", function()
    local logins = H.write(d .. "/logins", ":\n")
    local _, err, code = cgwb_sweep(plan_path .. " --runner ssh --sshloginfile " .. logins .. " --out " .. d .. "/ssh",
      "PATH=" .. ROOT .. "/scripts:$PATH")
    assert.equal(0, code, err)
    assert.equal(base, H.read(d .. "/ssh/results.csv"))
    -- cgwb must be on the PATH where the jobs run: refused up front when that is here
    local _, err2, code2 = cgwb_sweep(plan_path .. " --runner ssh --sshloginfile " .. logins .. " --out "
      .. d .. "/ssh2", "PATH=" .. (H.san_bin and (H.san_bin .. ":") or "") .. "/usr/bin:/bin") -- no cgwb there
    assert.equal(2, code2)
    assert.truthy(err2:find("runs `cgwb` on each machine's PATH", 1, true), err2)
  end)

  it("the Slurm script, run by hand for each array task, gives the same CSV", function()
    local out, err, code = cgwb_sweep(plan_path .. " --runner slurm --out " .. d .. "/slurm")
    assert.equal(0, code, err)
    assert.truthy(out:find("sbatch " .. d .. "/slurm/sweep.sbatch", 1, true), out)
    local script = H.read(d .. "/slurm/sweep.sbatch")
    assert.truthy(script:find("\n#SBATCH --array=1-12\n", 1, true), script)
    assert.equal("", sh_read("ls " .. d .. "/slurm/jobs 2>/dev/null")) -- written, not run
    local _, _, rc = os.execute(("for k in 1 2 3 4 5 6 7 8 9 10 11 12; do CGWB_BUILD=%s SLURM_ARRAY_TASK_ID=$k "
      .. "sh %s/slurm/sweep.sbatch || exit 1; done"):format(H.build, d))
    assert.equal(0, rc)
    local _, err2, code2 = cgwb_sweep("--merge " .. d .. "/slurm")
    assert.equal(0, code2, err2)
    assert.equal(base, H.read(d .. "/slurm/results.csv"))
  end)

  it("--job runs one (its record on stdout without --out); --dry-run lists the jobs", function()
    local out, err, code = cgwb_sweep(plan_path .. " --job 2")
    assert.equal(0, code, err)
    local rec = json.decode(out)
    assert.equal("ok", rec.status)
    local jobs = assert(sweep.expand(assert(sweep.load_plan(plan_path))))
    assert.equal(jobs[2].id, rec.id)
    out = cgwb_sweep(plan_path .. " --dry-run --out " .. d .. "/local")
    assert.truthy(out:find(jobs[2].id .. " ok cgwb 'eliminate'", 1, true), out)
    assert.truthy(out:find("\n12 jobs, 0 to run\n", 1, true), out)
    -- a run merges its plan's jobs; --merge DIR every record there
    local fewer = H.write(d .. "/fewer.lua", H.read(plan_path):gsub('"markowitz", "forward"', '"forward"'))
    local fout, ferr = cgwb_sweep(fewer .. " --out " .. d .. "/local -o " .. d .. "/fewer.csv")
    assert.truthy(ferr:find("6 jobs, 0 run, 6 already recorded", 1, true), ferr)
    assert.truthy(fout:find("6 jobs: 6 ok", 1, true), fout)
    assert.equal(7, select(2, H.read(d .. "/fewer.csv"):gsub("\n", "")))
    local _, _, mcode = cgwb_sweep("--merge " .. d .. "/local -o " .. d .. "/all.csv")
    assert.equal(0, mcode)
    assert.equal(base, H.read(d .. "/all.csv"))
    local _, err3, code3 = cgwb_sweep(plan_path .. " --job 13")
    assert.equal(2, code3)
    assert.truthy(err3:find("--job 13: no such job", 1, true), err3)
  end)
end)

describe("sweep: failures, timeouts and reruns", function()
  it("records a failed and a timed-out job, reruns them alone once fixed, never an ok one", function()
    local d = scratch()
    local bad = H.write(d .. "/bad.lua", "return function(v, lg, i, o) return i * o +\n")
    local slow = H.write(d .. "/slow.lua", "return function(v, lg, i, o) while true do end end\n")
    local plan = H.write(d .. "/plan.lua", ('return { inputs = { "%slighthouse.cg" }, '
      .. 'orderings = { "markowitz", "bad.lua", "slow.lua" }, timeout = 1 }\n'):format(GRAPHS))
    local jobs = assert(sweep.expand(assert(sweep.load_plan(plan))))
    local function rec(k) return json.decode(H.read(("%s/out/jobs/%s.json"):format(d, jobs[k].id))) end
    local function file(k) return ("%s/out/jobs/%s.json"):format(d, jobs[k].id) end
    local out, err, code = cgwb_sweep(plan .. " --runner parallel --out " .. d .. "/out")
    assert.equal(0, code, err)
    assert.equal("ok", rec(1).status)
    assert.equal("failed", rec(2).status)
    assert.equal(2, rec(2).exit)
    assert.truthy(rec(2).stderr:find("bad.lua:2:", 1, true), rec(2).stderr)
    assert.equal("timeout", rec(3).status)
    assert.equal(124, rec(3).exit)
    assert.truthy(out:find("3 jobs: 1 ok, 1 failed, 1 timed out", 1, true), out)
    local ok_inode, ok_text = inode(file(1)), H.read(file(1))
    local failed_inode = inode(file(2))
    -- a rerun runs nothing: failed and timed-out jobs wait for --rerun-failed
    local _, err2 = cgwb_sweep(plan .. " --out " .. d .. "/out")
    assert.truthy(err2:find("3 jobs, 0 run, 3 already recorded", 1, true), err2)
    assert.equal(failed_inode, inode(file(2)))
    -- the causes fixed, --rerun-failed runs those two alone
    H.write(bad, "return function(v, lg, i, o) return i * o end\n")
    H.write(slow, "return function(v, lg, i, o) return o end\n")
    local out3, err3, code3 = cgwb_sweep(plan .. " --rerun-failed --out " .. d .. "/out")
    assert.equal(0, code3, err3)
    assert.truthy(err3:find("3 jobs, 2 run, 1 already recorded", 1, true), err3)
    assert.truthy(out3:find("3 jobs: 3 ok, 0 failed, 0 timed out", 1, true), out3)
    assert.equal("ok", rec(2).status)
    assert.equal("ok", rec(3).status)
    assert.equal(ok_inode, inode(file(1)))
    assert.equal(ok_text, H.read(file(1)))
    assert.are_not.equal(failed_inode, inode(file(2)))
  end)
end)

describe("sweep: merge, CSV and summary", function()
  it("sorts rows by parameters, writes %.17g and quotes fields, medians the lower middle", function()
    local d = scratch()
    os.execute("mkdir -p " .. d .. "/jobs")
    local function put(id, order, input, mults, status, msg)
      assert(sweep.write_record(d, { id = id, status = status or "ok", exit = status and 2 or 0, stderr = msg or "",
        seconds = 0.5, params = { command = "eliminate", input = input, order = order, mode = "vertex", seed = 1,
        budget = 200, extra = json.array {} },
        result = status == nil and { mults = mults, lower_bound = 0.1 } or nil }))
    end
    put("000000000000000a", "markowitz", "b.cg", 10)
    put("000000000000000b", "markowitz", "a.cg", 40)
    put("000000000000000c", "markowitz", "c.cg", 20)
    put("000000000000000d", "markowitz", "d.cg", 30)
    put("000000000000000e", "forward", "a.cg", nil, "failed", 'x.lua:1: "no", really')
    local rows = assert(sweep.merge(d))
    local csv = sweep.csv(rows)
    local lines = {}
    for l in csv:gmatch("[^\n]+") do lines[#lines + 1] = l end
    assert.equal(table.concat(sweep.COLUMNS, ","), lines[1])
    assert.truthy(lines[2]:find(
      '^a%.cg,eliminate,vertex,forward,1,200,,failed,2,.*,"x%.lua:1: ""no"", really",000000000000000e$'),
      lines[2])
    assert.truthy(lines[3]:find("^a%.cg,eliminate,vertex,markowitz,.*,40,.*,0%.10000000000000001,,,000000000000000b$"),
      lines[3])
    assert.truthy(lines[6]:find("^d%.cg"), lines[6])
    local s = sweep.summary(rows)
    assert.same({ jobs = 5, ok = 4, failed = 1, timeout = 0 }, { jobs = s.jobs, ok = s.ok, failed = s.failed,
      timeout = s.timeout })
    assert.equal("forward", s.rows[1].order)
    assert.same({ 4, 10, 20, 40 }, { s.rows[2].ok, s.rows[2].min, s.rows[2].median, s.rows[2].max })
    assert.truthy(sweep.summary_text(s):find("markowitz  vertex     4   4       0        0         10      20   40",
      1, true), sweep.summary_text(s))
    local nodir, nerr = sweep.merge(d .. "/nosuch")
    assert.is_nil(nodir)
    assert.truthy(nerr:find("not a sweep's directory", 1, true), nerr)
    H.write(d .. "/jobs/00000000000000ff.json", "{ not json")
    local none, err = sweep.merge(d)
    assert.is_nil(none)
    assert.truthy(err:find("00000000000000ff.json", 1, true), err)
  end)

  it("reports progress through cgwb.progress when it is there, else not at all", function()
    local saved, calls = package.loaded["cgwb.progress"], {}
    package.loaded["cgwb.progress"] = { start = function(what, n)
      calls[#calls + 1] = what .. " " .. n
      return { update = function(_, k) calls[#calls + 1] = "update " .. k end,
               finish = function() calls[#calls + 1] = "finish" end }
    end }
    local r = sweep.progress("sweep jobs", 3, false)
    r:update(1)
    r:finish()
    sweep.progress("sweep jobs", 3, true):update(2) -- --quiet: the module is not asked
    package.loaded["cgwb.progress"] = nil
    local preload = package.preload["cgwb.progress"]
    package.preload["cgwb.progress"] = function() error("no progress here") end
    local quiet = sweep.progress("sweep jobs", 3, false)
    quiet:update(1)
    quiet:finish()
    package.preload["cgwb.progress"], package.loaded["cgwb.progress"] = preload, saved
    assert.same({ "sweep jobs 3", "update 1", "finish" }, calls)
  end)
end)
