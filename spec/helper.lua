-- Shared by the specs: paths, the command, temporary files.
local M = {}

M.build = os.getenv("CGWB_BUILD") or "build/release"
package.cpath = M.build .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path

M.tmpdir = os.getenv("CGWB_TMP") or "spec/tmp"
-- The sanitizer phase (scripts/run-tests.sh): the runtimes a program that
-- loads the instrumented module must preload, and the directory of the Lua
-- wrapper that preloads them (first on PATH); nil in the release phase.
M.san_preload = os.getenv("CGWB_SAN_PRELOAD")
M.san_bin = os.getenv("CGWB_SAN_BIN")
--- The number of generated cases a property check draws: n in the release
-- phase, the smaller san_n in the sanitizer phase, whose point is the
-- instrumented core's memory errors (the release phase checks the values
-- on all n; the sanitizer phase's core runs several times slower).
function M.sized(n, san_n) return M.san_preload and san_n or n end
os.execute("mkdir -p " .. M.tmpdir)

local counter = 0
--- A fresh temporary path with the given suffix.
function M.tmp(suffix)
  counter = counter + 1
  return ("%s/t%d_%d%s"):format(M.tmpdir, math.floor(os.clock() * 1e6) % 1000000, counter, suffix or "")
end

function M.write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path
end

function M.read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

--- The bytes of path, or nil when it cannot be opened.
function M.read_or_nil(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

--- Bitwise equality of two numbers (tells -0 from 0; a NaN equals the same NaN).
function M.same_bits(a, b)
  return string.pack("<d", a) == string.pack("<d", b)
end

--- Asserts two arrays of numbers are bitwise equal, naming the first difference.
function M.assert_bits(a, b, what)
  assert(#a == #b, ("%s: count %d ~= %d"):format(what, #a, #b))
  for i = 1, #a do
    if not M.same_bits(a[i], b[i]) then
      error(("%s: value %d: %.17g ~= %.17g"):format(what, i, a[i], b[i]), 2)
    end
  end
end

-- Largest relative difference of two sorted sparse Jacobians (huge when the
-- patterns differ).
function M.jdiff(a, b)
  if a.nnz ~= b.nnz or a.m ~= b.m or a.n ~= b.n then return math.huge end
  local d = 0
  for k = 1, a.nnz do
    if a.rows[k] ~= b.rows[k] or a.cols[k] ~= b.cols[k] then return math.huge end
    d = math.max(d, math.abs(a.vals[k] - b.vals[k]) / math.max(1, math.abs(b.vals[k])))
  end
  return d
end

-- The Jacobian without explicit zeros (sweeps drop them; elimination may
-- keep an entry that cancels to zero).
function M.nozeros(J)
  local r = { m = J.m, n = J.n, rows = {}, cols = {}, vals = {}, nnz = 0 }
  for k = 1, J.nnz do
    if J.vals[k] ~= 0 then
      r.nnz = r.nnz + 1
      r.rows[r.nnz], r.cols[r.nnz], r.vals[r.nnz] = J.rows[k], J.cols[k], J.vals[k]
    end
  end
  return r
end

--- Runs the cgwb command (with the environment settings env, "VAR=value"
-- words, when given); returns stdout, stderr, exit status.
function M.cgwb(args, env)
  local out, err = M.tmp(".out"), M.tmp(".err")
  local cmd = ("env %s CGWB_BUILD=%s scripts/cgwb %s >%s 2>%s"):format(env or "", M.build, args, out, err)
  local _, _, code = os.execute(cmd)
  local o, e = M.read(out), M.read(err)
  os.remove(out)
  os.remove(err)
  return o, e, code
end

--- The stdout of a C program's text, compiled as cc -std=c99 (raises if it
-- does not compile).
function M.run_c(text)
  local src, exe = M.tmp(".c"), M.tmp(".exe")
  M.write(src, text)
  assert(os.execute(("cc -std=c99 -o %s %s -lm"):format(exe, src)), "does not compile: " .. src)
  local p = assert(io.popen(exe))
  local out = p:read("a")
  p:close()
  os.remove(src); os.remove(exe)
  return out
end

return M
