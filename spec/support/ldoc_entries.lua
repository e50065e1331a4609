-- An LDoc filter (`ldoc --filter spec.support.ldoc_entries.print`): instead
-- of writing HTML, prints one line per documented entry, "module<TAB>name"
-- (functions as `name`, methods as `Class:name`, fields as `name`), sorted,
-- so spec/42-manual_spec.lua can compare the reference with the live API.
local M = {}

function M.print(modules)
  local out = {}
  for _, mod in ipairs(modules) do
    for _, item in ipairs(mod.items) do
      out[#out + 1] = mod.name .. "\t" .. item.type .. "\t" .. item.name
    end
  end
  table.sort(out)
  io.write(table.concat(out, "\n"), "\n")
end

return M
