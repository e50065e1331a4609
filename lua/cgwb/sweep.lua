--- Sweeps: a plan (inputs x orderings x modes x seeds x budgets) expanded into
-- independent jobs, each a `cgwb jacobian` or `cgwb eliminate` run whose
-- outcome is one JSON line in DIR/jobs/<id>.json; the merge of those lines is
-- one deterministic CSV and a summary table (doc/sweep.md).
--
-- A job's id is a hash of its parameters (never of its position in the
-- plan), so adding an input or an ordering to a plan leaves the ids, and the
-- records, of the jobs already done unchanged.
-- @module cgwb.sweep
local json = require "cgwb.json"

local M = {}

-- {==== plans ====}

--- The keys a plan may have, each with its check and default (doc/sweep.md).
M.PLAN_KEYS = { "name", "inputs", "orderings", "modes", "seeds", "budgets", "timeout", "command", "extra" }

M.MODES = { vertex = true, edge = true, face = true }
M.COMMANDS = { jacobian = true, eliminate = true }

-- The line of the plan's source where `key =` first appears (0 if none):
-- messages about a key then point at it.
local function key_line(src, key)
  local ln = 0
  key = key:gsub("%p", "%%%0")
  for line in (src .. "\n"):gmatch("([^\n]*)\n") do
    ln = ln + 1
    if line:match("^%s*" .. key .. "%s*=") or line:match("[{,;]%s*" .. key .. "%s*=") then return ln end
  end
  return 0
end

-- "FILE:LINE: " for the key's line in the plan, or "FILE: ".
local function where(plan_path, src, key)
  local ln = src and key and key_line(src, key) or 0
  if ln > 0 then return ("%s:%d: "):format(plan_path, ln) end
  return plan_path .. ": "
end

-- Checks that v is a list of values of type ty (or of integers: ty "integer");
-- returns v or nil, message.
local function list_of(v, key, ty)
  if type(v) ~= "table" then return nil, ("%s must be a list, got %s"):format(key, type(v)) end
  local n = #v
  for k in pairs(v) do
    if math.type(k) ~= "integer" or k < 1 or k > n then
      return nil, ("%s must be a list (1..n), has key '%s'"):format(key, tostring(k))
    end
  end
  if n == 0 then return nil, key .. " is empty" end
  for i, x in ipairs(v) do
    local ok = ty == "integer" and math.type(x) == "integer" and x >= 0 or type(x) == ty
    if not ok then return nil, ("%s[%d] must be %s, got %s"):format(key, i,
      ty == "integer" and "an integer >= 0" or "a " .. ty, tostring(x)) end
  end
  return v
end

--- Checks a plan table; returns it with defaults filled in, or nil, message
-- (the message names the key, and the file:line when the source is known).
function M.check_plan(plan, plan_path, src)
  plan_path = plan_path or "plan"
  if type(plan) ~= "table" then return nil, plan_path .. ": a plan returns a table, got " .. type(plan) end
  local known = {}
  for _, k in ipairs(M.PLAN_KEYS) do known[k] = true end
  local unknown = {}
  for k in pairs(plan) do
    if not known[k] then unknown[#unknown + 1] = tostring(k) end
  end
  table.sort(unknown)
  if unknown[1] then
    return nil, ("%sunknown key '%s' in the plan (keys: %s)"):format(where(plan_path, src, unknown[1]), unknown[1],
      table.concat(M.PLAN_KEYS, ", "))
  end
  local p = {}
  local function bad(key, msg) return nil, where(plan_path, src, key) .. msg end
  if plan.name ~= nil and (type(plan.name) ~= "string" or not plan.name:match("^[%w_.%-]+$")) then
    return bad("name", "name must be a string of letters, digits, '_', '.' and '-'")
  end
  p.name = plan.name or (plan_path:match("([^/]*)$"):gsub("%.lua$", ""))
  if plan.inputs == nil then return bad(nil, "the plan has no inputs") end
  local lists = { { "inputs", "string" }, { "orderings", "string", { "markowitz" } },
                  { "modes", "string", { "vertex" } },
                  { "seeds", "integer", { 1 } }, { "budgets", "integer", { 200 } } }
  for _, l in ipairs(lists) do
    local key, ty, default = l[1], l[2], l[3]
    if plan[key] == nil then
      p[key] = default
    else
      local v, err = list_of(plan[key], key, ty)
      if not v then return bad(key, err) end
      p[key] = v
    end
  end
  for i, mode in ipairs(p.modes) do
    if not M.MODES[mode] then return bad("modes", ("modes[%d]: '%s' is not vertex, edge or face"):format(i, mode)) end
  end
  local t = plan.timeout
  if t ~= nil and (type(t) ~= "number" or not (t > 0) or t == math.huge) then
    return bad("timeout", "timeout must be a number of seconds > 0")
  end
  p.timeout = plan.timeout
  if plan.command ~= nil and not M.COMMANDS[plan.command] then
    return bad("command", ("command must be jacobian or eliminate, got '%s'"):format(tostring(plan.command)))
  end
  p.command = plan.command
  if plan.extra ~= nil then
    if type(plan.extra) ~= "table" or (next(plan.extra) ~= nil and not list_of(plan.extra, "extra", "string")) then
      return bad("extra", "extra must be a list of strings (arguments added to every job's command)")
    end
  end
  p.extra = plan.extra or {}
  return p
end

--- Reads a plan file (a Lua chunk returning a table); returns the checked
-- plan or nil, message.  plan.dir is the file's directory: the plan's paths
-- are relative to it.
function M.load_plan(path)
  -- a plug-in (cgwb.util.plugin): a plan's globals stay its own, cgwb is preloaded
  local ok, plan, src = require("cgwb.util.errors").catch(require("cgwb.util.plugin").load, path,
                                                         { on_error = "raw" })
  if not ok then return nil, plan end
  local p, cerr = M.check_plan(plan, path, src)
  if not p then return nil, cerr end
  p.path, p.dir = path, path:match("^(.*)/[^/]*$") or "."
  return p
end

-- {==== expansion ====}

-- "a/./b" and "a/x/../b" made plain, so one file has one spelling.
local function normalize(path)
  local abs, parts = path:sub(1, 1) == "/", {}
  for part in path:gmatch("[^/]+") do
    if part == ".." and parts[1] and parts[#parts] ~= ".." then
      parts[#parts] = nil
    elseif part ~= "." then
      parts[#parts + 1] = part
    end
  end
  local s = table.concat(parts, "/")
  if abs then return "/" .. s end
  return s == "" and "." or s
end

--- A path relative to the plan's directory, as the filesystem sees it.
-- @function resolve
local function resolve(dir, path)
  if path:sub(1, 1) == "/" or dir == "." then return path end
  return normalize(dir .. "/" .. path)
end
M.resolve = resolve

--- s quoted for a POSIX shell (single quotes).
-- @function shell_quote
local function shell_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
M.shell_quote = shell_quote

-- A glob's last part as a Lua pattern: * ? and [...] (as sh; no '/' in them).
local function glob_pattern(g)
  local out, i = { "^" }, 1
  while i <= #g do
    local c = g:sub(i, i)
    if c == "*" then out[#out + 1] = "[^/]*"
    elseif c == "?" then out[#out + 1] = "[^/]"
    elseif c == "[" and g:find("]", i + 1, true) then
      local j = g:find("]", i + 1, true)
      out[#out + 1] = "[" .. g:sub(i + 1, j - 1):gsub("^!", "^"):gsub("%%", "%%%%") .. "]"
      i = j
    else out[#out + 1] = c:gsub("%p", "%%%0") end
    i = i + 1
  end
  return table.concat(out) .. "$"
end

-- The files a pattern (relative to dir) names, sorted bytewise, as written
-- relative to dir.  Wildcards only in the last part of the path.
local function glob(dir, pattern)
  local head, last = pattern:match("^(.*/)([^/]*)$")
  head, last = head or "", last or pattern
  if not last:find("[*?[]") then
    local f = io.open(resolve(dir, pattern), "rb")
    if f then f:close() return { normalize(pattern) } end
    return {}
  end
  local pat, names = glob_pattern(last), {}
  local p = io.popen("ls -A -- " .. shell_quote(resolve(dir, head == "" and "." or head)) .. " 2>/dev/null")
  for name in p:lines() do
    if name:match(pat) and not (name:sub(1, 1) == "." and last:sub(1, 1) ~= ".") then
      names[#names + 1] = normalize(head .. name)
    end
  end
  p:close()
  table.sort(names)
  return names
end

--- FNV-1a, 64 bits, as 16 hex digits: the job's id from its parameters.
-- @function hash
local function hash(s)
  local h = -3750763034362895579 -- 0xcbf29ce484222325
  for i = 1, #s do
    h = h ~ s:byte(i)
    h = h * 1099511628211
  end
  return ("%016x"):format(h)
end
M.hash = hash

-- The command a file gets when the plan names none: graph files are eliminated,
-- everything else is a tape.
local function command_for(path)
  if path:match("%.cg$") or path:match("%.eliad$") then return "eliminate" end
  return "jacobian"
end

-- The text hashed into a job's id: its parameters, one a line (not the
-- timeout: a job that timed out keeps its id under a longer one).
local function key_text(j)
  return table.concat({ "cgwb-sweep-job 1", j.command, j.input, j.order, j.mode, tostring(j.seed),
    tostring(j.budget), table.concat(j.extra, "\0") }, "\n")
end

-- Refuses, before any job runs, an ordering name that a mode does not have
-- (elim.resolve, as --order) and a Lua ordering file that does not exist.
local function check_orderings(plan, where_)
  local elim = require "cgwb.elim"
  for i, order in ipairs(plan.orderings) do
    if order:match("%.lua$") then
      local f = io.open(resolve(plan.dir or ".", order), "rb")
      if not f then return nil, ("%sorderings[%d]: no file '%s'"):format(where_, i, order) end
      f:close()
    else
      for _, mode in ipairs(plan.modes) do
        local ok, err = elim.resolve(order, mode)
        if not ok then return nil, ("%sorderings[%d]: %s"):format(where_, i, err) end
      end
    end
  end
  return true
end

--- Expands a checked plan into its jobs, in the order inputs (each pattern's
-- files sorted), orderings, modes, seeds, budgets.  Each job: id, index
-- (1-based), command, input, order, mode, seed, budget, extra (as written in
-- the plan, relative to its directory), timeout, and args (the cgwb command
-- line, paths resolved against the plan's directory).  Returns jobs or nil,
-- message (a pattern that names no file, an ordering a mode does not have, a
-- Lua ordering file that is not there).
function M.expand(plan)
  local dir, jobs, seen = plan.dir or ".", {}, {}
  local ok, err = check_orderings(plan, (plan.path or "plan") .. ": ")
  if not ok then return nil, err end
  for i, pattern in ipairs(plan.inputs) do
    local files = glob(dir, pattern)
    if not files[1] then
      return nil, ("%s: inputs[%d]: no file matches '%s'"):format(plan.path or "plan", i, pattern)
    end
    for _, input in ipairs(files) do
      for _, order in ipairs(plan.orderings) do
        for _, mode in ipairs(plan.modes) do
          for _, seed in ipairs(plan.seeds) do
            for _, budget in ipairs(plan.budgets) do
              local j = { command = plan.command or command_for(input), input = input, order = order,
                          mode = mode, seed = seed, budget = budget, extra = plan.extra, timeout = plan.timeout }
              j.id = hash(key_text(j))
              if not seen[j.id] then -- a file two patterns match is one job
                seen[j.id] = true
                j.index = #jobs + 1
                local ord = order:match("%.lua$") and resolve(dir, order) or order
                j.args = { j.command, resolve(dir, input), "--order", ord, "--mode", mode, "--seed", tostring(seed),
                           "--budget", tostring(budget) }
                for _, x in ipairs(plan.extra) do j.args[#j.args + 1] = x end
                j.args[#j.args + 1] = "--json"
                j.args[#j.args + 1] = "--quiet"
                jobs[#jobs + 1] = j
              end
            end
          end
        end
      end
    end
  end
  return jobs
end

--- The files a job reads (its input and a Lua ordering), resolved: what the
-- ssh runner copies to each machine.
function M.job_files(job)
  local files = { job.args[2] }
  if job.order:match("%.lua$") then files[2] = job.args[4] end
  return files
end

-- }====

-- {==== running a job ====}

local read_file = require("cgwb.util.files").read_or_nil

-- The job's parameters as its record keeps them.
local function params(job)
  return { command = job.command, input = job.input, order = job.order, mode = job.mode, seed = job.seed,
           budget = job.budget, extra = json.array(job.extra) }
end

--- The record of a job that did not report (killed from outside, as GNU
-- parallel's --timeout does): status "timeout" or "failed".
function M.lost_record(job, status, exit, message, seconds)
  return { id = job.id, status = status, exit = exit, stderr = message, seconds = seconds or 0,
           params = params(job) }
end

--- Runs one job in a subprocess, under timeout(1) when the job has a
-- timeout (the command line: `cgwb COMMAND ... --json --quiet`); returns its record: id, status
-- (ok, failed, timeout), exit, stderr (its last line), seconds (wall clock),
-- params, result (the command's JSON, when ok).
-- opts.cgwb: the cgwb command (default "cgwb" on the PATH).
function M.run_job(job, opts)
  opts = opts or {}
  local out, err = os.tmpname(), os.tmpname()
  local argv = {}
  for i, a in ipairs(job.args) do argv[i] = shell_quote(a) end
  local limit = ""
  if job.timeout then limit = ("timeout -k 5 %.17g "):format(job.timeout) end
  local cmd = ("s=$(date +%%s%%N); CGWB_PROGRESS=never %s%s %s >%s 2>%s </dev/null; r=$?; "
    .. "echo \"$r $s $(date +%%s%%N)\""):format(limit, opts.cgwb or "cgwb", table.concat(argv, " "),
      shell_quote(out), shell_quote(err))
  local p = io.popen(cmd)
  local line = p:read("l") or ""
  p:close()
  local rc, t0, t1 = line:match("^(%d+) (%d+) (%d+)")
  rc = math.tointeger(tonumber(rc)) or 1
  local stdout, stderr = read_file(out) or "", read_file(err) or ""
  os.remove(out)
  os.remove(err)
  local last = ""
  for l in stderr:gmatch("[^\n]+") do last = l end
  local rec = { id = job.id, exit = rc, stderr = last, params = params(job),
                seconds = t0 and (tonumber(t1) - tonumber(t0)) / 1e9 or 0 }
  if job.timeout and (rc == 124 or rc == 137) then
    rec.status, rec.exit = "timeout", 124 -- what it wrote before it was killed would vary: not kept
    rec.stderr = ("timed out after %.17g s"):format(job.timeout)
  elseif rc ~= 0 then
    rec.status = "failed"
  else
    local res, jerr = json.decode(stdout, "stdout")
    if type(res) ~= "table" then
      rec.status, rec.stderr = "failed", "no JSON result: " .. tostring(jerr)
    else
      rec.status, rec.result = "ok", res
    end
  end
  return rec
end

--- A record as its one line of JSON (keys sorted; ends with a newline).
function M.record_line(rec) return json.encode(rec) .. "\n" end

--- Writes a record to DIR/jobs/<id>.json atomically (a temporary file in
-- the same directory, then renamed).  Returns true or nil, message.
function M.write_record(dir, rec)
  local path = ("%s/jobs/%s.json"):format(dir, rec.id)
  local tmp = ("%s/jobs/.%s.%d.tmp"):format(dir, rec.id, math.random(1 << 30))
  local f, err = io.open(tmp, "wb")
  if not f then return nil, err end
  local ok, werr = f:write(M.record_line(rec))
  local cok, cerr = f:close()
  if not (ok and cok) then os.remove(tmp) return nil, ("%s: %s"):format(tmp, werr or cerr) end
  local rok, rerr = os.rename(tmp, path)
  if not rok then os.remove(tmp) return nil, rerr end
  return true
end

--- The record of job id in dir, or nil.
function M.read_record(dir, id)
  local s = read_file(("%s/jobs/%s.json"):format(dir, id))
  if not s then return nil end
  local rec = json.decode(s, id .. ".json")
  if type(rec) ~= "table" then return nil end
  return rec
end

--- Whether a job is to run: no record yet, or (rerun_failed) a record that
-- is not ok.  An ok job is never run again.
function M.pending(dir, job, rerun_failed)
  local rec = M.read_record(dir, job.id)
  if not rec then return true end
  return rec.status ~= "ok" and rerun_failed == true
end

-- }====

-- {==== merge ====}

--- The CSV's columns, in order: parameters, outcome, then the command's
-- result fields (timings are left out: the CSV is the same bytes whatever
-- ran it; they stay in the JSON lines).
M.COLUMNS = { "input", "command", "mode", "order", "seed", "budget", "extra", "status", "exit",
              "n", "m", "nnz", "mults", "mults_nontrivial", "adds", "fill", "peak_edges", "steps",
              "vertices", "edges", "intermediates", "lower_bound", "proven", "message", "id" }

local RESULT = { n = true, m = true, nnz = true, mults = true, mults_nontrivial = true, adds = true, fill = true,
                 peak_edges = true, steps = true, vertices = true, edges = true, intermediates = true,
                 lower_bound = true, proven = true }

-- A record as a flat row (the columns' values, nil where absent).
local function row_of(rec)
  local p = rec.params or {}
  local r = { input = p.input, command = p.command, mode = p.mode, order = p.order, seed = p.seed,
              budget = p.budget, extra = table.concat(p.extra or {}, " "), status = rec.status,
              exit = rec.exit, id = rec.id }
  if rec.status ~= "ok" then r.message = rec.stderr end
  if type(rec.result) == "table" then
    for k in pairs(RESULT) do r[k] = rec.result[k] end
  end
  return r
end

-- Orders rows by their parameters (numbers as numbers), then id.
local function row_less(a, b)
  for _, k in ipairs { "input", "command", "mode", "order", "seed", "budget", "extra", "id" } do
    local x, y = a[k], b[k]
    if x ~= y then
      if type(x) == "number" and type(y) == "number" then return x < y end
      return tostring(x) < tostring(y)
    end
  end
  return false
end

--- Reads every DIR/jobs/*.json (with only, a set of ids: only those);
-- returns the rows sorted by parameters, or nil, message (a record that is
-- not JSON names its file).
function M.merge(dir, only)
  local p = io.popen("ls -A -- " .. shell_quote(dir .. "/jobs") .. " 2>/dev/null")
  local names = {}
  for name in p:lines() do
    if name:match("^%x+%.json$") and (not only or only[name:sub(1, -6)]) then names[#names + 1] = name end
  end
  if not p:close() then return nil, ("%s: no jobs/ directory: not a sweep's directory"):format(dir) end
  local rows = {}
  for _, name in ipairs(names) do
    local path = dir .. "/jobs/" .. name
    local rec, err = json.decode(read_file(path) or "", path)
    if type(rec) ~= "table" then return nil, err or (path .. ": not a record") end
    rows[#rows + 1] = row_of(rec)
  end
  table.sort(rows, row_less)
  return rows
end

-- One CSV field: integers as %d, other numbers %.17g, booleans true/false,
-- strings quoted when they hold a comma, quote or line break.
local function field(v)
  if v == nil or v == json.null then return "" end
  if type(v) == "number" then
    if math.type(v) == "integer" then return ("%d"):format(v) end
    return ("%.17g"):format(v)
  end
  v = tostring(v)
  if v:find('[,"\r\n]') then return '"' .. v:gsub('"', '""') .. '"' end
  return v
end

--- The rows as CSV text: a header of M.COLUMNS, then one line a row.
function M.csv(rows)
  local lines = { table.concat(M.COLUMNS, ",") }
  for _, r in ipairs(rows) do
    local f = {}
    for i, c in ipairs(M.COLUMNS) do f[i] = field(r[c]) end
    lines[#lines + 1] = table.concat(f, ",")
  end
  return table.concat(lines, "\n") .. "\n"
end

--- Per ordering x mode (sorted by ordering, then mode): jobs, ok, failed,
-- timeout, and the min, median (the lower one of an even count) and max of
-- mults over the ok jobs.  Returns { jobs =, ok =, failed =, timeout =, rows = {...} }.
function M.summary(rows)
  local groups, keys = {}, {}
  local total = { jobs = 0, ok = 0, failed = 0, timeout = 0 }
  for _, r in ipairs(rows) do
    local key = r.order .. "\0" .. r.mode
    local g = groups[key]
    if not g then
      g = { order = r.order, mode = r.mode, jobs = 0, ok = 0, failed = 0, timeout = 0, mults = {} }
      groups[key], keys[#keys + 1] = g, key
    end
    g.jobs, total.jobs = g.jobs + 1, total.jobs + 1
    local st = (r.status == "ok" or r.status == "timeout") and r.status or "failed"
    g[st], total[st] = g[st] + 1, total[st] + 1
    if st == "ok" and type(r.mults) == "number" then g.mults[#g.mults + 1] = r.mults end
  end
  table.sort(keys)
  total.rows = json.array {}
  for _, key in ipairs(keys) do
    local g = groups[key]
    table.sort(g.mults)
    local n = #g.mults
    if n > 0 then g.min, g.median, g.max = g.mults[1], g.mults[(n + 1) // 2], g.mults[n] end
    g.mults = nil
    total.rows[#total.rows + 1] = g
  end
  return total
end

--- The summary as an aligned text table.
function M.summary_text(s)
  local head = { "ordering", "mode", "jobs", "ok", "failed", "timeout", "min mults", "median", "max" }
  local cells = { head }
  for _, g in ipairs(s.rows) do
    cells[#cells + 1] = { g.order, g.mode, field(g.jobs), field(g.ok), field(g.failed), field(g.timeout),
                          field(g.min), field(g.median), field(g.max) }
  end
  local w = {}
  for _, r in ipairs(cells) do
    for i, c in ipairs(r) do w[i] = math.max(w[i] or 0, #c) end
  end
  local lines = {}
  for _, r in ipairs(cells) do
    local f = {}
    for i, c in ipairs(r) do f[i] = i <= 2 and ("%-" .. w[i] .. "s"):format(c) or ("%" .. w[i] .. "s"):format(c) end
    lines[#lines + 1] = (table.concat(f, "  "):gsub("%s+$", ""))
  end
  lines[#lines + 1] = ("%d jobs: %d ok, %d failed, %d timed out"):format(s.jobs, s.ok, s.failed, s.timeout)
  return table.concat(lines, "\n") .. "\n"
end

-- }====

-- {==== progress ====}

--- A progress reporter over n jobs from cgwb.progress when that module is
-- there (and quiet is not set); otherwise one that does nothing.
function M.progress(what, n, quiet)
  local none = { update = function() end, finish = function() end }
  if quiet then return none end
  local ok, progress = pcall(require, "cgwb.progress")
  if not ok or type(progress) ~= "table" or type(progress.start) ~= "function" then return none end
  local rok, r = pcall(progress.start, what, n)
  if not rok or not r then return none end
  return r
end

-- }====

return M
