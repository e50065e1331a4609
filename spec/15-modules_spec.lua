-- spec/15-modules_spec.lua: the Lua modules set no globals.  Each module's
-- file is loaded with an environment that reads through to the real globals
-- and records every write; requiring it must write nothing.
local H = require "spec.helper"

local modules = { "cgwb", "cgwb.cli", "cgwb.elim", "cgwb.sched", "cgwb.report", "cgwb.trace",
                  "cgwb.json" }

describe("modules", function()
  it("every module under lua/cgwb/ is in the list", function()
    local listed = {}
    for _, m in ipairs(modules) do listed[m] = true end
    local p = io.popen("ls lua/cgwb/*.lua")
    for path in p:lines() do
      local name = path:match("lua/cgwb/(.-)%.lua$")
      name = name == "init" and "cgwb" or "cgwb." .. name
      assert.is_true(listed[name] ~= nil, name .. " is not checked for globals")
    end
    p:close()
  end)

  for _, name in ipairs(modules) do
    it(name .. " writes no global", function()
      local path = name == "cgwb" and "lua/cgwb/init.lua" or ("lua/" .. name:gsub("%.", "/") .. ".lua")
      local writes = {}
      local env = setmetatable({}, {
        __index = _G,
        __newindex = function(t, k, v)
          writes[#writes + 1] = tostring(k)
          rawset(t, k, v)
        end,
      })
      local chunk = assert(loadfile(path, "t", env))
      local result = chunk(name)
      assert.is_table(result, name .. " returns its table")
      table.sort(writes)
      assert.are.same({}, writes, name .. " wrote globals: " .. table.concat(writes, ", "))
    end)
  end
end)
