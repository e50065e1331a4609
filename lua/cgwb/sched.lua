--- cgwb.sched: level schemes from Lua files, the level distribution
-- (Bischof & Hu 1991, Figure 11) as CSV and PNG, and a one-call code generator.
-- @module cgwb.sched
local core = require "cgwb.core"

local M = {}

--- A level scheme from a command-line value: a built-in name, or a Lua file
-- returning a function `level(id, g) -> integer` (or a table with `level`).
-- Returns the scheme and its display name, or nil and a message.
function M.scheme(spec)
  if spec == nil then return "height", "height" end
  if not spec:match("%.lua$") then
    for _, name in ipairs(core.level_schemes()) do
      if name == spec then return spec, spec end
    end
    return nil, ("unknown level scheme '%s' (%s, or FILE.lua)")
      :format(spec, table.concat(core.level_schemes(), ", "))
  end
  -- a plug-in (cgwb.util.plugin): run once, in an environment of its own with cgwb preloaded
  local r, err = require("cgwb.util.plugin").pload(spec, { mode = "bt", on_error = "always",
    expect = function(v, path)
      if type(v) == "table" then v = v.level end
      if type(v) ~= "function" then return nil, path .. ": must return a function level(id, g) or a table with one" end
      return v
    end })
  if not r then return nil, err end
  return r, spec
end

--- The level distribution as CSV text: "level,nodes" then one row per level.
function M.histogram_csv(hist)
  local out = { "level,nodes" }
  for l, c in ipairs(hist) do out[#out + 1] = ("%d,%d"):format(l - 1, c) end
  return table.concat(out, "\n") .. "\n"
end

-- Writes text to path through a temporary name and a rename, so a failure
-- midway leaves no truncated file.
local function write(path, text)
  local tmp = path .. ".tmp"
  local f, err = io.open(tmp, "wb")
  if not f then return nil, err end
  local ok, werr = f:write(text)
  local cok, cerr = f:close()
  if not ok or not cok then
    os.remove(tmp)
    return nil, ("%s: write failed: %s"):format(path, tostring(werr or cerr))
  end
  local rok, rerr = os.rename(tmp, path)
  if not rok then os.remove(tmp); return nil, rerr end
  return true
end

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

--- Plots the level distribution into a PNG through gnuplot (Figure 11).
function M.histogram_png(hist, path, title)
  local data = os.tmpname()
  local rows = M.histogram_csv(hist):gsub("^[^\n]*\n", ""):gsub(",", " ")
  local ok, err = write(data, rows)
  if not ok then return nil, err end
  local script = table.concat({
    "set terminal png size 800,500",
    ("set output %q"):format(path .. ".tmp"),
    ("set title %q"):format(title or "level distribution"),
    "set xlabel 'level'", "set ylabel 'nodes'", "set style fill solid 0.6",
    "set boxwidth 0.9 relative", "set yrange [0:*]", "unset key",
    ("plot %q using 1:2 with boxes"):format(data),
  }, "; ")
  local okx = os.execute("gnuplot -e " .. quote(script) .. " 2>/dev/null")
  os.remove(data)
  if not okx then
    os.remove(path .. ".tmp")
    return nil, path .. ": gnuplot failed (is gnuplot installed?)"
  end
  local rok, rerr = os.rename(path .. ".tmp", path)
  if not rok then os.remove(path .. ".tmp"); return nil, rerr end
  return true
end

--- Writes the histogram to FILE.csv or FILE.png.
function M.write_histogram(hist, path, title)
  if path:match("%.png$") then return M.histogram_png(hist, path, title) end
  if path:match("%.csv$") then return write(path, M.histogram_csv(hist)) end
  return nil, path .. ": the histogram is written as .csv or .png"
end

--- Generates C code for graph g.  opts: levels (scheme), inline_leaves,
-- form, name, parallel, chunk, source; path (nil: return the code).
-- Returns code or true, the code statistics and the schedule.
function M.codegen(g, opts)
  opts = opts or {}
  local s = core.schedule(g, opts.levels or "height", { inline_leaves = opts.inline_leaves })
  local r, st = s:codegen(opts.path, {
    name = opts.name, form = opts.form, parallel = opts.parallel, chunk = opts.chunk,
    source = opts.source, scheme = type(opts.levels) == "string" and opts.levels or
      (opts.levels and "a Lua function" or "height"),
  })
  return r, st, s
end

return M
