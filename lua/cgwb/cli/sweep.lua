--- cgwb.cli.sweep: `cgwb sweep`, a plan of jobs run and merged (doc/sweep.md);
-- the runners are cgwb.drive.sweeprun's.
-- @module cgwb.cli.sweep
local C = require "cgwb.cli.common"
local fail, check, readable, option, int_in = C.fail, C.check, C.readable, C.option, C.int_in

local M = {}

--- The commands this module defines, by name: { example = "cgwb NAME ...", setup = function(p)
-- (its options), run = function(a) (the work) }; cgwb.cli.registry names them.
M.commands = {}
local commands = M.commands

commands.sweep = {
  example = "cgwb sweep examples/sweep/orderings.lua --runner parallel --jobs 2 --out sweep-orderings\n"
    .. "  cgwb sweep --merge sweep-orderings -o orderings.csv",
  setup = function(p)
    p:argument("plan", "A Lua file returning the plan's table (doc/sweep.md)."):args("?")
    option(p, "--runner", "Where the jobs run: local (one after the other), parallel (GNU parallel here), "
      .. "ssh (GNU parallel on the machines of --sshloginfile; cgwb on their PATH), slurm (writes "
      .. "DIR/sweep.sbatch, a job array, and does not submit it).", "local")
      :choices { "local", "parallel", "ssh", "slurm" }
    option(p, "--jobs", "Jobs at once for the parallel and ssh runners (GNU parallel's --jobs; "
      .. "default one a core).")
      :argname("N"):convert(int_in("--jobs", 1, 100000))
    option(p, "--sshloginfile", "For --runner ssh: GNU parallel's list of machines (':' is this one).")
      :argname("FILE")
    option(p, "--out", "The sweep's directory: jobs/<id>.json, results.csv (default sweep-NAME, "
      .. "NAME the plan's name).")
      :argname("DIR")
    option(p, "--timeout", "Seconds a job may take (over the plan's timeout); a job past it is "
      .. "recorded as timed out.")
      :argname("S"):convert(function(s)
        local v = tonumber(s)
        if not v or not (v > 0) or v == math.huge then
          return nil, ("--timeout takes seconds > 0, got '%s'"):format(s)
        end
        return v
      end)
    p:flag("--dry-run", "List the jobs (id, state, command) and run nothing.")
    p:flag("--rerun-failed", "Run again the jobs recorded as failed or timed out (ok ones never run again).")
    option(p, "--job", "Run one job of the plan, by index (1-based) or id: its record goes to "
      .. "--out DIR's jobs/ (unless it is recorded ok), or without --out to standard output.")
      :argname("K")
    option(p, "--merge", "Merge DIR's records: DIR/results.csv (or -o) and the summary; no plan.")
      :argname("DIR")
    option(p, "-o --output", "The merged CSV file to write (default DIR/results.csv).")
      :argname("FILE.csv")
    p:flag("--json", "Print the summary as JSON.")
  end,
  run = function(a)
    local sweep, run = require "cgwb.sweep", require "cgwb.drive.sweeprun"
    if a.merge then
      if a.plan then fail(2, "--merge DIR takes no plan") end
      return run.merge(a.merge, a)
    end
    if not a.plan then fail(2, "cgwb sweep needs a PLAN.lua (or --merge DIR)") end
    local plan = check(sweep.load_plan(readable(a.plan)))
    local jobs = check(sweep.expand(plan))
    if a.timeout then for _, j in ipairs(jobs) do j.timeout = a.timeout end end
    if a.job and not a.out then -- a job's record on stdout (the parallel and ssh runners read it)
      io.write(sweep.record_line(sweep.run_job(run.find(jobs, a.job), { cgwb = run.command() })))
      return
    end
    local dir = a.out or ("sweep-" .. plan.name)
    if a.runner == "ssh" and not a.sshloginfile then fail(2, "--runner ssh needs --sshloginfile FILE") end
    if a.runner ~= "ssh" and a.sshloginfile then fail(2, "--sshloginfile goes with --runner ssh") end
    if a.jobs and a.runner ~= "parallel" and a.runner ~= "ssh" then
      fail(2, "--jobs goes with --runner parallel or ssh")
    end
    if (a.runner == "parallel" or a.runner == "ssh") and not a.dry_run
        and not os.execute("command -v parallel >/dev/null 2>&1") then
      fail(2, "--runner " .. a.runner .. " needs GNU parallel on the PATH (Debian package parallel)")
    end
    if a.runner == "slurm" and not a.dry_run then return run.slurm(plan, jobs, dir, a) end
    local todo = {}
    for _, j in ipairs(a.job and { run.find(jobs, a.job) } or jobs) do
      if sweep.pending(dir, j, a.rerun_failed or a.job ~= nil) then todo[#todo + 1] = j end
    end
    if a.dry_run then
      for _, j in ipairs(jobs) do
        local rec = sweep.read_record(dir, j.id)
        local cmd = {}
        for i, x in ipairs(j.args) do cmd[i] = sweep.shell_quote(x) end
        io.write(("%s %s cgwb %s\n"):format(j.id, rec and rec.status or "todo", table.concat(cmd, " ")))
      end
      io.write(("%d jobs, %d to run\n"):format(#jobs, #todo))
      return
    end
    os.execute("mkdir -p " .. sweep.shell_quote(dir .. "/jobs"))
    local r = sweep.progress("sweep jobs", #todo, a.quiet)
    if a.runner == "local" then
      run.run_local(todo, dir, r)
    elseif #todo > 0 then
      run.parallel(plan, todo, dir, a, r)
    end
    r:finish()
    if a.job then return end
    io.stderr:write(("cgwb sweep: %s: %d jobs, %d run, %d already recorded\n"):format(plan.path, #jobs, #todo,
      #jobs - #todo))
    local ids = {}
    for _, j in ipairs(jobs) do ids[j.id] = true end
    run.merge(dir, a, ids)
  end,
}

return M
