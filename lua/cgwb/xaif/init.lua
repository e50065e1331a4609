--- cgwb.xaif: a flattened kernel function as XAIF and back (doc/xaif.md).
-- XAIF is the XML term-graph format of Hovland, Norris, Utke & Strout,
-- sec. 3.  write() exports the subset cgwb needs (CallGraph, ScopeHierarchy,
-- AliasSetMap, DUUDSetMap, one ControlFlowGraph of basic blocks whose
-- Assignments hold expression DAGs); read() parses it with lua-expat into a
-- plain model; describe() flattens the model again, in Lua, by the rules of
-- doc/flattening.md (Utke, Flattening Basic Blocks, Algorithms 1 and 2,
-- sec. 6.2), independently of the C engine, and returns the table
-- flatten.describe gives, so the round trip compares two implementations.
-- @module cgwb.xaif

-- The package lua/cgwb/xaif/ does these jobs in one file each: export.lua
-- the writer, import.lua the reader, describe.lua the Lua flattening of a
-- model, names.lua what they share (the XAIF names of operations and types,
-- the names of cells); this file is the module's interface.
local export = require "cgwb.xaif.export"
local import = require "cgwb.xaif.import"
local describe = require "cgwb.xaif.describe"

local M = {}

--- xaif.write(kernel, fname, res [, opts]) -> text | nil, message: the XAIF of
-- function fname of kernel as res (core.kernel_flatten's result) flattened
-- it; opts: the options it was flattened with (assume, alias, prune,
-- independents, dependents; default res.opts), so the analyses agree.
function M.write(k, fname, res, opts) return export.write(k, fname, res, opts) end

--- xaif.read(text [, path]) -> model | nil, "path:line:col: message".  Never raises
-- on bad input.
function M.read(text, path) return import.read(text, path) end

--- xaif.describe(model [, opts]) -> the table flatten.describe gives for the
-- flattening the model was written from (without costs); opts.strategy
-- ("minimal" or "statement") overrides the strategy the file records.
function M.describe(m, opts) return describe.describe(m, opts) end

return M
