#!/usr/bin/env lua5.4
-- scripts/mutation.lua: the tests must catch hand-made mutants of the core.
--
-- Each row of spec/mutants.lua names a file, an exact text that occurs in it
-- once, the text that replaces it (a mistake a reviewer would try), and the
-- tests that must then fail.  On a scratch copy of the tree, the script
-- applies one mutant at a time, rebuilds (release, incrementally), runs the
-- mutant's tests, and expects a failure; a mutant the tests let through (or
-- one whose text is not found once: the table has gone stale) is a failure.
-- Ends with "mutation: N passed, N failed" (passed = mutants caught).
--
-- The scratch core is built at -O1 (the tests check values, not speed), only
-- the two targets the tests load (cgwb/core.so, libcgwbcore.a); a mutant's
-- busted spec stops at its first failure (--no-keep-going).  --shard K/N takes
-- the K-th of N shards, rows grouped by the tests they name (a group's tests
-- are checked on the unmutated tree once), so shards can run side by side,
-- each in its own scratch copy (scripts/run-tests.sh).
--
--   lua5.4 scripts/mutation.lua [--shard K/N] [NAME ...]   (all rows by default)
local function sh(cmd)
  local ok = os.execute(cmd)
  return ok == true
end

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local function write(path, s)
  local f = assert(io.open(path, "wb"))
  f:write(s)
  f:close()
end

local function count(s, sub)
  local n, i = 0, 1
  while true do
    local a, b = s:find(sub, i, true)
    if not a then return n end
    n, i = n + 1, b + 1
  end
end

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- The shell command that runs one test: "spec/NN_spec.lua" (busted) or
-- "c:test_NAME" (a C unit test against the scratch build's core library);
-- "spec/NN_spec.lua::PATTERN" runs only the tests whose names match PATTERN
-- (a Lua pattern without spaces), where the whole file would take minutes.
local function test_command(t, first_failure)
  local c = t:match("^c:(.+)$")
  if c then
    return ("cc -std=c99 -O1 -Icsrc spec/c/%s.c build/release/libcgwbcore.a -lColPack -lgomp -lstdc++ -lm -o build/%s && build/%s")
      :format(c, c, c)
  end
  local file, filter = t:match("^(.-)::(.+)$") -- "spec/NN_spec.lua::PATTERN": the tests busted's --filter picks
  return "CGWB_BUILD=build/release CGWB_TMP=build/release/spec-tmp lua5.4 /usr/bin/busted "
    .. (first_failure and "--no-keep-going " or "") .. (filter and "--filter=" .. quote(filter) .. " " .. file or t)
end

local BUILD = "make -s OPT='-O1 -DNDEBUG' build/release/cgwb/core.so build/release/libcgwbcore.a"

local root = (arg[0]:match("^(.*)/scripts/[^/]*$") or ".")
local mutants = dofile(root .. "/spec/mutants.lua")
local want, shard, nshards = {}, 1, 1
do
  local i = 1
  while i <= #arg do
    if arg[i] == "--shard" then
      shard, nshards = (arg[i + 1] or ""):match("^(%d+)/(%d+)$")
      shard, nshards = tonumber(shard), tonumber(nshards)
      assert(shard and shard >= 1 and shard <= nshards, "--shard K/N with 1 <= K <= N")
      i = i + 2
    else
      want[arg[i]] = true
      i = i + 1
    end
  end
end
-- The rows of this shard: groups of rows naming the same tests, the g-th group
-- (in the table's order of first appearance) in shard (g - 1) % N + 1.
local group_of, ngroups = {}, 0
local function in_shard(m)
  local key = table.concat(m.tests, " ")
  if not group_of[key] then ngroups = ngroups + 1; group_of[key] = ngroups end
  return (group_of[key] - 1) % nshards + 1 == shard
end
local mine = {}
for _, m in ipairs(mutants) do
  if in_shard(m) and (next(want) == nil or want[m.name]) then mine[#mine + 1] = m end
end

local scratch = os.getenv("CGWB_MUTATION_DIR") or
  assert(io.popen("mktemp -d " .. (os.getenv("TMPDIR") or "/tmp") .. "/cgwb-mutation.XXXXXX")):read("l")
assert(sh(("cd %s && tar --exclude=./build --exclude=./.git --exclude=./examples/build -cf - . | (cd %s && tar xf -)")
  :format(quote(root), quote(scratch))), "cannot copy the tree")
assert(sh(("cd %s && %s >/dev/null"):format(quote(scratch), BUILD)), "the unmutated tree does not build")

-- Every test a row names exists and passes on the unmutated tree, or a
-- failing test would "catch" every mutant.
local passed, failed, tests, seen = 0, 0, {}, {}
for _, m in ipairs(mine) do
  for _, t in ipairs(m.tests) do
    if not seen[t] then seen[t] = true; tests[#tests + 1] = t end
  end
end
for _, t in ipairs(tests) do
  local file = t:match("^c:(.+)$") and ("spec/c/" .. t:match("^c:(.+)$") .. ".c") or t:match("^(.-)::") or t
  local f = io.open(scratch .. "/" .. file, "r")
  if f then f:close() end
  if not f or not sh(("cd %s && (%s) >/dev/null 2>&1"):format(quote(scratch), test_command(t))) then
    print(("%-28s %s"):format(t, f and "fails on the unmutated tree" or "no such test"))
    failed = failed + 1
  end
end

for _, m in ipairs(mine) do
  local t0 = os.time()
  local path = scratch .. "/" .. m.file
  local orig = read(path)
  local n = count(orig, m.from)
  local verdict
  if n ~= 1 then
    verdict = ("stale: the text occurs %d times in %s"):format(n, m.file)
  else
    local a = orig:find(m.from, 1, true)
    write(path, orig:sub(1, a - 1) .. m.to .. orig:sub(a + #m.from))
    if not sh(("cd %s && %s >/dev/null 2>&1"):format(quote(scratch), BUILD)) then
      verdict = "caught (does not build)"
    else
      local caught = false
      for _, t in ipairs(m.tests) do
        if not sh(("cd %s && (%s) >/dev/null 2>&1"):format(quote(scratch), test_command(t, true))) then
          caught = true
          break
        end
      end
      verdict = caught and "caught" or "NOT caught by " .. table.concat(m.tests, ", ")
    end
    write(path, orig)
  end
  if verdict:match("^caught") then passed = passed + 1 else failed = failed + 1 end
  print(("%-40s %s (%d s)"):format(m.name, verdict, os.time() - t0))
  io.stdout:flush()
end
if os.getenv("CGWB_MUTATION_DIR") then -- kept: leave it built as the tree is
  sh(("cd %s && %s >/dev/null 2>&1"):format(quote(scratch), BUILD))
else
  sh("rm -rf " .. quote(scratch))
end
print(("mutation: %d passed, %d failed"):format(passed, failed))
os.exit(failed == 0 and 0 or 1)
