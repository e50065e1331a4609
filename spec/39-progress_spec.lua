-- spec/39-progress_spec.lua: progress on stderr (doc/usage.md, "Progress and
-- --quiet").  The work is a chain of 140000 products (a text tape written
-- here), long enough for the core's loops to report between start and end
-- (they report every 2^16 units).  CGWB_PROGRESS_DELAY=0 makes every piece
-- of work count as long, so nothing here depends on how fast the machine is.
local H = require "spec.helper"

local NCHAIN = 140000

local function chain_tape()
  local path = H.tmp(".txt")
  local lines = { "assign_ind 0 1.5", "assign_ind 1 0.5", "assign_ind 2 1.0", "assign_ind 3 -1.0",
                  "plus_a_a 4 0 1" }
  for i = 1, NCHAIN do lines[#lines + 1] = ("mult_a_a 4 4 %d"):format(i % 4) end
  lines[#lines + 1] = "assign_dep 4\n"
  return H.write(path, table.concat(lines, "\n"))
end

local tape = chain_tape()
local mtx = H.tmp(".mtx")

-- Runs cgwb with the environment settings env (VAR=value words): stdout,
-- stderr, exit status.
local function run(env, args) return H.cgwb(args, env) end

local JAC = "jacobian " .. tape .. " --json -o " .. mtx

-- The pieces of a terminal's stderr: each redraw (text after a \r, up to
-- the next \r or newline), in order.
local function redraws(err)
  local out = {}
  for piece in err:gmatch("\r([^\r\n]*)") do out[#out + 1] = piece end
  return out
end

describe("progress on a terminal (CGWB_PROGRESS=always)", function()
  local out, err, code = run("CGWB_PROGRESS=always CGWB_PROGRESS_DELAY=0", JAC)

  it("runs the command as without progress", function()
    assert.equal(0, code)
    assert.truthy(out:match('"mults"'))
  end)

  it("redraws a line in place with percentage, count, rate and time left", function()
    local lines = redraws(err)
    local mid = {}
    for _, l in ipairs(lines) do
      local what = l:match("^cgwb: (.-) %d+%% %d+/%d+ [%d.]+[kMG]?/s [%d.]+ s left\27%[K$")
      if what then mid[what] = true end
    end
    for _, stage in ipairs { "building graph", "linearizing", "eliminating" } do
      assert.is_true(mid[stage], stage .. " has no line with a percentage and time left:\n" .. err)
    end
  end)

  it("closes each piece of work by a line with the time taken and a newline", function()
    for _, stage in ipairs { "reading tape", "building graph", "linearizing", "eliminating" } do
      local pat = "\rcgwb: " .. stage:gsub("%p", "%%%0") .. " 100%% (%d+)/(%d+) [%d.]+[kMG]?/s in [%d.]+ s\27%[K\n"
      local a, b = err:match(pat)
      assert.is_truthy(a, stage .. " has no last line:\n" .. err)
      assert.equal(a, b)
      assert.is_true(tonumber(a) >= NCHAIN)
    end
    assert.equal("\n", err:sub(-1))
    assert.is_nil(err:find("\n\n", 1, true)) -- no empty line
  end)

  it("writes nothing for work shorter than CGWB_PROGRESS_DELAY", function()
    local _, e2, c2 = run("CGWB_PROGRESS=always CGWB_PROGRESS_DELAY=100000", JAC)
    assert.equal(0, c2)
    assert.equal("", e2)
  end)
end)

describe("the exact search's line", function()
  local EXACT = "eliminate examples/graphs/lion.cg --order exact"

  it("is drawn by the same renderer: states, then incumbent, bound and gap", function()
    local _, err, code = run("CGWB_PROGRESS=always CGWB_PROGRESS_DELAY=0", EXACT .. " -o /dev/null")
    assert.equal(0, code)
    assert.truthy(err:match("\rcgwb: exact search %d+[^\r\n]* in [%d.]+ s; incumbent 12, bound 12, gap 0%.00%%, "
      .. "[%d.]+/60 s\27%[K\n"), err)
  end)

  it("is left out with --json, as before", function()
    local _, err, code = run("CGWB_PROGRESS=always CGWB_PROGRESS_DELAY=0", EXACT .. " --json")
    assert.equal(0, code)
    assert.is_nil(err:find("exact search", 1, true))
    assert.truthy(err:find("cgwb: annealing", 1, true)) -- the rest of the work still shows
  end)
end)

describe("--quiet and CGWB_PROGRESS=never", function()
  it("--quiet leaves stderr empty", function()
    local out, err, code = run("CGWB_PROGRESS=always CGWB_PROGRESS_DELAY=0", JAC .. " --quiet")
    assert.equal(0, code)
    assert.truthy(out:match('"mults"'))
    assert.equal("", err)
  end)

  it("never leaves stderr empty", function()
    local _, err, code = run("CGWB_PROGRESS=never CGWB_PROGRESS_DELAY=0", JAC)
    assert.equal(0, code)
    assert.equal("", err)
  end)

  it("every command takes --quiet", function()
    local cli = require "cgwb.cli"
    for _, name in ipairs(cli.order) do
      local _, subs = cli.build_parser(name)
      assert.truthy(subs[name]:get_help():find("--quiet", 1, true), name .. " has no --quiet")
    end
  end)
end)

describe("progress in a log (stderr not a terminal, CGWB_PROGRESS=auto)", function()
  it("writes exactly one line per long piece of work, at its end", function()
    local _, err, code = run("CGWB_PROGRESS=auto CGWB_PROGRESS_DELAY=0", JAC)
    assert.equal(0, code)
    assert.is_nil(err:find("\r", 1, true))
    assert.is_nil(err:find("\27", 1, true))
    local stages = {}
    for line in err:gmatch("[^\n]+") do
      local what, n = line:match("^cgwb: (.-): (%d+) in [%d.]+ s$")
      assert.is_truthy(what, "not a summary line: " .. line)
      stages[#stages + 1] = what
      assert.is_true(tonumber(n) >= NCHAIN, line)
    end
    assert.same({ "reading tape", "building graph", "linearizing", "eliminating" }, stages)
  end)
end)

describe("the Lua helper (cgwb.progress)", function()
  local script = H.write(H.tmp(".lua"), [[
local progress = require "cgwb.progress"
assert(cgwb.progress == progress)
local r = progress.start("counting", 10)
r:update(5)
r:finish(10)
io.write(tostring(progress.enabled()), " ", tostring(progress.quiet()), "\n")
progress.quiet(true)
local q = progress.start("hidden", 2)
q:update(1)
q:finish(2)
io.write(tostring(progress.enabled()), " ", tostring(progress.quiet()), "\n")
]])

  it("draws the same line as the core's on a terminal", function()
    local out, err, code = run("CGWB_PROGRESS=always CGWB_PROGRESS_DELAY=0", "run " .. script)
    assert.equal(0, code)
    assert.equal("true false\nfalse true\n", out)
    assert.truthy(err:match("^\rcgwb: counting 50%% 5/10 [%d.]+[kMG]?/s [%d.]+ s left\27%[K"
      .. "\rcgwb: counting 100%% 10/10 [%d.]+[kMG]?/s in [%d.]+ s\27%[K\n$"), err)
  end)

  it("writes one summary line in a log, and nothing once quiet", function()
    local _, err, code = run("CGWB_PROGRESS=auto CGWB_PROGRESS_DELAY=0", "run " .. script)
    assert.equal(0, code)
    assert.truthy(err:match("^cgwb: counting: 10 in [%d.]+ s\n$"), err)
  end)

  it("reports bad arguments", function()
    local progress = require "cgwb.progress"
    assert.has_error(function() progress.start(42) end)
    assert.has_error(function() progress.start("x", 10):update(-1) end)
  end)
end)

describe("the quiet flag belongs to a Lua state", function()
  it("a state's --quiet does not silence another state in the process", function()
    -- spec/c/test_lua_progress.c checks two lua_States side by side; here,
    -- the flag of this state is seen by the module however it is reached
    local progress = require "cgwb.progress"
    local core = require "cgwb.core"
    local was = progress.quiet()
    progress.quiet(true)
    assert.is_true(core.progress_quiet())
    assert.is_true(require("cgwb").progress.quiet())
    progress.quiet(false)
    assert.is_false(core.progress_quiet())
    progress.quiet(was)
  end)
end)
