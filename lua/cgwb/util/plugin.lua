--- cgwb.util.plugin: the one loader of user Lua files (plug-ins) at cgwb's
-- decision points: orderings (`--order FILE.lua`), level schemes
-- (`--levels`), split strategies (`--split`), loop choices (`adjoint --loops`),
-- sweep plans, tracer scripts and `cgwb run`'s scripts.
--
--     local plugin = require "cgwb.util.plugin"
--     local split = plugin.load("my-split.lua", { expect = "function", what = "split strategy" })
--
-- `plugin.load(path, opts)` reads the file, runs its chunk once and returns
-- what the chunk returns (and, second, the file's text).  The chunk runs in
-- an environment of its own: a fresh table that reads through to the globals
-- (`_G`), where `cgwb` is the facade (`require "cgwb"`, loaded when the file
-- first reads it) and opts.env's entries are globals too; what the file
-- sets stays in its environment.  A file is run once per Lua state: a second
-- load of the same path, while the file holds the same text, returns the
-- value of the first (whatever its options; `cache = false` runs it again).
--
-- Failures raise an input error (cgwb.util.errors, exit status 2) whose
-- message names the file, and the line where there is one:
--
--     cannot be read          "FILE: cannot open: REASON"
--     syntax error            "FILE:LINE: message" (Lua's own)
--     raised while it ran     opts.on_error: "prefix" (default) "FILE:LINE: message" as raised,
--                             "FILE: " put before a message that does not start with FILE;
--                             "raw" the message as raised; "always" "FILE: " before it
--                             in any case; or a function, an xpcall message handler whose
--                             result is the message
--     returned the wrong type "FILE: must return RETURNS (returned a TYPE)", RETURNS
--                             opts.returns, else "a EXPECT" (with ", the WHAT" after
--                             it when opts.what is given)
--
-- opts (all optional):
--
--     expect    "function", "table", "string", ... (a type()'s name), "any" (default:
--               anything, nil too), or a function(value, path) -> value | nil, message
--               that checks (and may convert) the value
--     returns   the text after "must return" in the wrong-type message
--     what      what the file is ("split strategy"), for the default wording
--     env       a table of extra globals of the chunk's environment
--     args      a list: the chunk's arguments (its `...`)
--     mode      load's mode, "t" (default: text only) or "bt"
--     on_error  see above
--     cache     false: run the chunk at each load
--
-- `plugin.pload` is the same with the API's convention (`value` or `nil,
-- message`); `plugin.compile` loads without running (for `cgwb run`, whose
-- script's errors are the script's, exit status 1).
-- @module cgwb.util.plugin
local errors = require "cgwb.util.errors"

local M = {}

-- path -> { src = the file's text, value = what its chunk returned }
local cache = {}

--- A fresh environment for a plug-in: (extra) -> table that reads through to
-- _G, with `cgwb` the facade and extra's entries as its own globals.
function M.env(extra)
  local env = {}
  for k, v in pairs(extra or {}) do env[k] = v end
  return setmetatable(env, {
    __index = function(_, k)
      if k == "cgwb" then return require "cgwb" end -- loaded at the first use: a tracer script may run without the core
      return _G[k]
    end,
  })
end

-- The text of the file at path, or an input error "path: cannot open: why".
local function read(path)
  if type(path) ~= "string" then
    error(errors.input(2, ("a plug-in file's path must be a string, got %s"):format(type(path))))
  end
  local fh, err = io.open(path, "rb")
  if not fh then error(errors.input(2, ("%s: cannot open: %s"):format(path, (err or ""):gsub("^.-: ", "")))) end
  local src, why = fh:read("a") -- a directory opens but cannot be read
  fh:close()
  if src == nil then error(errors.input(2, ("%s: cannot open: %s"):format(path, (tostring(why)):gsub("^.-: ", "")))) end
  return src
end

-- The chunk of the file at path (its text src), compiled in a fresh environment.
local function compile(path, opts, src)
  local env = M.env(opts.env)
  -- loadfile, not load(src): a first line "#!..." and a BOM are skipped as lua does
  local chunk, err = loadfile(path, opts.mode or "t", env)
  if not chunk then error(errors.input(2, err)) end
  return chunk, env, src
end

--- Loads the chunk of the file at path without running it: (path [, opts]) ->
-- chunk, env, text.  opts.env, opts.mode as for load; raises an input error
-- when the file cannot be read or does not compile.
function M.compile(path, opts)
  return compile(path, opts or {}, read(path))
end

-- The message of an error raised while the chunk ran, by opts.on_error.
local function runtime_message(how, path, e)
  local msg = tostring(e)
  if how == "raw" then return msg end
  if how == "always" then return path .. ": " .. msg end
  if msg:sub(1, #path) ~= path then msg = path .. ": " .. msg end
  return msg
end

-- Checks value against opts.expect: the value (converted) or an input error.
local function checked(value, path, opts)
  local expect = opts.expect or "any"
  if type(expect) == "function" then
    local v, err = expect(value, path)
    if v == nil and err ~= nil then error(errors.input(2, err)) end
    return v
  end
  if expect == "any" or type(value) == expect then return value end
  local returns = opts.returns or ("a " .. expect .. (opts.what and (", the " .. opts.what) or ""))
  error(errors.input(2, ("%s: must return %s (returned a %s)"):format(path, returns, type(value))))
end

--- Loads the plug-in at path: (path [, opts]) -> value, text.  Raises an input
-- error (cgwb.util.errors) when it cannot be read, compiled, run or returns
-- what opts.expect refuses (see above).
function M.load(path, opts)
  opts = opts or {}
  local src = read(path)
  local hit = cache[path]
  if hit and hit.src == src and opts.cache ~= false then return checked(hit.value, path, opts), src end
  local chunk, _, text = compile(path, opts, src)
  local args = opts.args or {}
  local res
  if type(opts.on_error) == "function" then
    res = table.pack(xpcall(chunk, opts.on_error, table.unpack(args, 1, args.n or #args)))
    if not res[1] then error(errors.input(2, tostring(res[2]))) end
  else
    res = table.pack(pcall(chunk, table.unpack(args, 1, args.n or #args)))
    if not res[1] then error(errors.input(2, runtime_message(opts.on_error, path, res[2]))) end
  end
  local value = res[2]
  if opts.cache ~= false then cache[path] = { src = text, value = value } end
  return checked(value, path, opts), text
end

--- plugin.load with the API's convention: (path [, opts]) -> value, text | nil, message.
function M.pload(path, opts)
  return errors.try(M.load, path, opts)
end

--- Forgets the cached value of the file at path (every file's when path is nil).
function M.forget(path)
  if path == nil then cache = {} else cache[path] = nil end
end

return M
