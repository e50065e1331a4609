--- cgwb.drive.sweeprun: the runners of `cgwb sweep` (doc/sweep.md): the jobs
-- of a plan run here one after the other, with GNU parallel here or over ssh,
-- or written as a Slurm job array; their records merged into the CSV and the
-- summary.  cgwb.sweep holds the plan, the jobs and the records; this module
-- runs them.  `a` is the command's arguments (output, json, timeout, runner,
-- jobs, sshloginfile, rerun_failed, as cgwb.cli.sweep parses them).
-- Failures raise errors of cgwb.util.errors.
-- @module cgwb.drive.sweeprun
local errors = require "cgwb.util.errors"
local files = require "cgwb.util.files"
local fail, readable, write_text = errors.fail, files.readable, files.write_text

local M = {}

-- Unwraps a `nil, msg` result as a failure with status code (default 2).
local function check(v, msg, code)
  if v == nil then fail(code or 2, msg) end
  return v
end

--- The command a sweep's jobs run: the launcher this process runs as (made
-- absolute), else CGWB_COMMAND, else cgwb on the PATH.
function M.command()
  local self = arg and arg[0]
  if type(self) == "string" and self:match("cgwb$") and self:find("/") then
    local p = io.popen("realpath -- " .. require("cgwb.sweep").shell_quote(self) .. " 2>/dev/null")
    local abs = p:read("l")
    p:close()
    if abs and abs ~= "" then return abs end
  end
  return os.getenv("CGWB_COMMAND") or "cgwb"
end

--- The job the job option names: (jobs, which) -> job; which is a 1-based index
-- into the plan's jobs or a job's id (exit 2 when there is no such job).
function M.find(jobs, which)
  if #which == 16 and which:match("^%x+$") then
    for _, j in ipairs(jobs) do if j.id == which then return j end end
  else
    local k = math.tointeger(tonumber(which))
    if k and jobs[k] then return jobs[k] end
  end
  fail(2, ("--job %s: no such job (an index from 1 to %d or a job's id)"):format(which, #jobs))
end

--- Writes DIR/results.csv (or the output option's file) and prints the summary:
-- (dir, a [, only]); as JSON with --json; only: the ids of the plan's jobs (a
-- run merges its plan's records).
function M.merge(dir, a, only)
  local sweep = require "cgwb.sweep"
  local rows = check(sweep.merge(dir, only))
  write_text(a.output or (dir .. "/results.csv"), sweep.csv(rows))
  local s = sweep.summary(rows)
  if a.json then io.write(require("cgwb.json").encode(s, 2), "\n") else io.write(sweep.summary_text(s)) end
end

--- The parallel and ssh runners: (plan, todo, dir, a, r); GNU parallel runs
-- `cgwb sweep PLAN --job ID` (here or on the machines of --sshloginfile);
-- each job prints its record, which is written here; a job parallel killed
-- (--timeout) or that printed nothing gets a record from parallel's job log.
-- r: the progress reporter (cgwb.sweep.progress).
function M.parallel(plan, todo, dir, a, r)
  local sweep = require "cgwb.sweep"
  local q = sweep.shell_quote
  local ids, byid = {}, {}
  for i, j in ipairs(todo) do ids[i], byid[j.id] = j.id, j end
  write_text(dir .. "/todo.txt", table.concat(ids, "\n") .. "\n")
  local log = dir .. "/parallel.log"
  os.remove(log)
  local timeout = a.timeout or plan.timeout
  local remote = a.runner == "ssh"
  local job = ("CGWB_PROGRESS=never %s sweep %s --job {} --quiet%s"):format(remote and "cgwb" or q(M.command()),
    q(plan.path), timeout and (" --timeout %.17g"):format(timeout) or "")
  local opts = { "parallel", "--will-cite", "--joblog", q(log), "-a", q(dir .. "/todo.txt") }
  if a.jobs then opts[#opts + 1] = "--jobs " .. a.jobs end
  if timeout then opts[#opts + 1] = ("--timeout %.17g"):format(timeout * 1.5 + 10) end -- after timeout(1)'s own
  local only_here = true -- every login is ':' (this machine): nothing to copy
  for line in io.lines(readable(a.sshloginfile or "/dev/null")) do
    local here = line:match("^%s*:?%s*$") or line:match("^%s*%d+/:%s*$") or line:match("^%s*#")
    if not here then only_here = false end
  end
  if remote then
    opts[#opts + 1] = "--sshloginfile " .. q(a.sshloginfile) .. " --workdir ."
  end
  if remote and only_here and not os.execute("command -v cgwb >/dev/null 2>&1") then
    fail(2, "--runner ssh runs `cgwb` on each machine's PATH, and this machine (':') has none")
  end
  if remote and not only_here then
    local files, seen = { plan.path }, {}
    for _, j in ipairs(todo) do
      for _, f in ipairs(sweep.job_files(j)) do files[#files + 1] = f end
    end
    for _, f in ipairs(files) do
      if not seen[f] then seen[f] = true; opts[#opts + 1] = "--basefile " .. q(f) end
    end
  end
  local p = io.popen(table.concat(opts, " ") .. " " .. q(job) .. " </dev/null")
  local got, done = {}, 0
  for line in p:lines() do
    local rec = require("cgwb.json").decode(line, "job output")
    if type(rec) == "table" and byid[rec.id] and not got[rec.id] then
      got[rec.id] = true
      check(sweep.write_record(dir, rec), nil, 1)
      done = done + 1
      r:update(done)
    end
  end
  p:close()
  local fh = io.open(log, "r")
  for line in fh and fh:lines() or function() end do
    local f = {}
    for x in (line .. "\t"):gmatch("([^\t]*)\t") do f[#f + 1] = x end
    local id = f[9] and f[9]:match("%-%-job (%x+)")
    if id and byid[id] and not got[id] then
      got[id] = true
      local killed = tonumber(f[8]) ~= 0
      local rec = killed and timeout
        and sweep.lost_record(byid[id], "timeout", 124, ("killed by GNU parallel's --timeout after %.17g s")
          :format(timeout * 1.5 + 10), tonumber(f[4]))
        or sweep.lost_record(byid[id], "failed", tonumber(f[7]) or 1, f[7] == "127"
          and ("%s: cgwb: command not found (it must be on the PATH there)"):format(f[2])
          or ("no record from the job (exit %s, signal %s)"):format(f[7], f[8]), tonumber(f[4]))
      check(sweep.write_record(dir, rec), nil, 1)
    end
  end
  if fh then fh:close() end
  for _, j in ipairs(todo) do
    if not got[j.id] then
      check(sweep.write_record(dir, sweep.lost_record(j, "failed", 1, "GNU parallel did not run the job")), nil, 1)
    end
  end
end

--- The slurm runner: (plan, jobs, dir, a); writes DIR/sweep.sbatch, one array
-- task a job (by index), and says how to submit and merge it.
function M.slurm(plan, jobs, dir, a)
  local q = require("cgwb.sweep").shell_quote
  local p = io.popen("pwd")
  local cwd = p:read("l")
  p:close()
  local timeout = a.timeout or plan.timeout
  local lines = {
    "#!/bin/sh",
    ("# cgwb sweep %s: %d jobs, one array task each (doc/sweep.md); submit with: sbatch %s/sweep.sbatch")
      :format(plan.path, #jobs, dir),
    "#SBATCH --job-name=cgwb-" .. plan.name,
    ("#SBATCH --array=1-%d"):format(#jobs),
    ("#SBATCH --output=%s/slurm/%%A_%%a.log"):format(dir),
  }
  if timeout then lines[#lines + 1] = ("#SBATCH --time=%d"):format(math.ceil(timeout / 60) + 1) end
  lines[#lines + 1] = "cd " .. q(cwd) .. " || exit 1"
  lines[#lines + 1] = ("exec %s sweep %s --job \"$SLURM_ARRAY_TASK_ID\" --out %s --quiet%s%s"):format(q(M.command()),
    q(plan.path), q(dir), timeout and (" --timeout %.17g"):format(timeout) or "",
    a.rerun_failed and " --rerun-failed" or "")
  os.execute("mkdir -p " .. q(dir .. "/slurm"))
  write_text(dir .. "/sweep.sbatch", table.concat(lines, "\n") .. "\n")
  io.write(("%s/sweep.sbatch: %d array tasks; submit with `sbatch %s/sweep.sbatch`, then merge with "
    .. "`cgwb sweep --merge %s`\n"):format(dir, #jobs, dir, dir))
end

--- The local runner: (todo, dir, r [, cmd]); runs each job of todo here, one
-- after the other, and writes its record into dir (r: the progress reporter;
-- cmd: the command the jobs run, default M.command()).
function M.run_local(todo, dir, r, cmd)
  local sweep = require "cgwb.sweep"
  cmd = cmd or M.command()
  for k, j in ipairs(todo) do
    check(sweep.write_record(dir, sweep.run_job(j, { cgwb = cmd })), nil, 1)
    r:update(k)
  end
end

return M
