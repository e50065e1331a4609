-- examples/hacking/levels.lua: a level scheme of one's own, as a Lua function
-- level(id, g) -> integer (every child strictly below its parents).  Here:
-- twice the height, so the levels are sparse and the code generator's empty
-- levels can be seen.  Run:  cgwb run examples/hacking/levels.lua TAPE
local cgwb = require "cgwb"
local tape = arg[1] or "examples/tapes/bratu.tap"
local g <close> = assert(cgwb.build_graph(tape))
local function twice_height(id, graph) return 2 * graph:height(id) end
local s = cgwb.schedule(g, twice_height)
local height = cgwb.schedule(g, "height")
print(("%s: %d levels (height: %d), %d slots (height: %d)")
  :format(tape, s:nlevels(), height:nlevels(), s:nslots(), height:nslots()))
local code = assert(s:codegen(nil, { name = "f" }))
print(("generated %d bytes of C"):format(#code))
