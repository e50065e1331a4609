--- Text reports: the tables of Bischof & Hu 1991, sec. 4, laid out for people.
-- @module cgwb.report
local M = {}

M.adolc_stat_names = {
  "NUM_INDEPENDENTS", "NUM_DEPENDENTS", "NUM_MAX_LIVES", "TAY_STACK_SIZE",
  "OP_BUFFER_SIZE", "NUM_OPERATIONS", "OP_FILE_ACCESS", "NUM_LOCATIONS",
  "LOC_FILE_ACCESS", "NUM_VALUES", "VAL_FILE_ACCESS", "LOC_BUFFER_SIZE",
  "VAL_BUFFER_SIZE", "TAY_BUFFER_SIZE", "NUM_EQ_PROD", "NO_MIN_MAX",
  "NUM_SWITCHES", "NUM_PARAM",
}

M.classic_field_names = {
  "buffer dumps", "independents", "dependents", "buffer size", "max live",
  "record bytes", "operations", "locations freed",
}

local function pct(a, b)
  if b == 0 then return "0.0" end
  return ("%.1f"):format(100 * a / b)
end

--- Lays out rows (arrays of strings) in columns; column 1 left-aligned.
function M.columns(rows)
  local width = {}
  for _, row in ipairs(rows) do
    for i, cell in ipairs(row) do
      if #cell > (width[i] or 0) then width[i] = #cell end
    end
  end
  local out = {}
  for _, row in ipairs(rows) do
    local cells = {}
    for i, cell in ipairs(row) do
      local fmt = i == 1 and "%-" .. width[i] .. "s" or "%" .. width[i] .. "s"
      cells[i] = fmt:format(cell)
    end
    out[#out + 1] = table.concat(cells, "  ")
  end
  return table.concat(out, "\n")
end

--- The header fields of a tape statistics table, as lines.
function M.header_lines(s)
  local lines = { ("format: %s"):format(s.format) }
  if s.version then lines[#lines + 1] = ("ADOL-C version: %s"):format(s.version) end
  if s.stats then
    for i, name in ipairs(M.adolc_stat_names) do
      lines[#lines + 1] = ("  %-17s %d"):format(name, s.stats[i])
    end
  elseif s.header then
    for i, name in ipairs(M.classic_field_names) do
      lines[#lines + 1] = ("  %-17s %d"):format(name, s.header[i])
    end
  end
  return lines
end

--- Table 1 of Bischof & Hu 1991 from cgwb.core.stats output.  Death notices are not
-- operations (as in the paper) and are listed below the totals.
function M.table1(s)
  local rows = { { "opcode", "# operations", "% operations", "# bytes", "% bytes" } }
  for _, o in ipairs(s.opcodes) do
    if o.name ~= "death_not" then
      rows[#rows + 1] = { o.name, tostring(o.count), pct(o.count, s.operations),
                          tostring(o.bytes), pct(o.bytes, s.operation_bytes) }
    end
  end
  rows[#rows + 1] = { "Totals", tostring(s.operations), "100.0",
                      tostring(s.operation_bytes), "100.0" }
  return M.columns(rows)
end

--- Table 2 of Bischof & Hu 1991: the effect of the graph optimizations.
function M.table2(s)
  local total = s.tape_operations
  local function row(name, v) return { name, tostring(v), pct(v, total) } end
  return M.columns {
    { "", "Number", "Percent" },
    row("tape operations", total),
    row("assign_a opcodes", s.assignments_removed),
    row("dead opcodes", s.dead_opcodes),
    row("hoisted opcodes", s.hoisted_opcodes),
    row("graph nodes", s.nodes),
  }
end

--- Table 4 of Bischof & Hu 1991: opcodes per graph node.
function M.table4(s)
  local rows = { { "# opcodes/node", "nodes", "%" } }
  for i = 2, #s.opcodes_per_node do
    local c = s.opcodes_per_node[i]
    if c > 0 then rows[#rows + 1] = { tostring(i - 1), tostring(c), pct(c, s.nodes) } end
  end
  return M.columns(rows)
end

--- Table 3 of Bischof & Hu 1991: the graph written back as a tape, against the original.
-- orig and new are {operations, bytes} of classic encodings.
function M.table3(orig, new)
  local function saving(a, b) return ("%.1f"):format(a == 0 and 0 or 100 * (a - b) / a) end
  return M.columns {
    { "", "original tape", "from the graph", "% savings" },
    { "number of opcodes", tostring(orig[1]), tostring(new[1]), saving(orig[1], new[1]) },
    { "tape storage (bytes)", tostring(orig[2]), tostring(new[2]), saving(orig[2], new[2]) },
  }
end

--- A histogram (array: index i+1 counts nodes with i items) as "i:count" text.
function M.histogram(h)
  local parts = {}
  for i, c in ipairs(h) do
    if c > 0 then parts[#parts + 1] = ("%d:%d"):format(i - 1, c) end
  end
  return table.concat(parts, "  ")
end

return M
