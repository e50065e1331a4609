-- spec/17-hacking_spec.lua: doc/hacking.md stays true.  The floors of the
-- core include only the floors below them; every code block of the page is
-- code of the tree (the worked examples in examples/hacking/, or the core's
-- lines it quotes); the worked examples compile, run and give their results.
local H = require "spec.helper"

local function lines_of(path)
  local t = {}
  for l in (H.read(path) .. "\n"):gmatch("(.-)\n") do t[#t + 1] = l end
  return t
end

local function ls(pattern)
  local out, p = {}, io.popen("ls " .. pattern .. " 2>/dev/null")
  for l in p:lines() do out[#out + 1] = l end
  p:close()
  return out
end

-- The floor of an #include "..." seen from a file of floor `area`.
local function floor_of(area, inc)
  return inc:match("^%.%./(%a+)/") or inc:match("^(%a+)/") or area
end

-- Compiles a C example against the core (extra flags) and returns its output.
local function compile_run(src, flags)
  local exe = H.tmp(".exe")
  local san = H.build:find("debug") and "-fsanitize=address,undefined" or "" -- the sanitizer build's library
  assert.is_true(os.execute(("cc -std=c99 -Wall -Wextra -Werror %s -Icsrc %s %s %s/libcgwbcore.a -lm -o %s")
    :format(san, flags or "", src, H.build, exe)) == true)
  local p = io.popen(exe)
  local out = p:read("a")
  p:close()
  os.remove(exe)
  return out
end

describe("doc/hacking.md", function()
  it("the floors of the core include only the floors below them", function()
    local allowed = {
      util = {}, tape = { util = true }, graph = { util = true, tape = true },
      sched = { graph = true, util = true }, elim = { graph = true, util = true },
      kernel = { graph = true, util = true },
      adjoint = { kernel = true, graph = true, util = true },
    }
    local tape_free = { ["csrc/graph/cg_graph.h"] = true, ["csrc/graph/cg_gbuild.h"] = true,
                        ["csrc/graph/cg_gops.h"] = true }
    local bad = {}
    for area in pairs(allowed) do
      for _, f in ipairs(ls("csrc/" .. area .. "/*.[ch]")) do
        local text = H.read(f)
        assert.falsy(text:find("#include%s*[<\"]lua"), f .. " includes Lua")
        for inc in text:gmatch('#include%s*"([^"]+)"') do
          local fl = floor_of(area, inc)
          if fl ~= area and not allowed[area][fl] then bad[#bad + 1] = f .. " -> " .. inc end
          if tape_free[f] and fl == "tape" then bad[#bad + 1] = f .. " -> " .. inc .. " (must not see a tape)" end
        end
      end
    end
    table.sort(bad)
    assert.are.same({}, bad)
  end)

  it("every code block is code of the tree", function()
    local page = H.read("doc/hacking.md")
    local sources = ls("examples/hacking/*")
    for _, f in ipairs { "csrc/graph/cg_gops.h", "csrc/tape/cg_tape.c" } do sources[#sources + 1] = f end
    local known = {}
    for _, f in ipairs(sources) do
      for _, l in ipairs(lines_of(f)) do known[l:gsub("%s+$", "")] = true end
    end
    local blocks = 0
    for body in page:gmatch("```%a*\n(.-)```") do
      blocks = blocks + 1
      for l in body:gmatch("(.-)\n") do
        local line = l:gsub("%s+$", "")
        if line ~= "" then assert.is_true(known[line] ~= nil, "not in the tree: " .. line) end
      end
    end
    assert.is_true(blocks >= 6)
    for path in page:gmatch("`(examples/hacking/[%w_.]+)`") do
      assert.truthy(io.open(path), path .. " is missing")
    end
  end)

  it("the front end in C builds a graph without a tape and gives its Jacobian", function()
    local out = compile_run("examples/hacking/front_end.c")
    local e = math.exp(1.0)
    assert.are.equal(("nodes 4, mults 2\nJ(1,1) = %.17g\nJ(1,2) = %.17g\n"):format(2 * e + 1, 0.5 * e), out)
  end)

  it("the front end in Lua gives the same", function()
    local out, err, code = H.cgwb("run examples/hacking/front_end.lua")
    assert.are.equal(0, code, err)
    local e = math.exp(1.0)
    assert.are.equal(("J(1,1) = %.17g\nJ(1,2) = %.17g\n"):format(2 * e + 1, 0.5 * e), out)
  end)

  it("the ordering of rules.h is in the registry and gives the sweep's Jacobian", function()
    local out = compile_run("examples/hacking/ordering.c", "-Iexamples/hacking")
    local diff = tonumber(out:match("largest difference from the sweep (%S+)"))
    assert.truthy(out:find("min%-out%-degree, %d+ multiplications"), out)
    assert.is_true(diff ~= nil and diff < 1e-12, out)
  end)

  it("the level scheme in Lua schedules and generates code", function()
    local out, err, code = H.cgwb("run examples/hacking/levels.lua examples/tapes/cavity.tap")
    assert.are.equal(0, code, err)
    local lv, hv = out:match("(%d+) levels %(height: (%d+)%)")
    assert.are.equal(2 * (tonumber(hv) - 1) + 1, tonumber(lv), out) -- levels 0, 2, ..., 2 (h - 1)
    assert.truthy(out:find("generated %d+ bytes of C"), out)
  end)
end)
