-- Shared by the specs: paths, the command, temporary files.
local M = {}

M.build = os.getenv("CGWB_BUILD") or "build/release"
package.cpath = M.build .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path

M.tmpdir = os.getenv("CGWB_TMP") or "spec/tmp"
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

--- Runs the cgwb command; returns stdout, stderr, exit status.
function M.cgwb(args)
  local out, err = M.tmp(".out"), M.tmp(".err")
  local cmd = ("CGWB_BUILD=%s scripts/cgwb %s >%s 2>%s"):format(M.build, args, out, err)
  local _, _, code = os.execute(cmd)
  local o, e = M.read(out), M.read(err)
  os.remove(out)
  os.remove(err)
  return o, e, code
end

return M
