-- cgwb.ir.emit: the code emitter of the generators (unparse, tangent,
-- adjoint): lines at a depth, blocks, temporaries, unique names, and what
-- each line defines and uses, kept as data.
--   local e = emit.new{ depth = 1 }
--   e:line(text [, def [, uses]])  a line at the current depth; def: the
--                          local it sets (or nil), uses: the locals it reads
--   e:open(head) / e:close([tail])  "head" then deeper lines, then tail
--                          (default "}") at the head's depth
--   e:reopen(mid)          mid at the head's depth between two deeper
--                          blocks ("} else {")
--   e:directive(text)      a line at column 0 whatever the depth (#ifdef)
--   e:indent(d)            deeper (d > 0) or shallower
--   e:push() / e:pop()     lines into a nested sink (returned by pop), as
--                          a block whose lines are chosen later (or whose
--                          surroundings are: declarations of its temporaries)
--   e:sink()               the current sink's line records
--   e:append(lines)        lines (records) into the current sink
--   e:label(rec)           a line printed "NAME: ;" only if rec.used
--   e:temp(ctype, base)    a fresh temporary base .. n, declared by e:decls()
--   e:decls([order [, per]])  the temporaries' declarations (texts): an
--                          array ctype ("void *[3]") one a line first, then
--                          the others by ctype (order's first), per a line
--   e:unique(base)         a name no one took (e:take(name) takes one)
--   e:text([first])        the lines as C text ("\n" between lines)
--   emit.keep_read(lines)  the lines whose def is read later (backwards:
--                          a use keeps its definitions; a line without a
--                          def always stays)
local M = {}

local E = {}
E.__index = E

local INDENT = "  "

function M.new(opts)
  opts = opts or {}
  local lines = {}
  return setmetatable({ depth = opts.depth or 0, lines = lines, sinks = { lines }, ntemp = 0,
    temps = {}, taken = opts.taken or {}, reserved = opts.reserved or {}, prefix = opts.prefix or "" }, E)
end

function E:line(text, def, uses)
  local sink = self.sinks[#self.sinks]
  sink[#sink + 1] = { ind = self.depth, text = text, def = def, uses = uses }
end

function E:indent(d) self.depth = self.depth + d end
function E:open(head) self:line(head); self.depth = self.depth + 1 end
function E:close(tail) self.depth = self.depth - 1; self:line(tail or "}") end

function E:reopen(mid) self.depth = self.depth - 1; self:line(mid); self.depth = self.depth + 1 end

function E:directive(text)
  local depth = self.depth
  self.depth = 0
  self:line(text)
  self.depth = depth
end

function E:push() self.sinks[#self.sinks + 1] = {} end
function E:pop() return table.remove(self.sinks) end
function E:sink() return self.sinks[#self.sinks] end

function E:append(lines)
  local sink = self.sinks[#self.sinks]
  for _, l in ipairs(lines) do sink[#sink + 1] = l end
end

function E:label(rec)
  local sink = self.sinks[#self.sinks]
  sink[#sink + 1] = { ind = self.depth, label = rec }
end

-- A fresh function-wide temporary prefix .. base .. n of C type ctype.
function E:temp(ctype, base)
  self.ntemp = self.ntemp + 1
  local name = self.prefix .. base .. self.ntemp
  self.temps[#self.temps + 1] = { ty = ctype, name = name }
  return name
end

-- The declarations of the temporaries, for the top of their function: an
-- array temporary (a ctype ending in [N], as "void *[3]") one a line, in
-- the order they were made; then the others grouped by ctype, the ctypes
-- of order first (in that order), any other after (in the order first
-- made), per names a line (default: all on one); a pointer ctype "T *"
-- declares "T *a, *b".
function E:decls(order, per)
  local out, by, types = {}, {}, {}
  local function group(ty) if not by[ty] then by[ty] = {}; types[#types + 1] = ty end end
  for _, ty in ipairs(order or {}) do group(ty) end
  for _, t in ipairs(self.temps) do
    local base, dims = t.ty:match("^(.-)%s*(%[.*%])$")
    if base then
      out[#out + 1] = base .. (base:sub(-1) == "*" and "" or " ") .. t.name .. dims .. ";"
    else
      group(t.ty)
      table.insert(by[t.ty], t.name)
    end
  end
  for _, ty in ipairs(types) do
    local names = by[ty]
    local base, star = ty:match("^(.-)%s*(%*)$")
    base, star = base or ty, star or ""
    local n = per or math.max(#names, 1)
    for i = 1, #names, n do
      out[#out + 1] = ("%s %s%s;"):format(base, star, table.concat(names, ", " .. star, i, math.min(#names, i + n - 1)))
    end
  end
  return out
end

function E:take(name) self.taken[name] = true end

-- base, or base_2, base_3, ... : the first no one took (nor a reserved word).
function E:unique(base)
  local n, s = 1, base
  while self.taken[s] or self.reserved[s] do n = n + 1; s = base .. "_" .. n end
  self.taken[s] = true
  return s
end

-- The text of one line record (a label: its line if used, else nil).
function M.render(l)
  if l.label then
    if l.label.used then return INDENT:rep(l.ind) .. l.label.name .. ": ;" end
    return nil
  end
  return INDENT:rep(l.ind) .. l.text
end

-- Lines (records) as text lines appended to out (a new list by default).
function M.render_all(lines, out)
  out = out or {}
  for _, l in ipairs(lines) do
    local t = M.render(l)
    if t then out[#out + 1] = t end
  end
  return out
end

function E:text() return table.concat(M.render_all(self.lines), "\n") end

function M.keep_read(lines)
  local need, back, kept = {}, {}, {}
  for i = #lines, 1, -1 do
    local l = lines[i]
    if not l.def or need[l.def] then
      back[#back + 1] = l
      for _, x in ipairs(l.uses or {}) do need[x] = true end
    end
  end
  for i = #back, 1, -1 do kept[#kept + 1] = back[i] end
  return kept
end

-- Whether text mentions the C name name (as a whole identifier), for the
-- one place that must scan generated text: the globals a finished file
-- body reads, to declare only those.
function M.mentions(text, name)
  return text:find("%f[%w_]" .. name:gsub("%W", "%%%0") .. "%f[^%w_]") ~= nil
end

return M
