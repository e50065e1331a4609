--- cgwb.cli.tape: `cgwb stats` and `cgwb convert`, the commands on tapes alone.
-- @module cgwb.cli.tape
local C = require "cgwb.cli.common"
local T = require "cgwb.cli.tapeargs"
local fail, check, cgwb, readable, option = C.fail, C.check, C.cgwb, C.readable, C.option

local M = {}

--- The commands this module defines, by name: { example = "cgwb NAME ...", setup = function(p)
-- (its options), run = function(a) (the work) }; cgwb.cli.registry names them.
M.commands = {}

M.commands.stats = {
  example = "cgwb stats examples/tapes/bratu.tap --json",
  setup = function(p)
    p:argument("tape", "A classic, text or ADOL-C tape (any file of the set).")
    p:flag("--json", "Machine-readable output.")
  end,
  run = function(a)
    local s, err = cgwb().tape_stats(readable(a.tape))
    if not s then
      if T.is_graph_file(a.tape) then T.read_tape(a.tape) end -- fails with the hint
      fail(2, err)
    end
    if a.json then
      local json = require "cgwb.json"
      local opcodes = {}
      for _, o in ipairs(s.opcodes) do
        if o.name ~= "death_not" then opcodes[o.name] = o.count end
      end
      local out = {
        file = a.tape, format = s.format, independents = s.independents,
        dependents = s.dependents, operations = s.operations,
        operation_bytes = s.operation_bytes, death_notices = s.death_notices,
        max_live = s.max_live, peak_live = s.peak_live, locations = s.locations,
        opcodes = opcodes, version = s.version, header = s.header,
        adolc_stats = s.stats,
      }
      io.write(json.encode(out, 2), "\n")
      return
    end
    local report = require "cgwb.report"
    io.write(("%s\n"):format(a.tape))
    io.write(table.concat(report.header_lines(s), "\n"), "\n\n")
    io.write(report.table1(s), "\n\n")
    io.write(("independents      %d\n"):format(s.independents))
    io.write(("dependents        %d\n"):format(s.dependents))
    io.write(("death notices     %d (%d bytes)\n"):format(s.death_notices, s.death_bytes))
    io.write(("max live (header) %d\n"):format(s.max_live))
    io.write(("locations used    %d\n"):format(s.locations))
    io.write(("peak live values  %d\n"):format(s.peak_live))
  end,
}

M.commands.convert = {
  example = "cgwb convert examples/tapes/ADOLC-Operations_3.tap cavity.tap --at examples/tapes/cavity.x",
  setup = function(p)
    p:argument("input", "Tape to read.")
    p:argument("output", "Tape to write (.txt: text, otherwise classic; - for standard output).")
    option(p, "--at", "Values of the independents, one per line (ADOL-C tapes carry none).")
    option(p, "--format", "Output format."):choices { "classic", "text" }
  end,
  run = function(a)
    local tape = T.read_tape(a.input)
    if a.at then tape:set_x0(T.read_point(a.at, tape:n())) end
    check(tape:write(C.out_path(a.output), C.out_format(a, a.output)))
  end,
}

return M
