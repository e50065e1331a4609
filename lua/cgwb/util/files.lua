--- cgwb.util.files: the one wording for files that cannot be read or
-- written, shared by the command line and the drivers (cgwb.drive.*).
-- Failures raise input errors (cgwb.util.errors, exit status 2).
-- @module cgwb.util.files
local errors = require "cgwb.util.errors"

local M = {}

--- Checks that the file at path can be read: (path) -> path, or raises
-- "FILE: cannot open: REASON" (a directory too: it opens but cannot be read).
function M.readable(path)
  local fh, err = io.open(path, "rb")
  if not fh then
    errors.fail(2, ("%s: cannot open: %s"):format(path, (err or ""):gsub("^.-: ", "")))
  end
  local ok, why = fh:read(0) -- a directory opens but cannot be read
  fh:close()
  if ok == nil and why then errors.fail(2, ("%s: cannot open: %s"):format(path, (why:gsub("^.-: ", "")))) end
  return path
end

--- The bytes of the file at path, or nil when it cannot be read.
function M.read_or_nil(path)
  local fh = io.open(path, "rb")
  if not fh then return nil end
  local s = fh:read("a")
  fh:close()
  return s
end

--- Writes text to path ("-": standard output) through a temporary name and a
-- rename, so that a failure leaves no half-written file; raises
-- "FILE: cannot write: REASON" or "FILE: write failed: REASON".
function M.write_text(path, text)
  if path == "-" then io.stdout:write(text) return end
  local tmp = path .. ".tmp"
  local fh, err = io.open(tmp, "wb")
  if not fh then errors.fail(2, ("%s: cannot write: %s"):format(path, (err or ""):gsub("^.-: ", ""))) end
  local ok, werr = fh:write(text)
  local cok, cerr = fh:close()
  if not ok or not cok then
    os.remove(tmp)
    errors.fail(2, ("%s: write failed: %s"):format(path, tostring(werr or cerr)))
  end
  local rok, rerr = os.rename(tmp, path)
  if not rok then
    os.remove(tmp)
    errors.fail(2, ("%s: cannot write: %s"):format(path, tostring(rerr)))
  end
end

return M
