--- A small deterministic JSON encoder: object keys sorted, integers exact,
-- other numbers as %.17g (non-finite numbers become null, or the strings
-- "NaN", "Infinity", "-Infinity" with opts.nonfinite); and a strict decoder
-- (RFC 8259) that keeps the order of each object's keys and refuses a number
-- beyond the doubles (1e400).
-- @module cgwb.json
local errors = require "cgwb.util.errors"

local M = {}

--- The value written as `null` (a key whose value is nil is left out).
M.null = setmetatable({}, { __tostring = function() return "json.null" end })

local escapes = { ['"'] = '\\"', ['\\'] = '\\\\', ['\b'] = '\\b', ['\f'] = '\\f',
                  ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }

local function encode_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return escapes[c] or ("\\u%04x"):format(c:byte())
  end) .. '"'
end

local nonfinite = false -- M.encode's opts.nonfinite, for the call
local function encode_number(v)
  if math.type(v) == "integer" then return tostring(v) end
  if v ~= v then return nonfinite and '"NaN"' or "null" end
  if v == math.huge or v == -math.huge then return nonfinite and (v > 0 and '"Infinity"' or '"-Infinity"') or "null" end
  if v == 0 and 1 / v < 0 then return "-0" end -- %.17g keeps the sign; %d would not
  if v == math.floor(v) and math.abs(v) < 2^53 then return ("%d"):format(v) end
  return ("%.17g"):format(v)
end

-- An array is a table whose keys are exactly 1..n (an empty table is an object
-- unless marked with M.array).
local array_mark = setmetatable({}, { __mode = "k" })
--- Marks t as a JSON array (so an empty table is written as []): (t) -> t.
function M.array(t) array_mark[t] = true; return t end

local function is_array(t)
  if array_mark[t] then return true end
  local n = #t
  if n == 0 then return false end
  local count = 0
  for _ in pairs(t) do count = count + 1 end
  return count == n
end

local inline_arrays = false -- set by M.encode's opts for the call

-- Whether an array holds a table (other than json.null).
local function has_table(t)
  for i = 1, #t do
    if type(t[i]) == "table" and t[i] ~= M.null then return true end
  end
  return false
end

-- Whether every element of array t is an integer (table.concat writes them as %d).
local function all_integers(t)
  for i = 1, #t do
    if math.type(t[i]) ~= "integer" then return false end
  end
  return true
end

-- The encoder appends pieces to one buffer, concatenated once at the end: a
-- nested concatenation per level would copy a large document once per level.
local put

local function put_table(buf, t, indent, depth)
  local nl, pad, pad1 = "", "", ""
  if indent then
    nl = "\n"
    pad = (" "):rep(indent * depth)
    pad1 = (" "):rep(indent * (depth + 1))
  end
  local n = #buf
  if is_array(t) then
    if #t == 0 then buf[n + 1] = "[]"; return end
    if indent and inline_arrays and not has_table(t) then -- [1, 2, 3] on one line
      if all_integers(t) then buf[n + 1] = "[" .. table.concat(t, ", ") .. "]"; return end
      buf[n + 1] = "["
      for i = 1, #t do
        if i > 1 then buf[#buf + 1] = ", " end
        put(buf, t[i])
      end
      buf[#buf + 1] = "]"
      return
    end
    buf[n + 1] = "[" .. nl
    for i = 1, #t do
      buf[#buf + 1] = (i > 1 and "," .. nl or "") .. pad1
      put(buf, t[i], indent, depth + 1)
    end
    buf[#buf + 1] = nl .. pad .. "]"
    return
  end
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = tostring(k) end
  if #keys == 0 then buf[n + 1] = "{}"; return end
  table.sort(keys)
  buf[n + 1] = "{" .. nl
  for i, k in ipairs(keys) do
    local v = t[k]
    if v == nil then v = t[tonumber(k)] end
    buf[#buf + 1] = (i > 1 and "," .. nl or "") .. pad1 .. encode_string(k) .. (indent and ": " or ":")
    put(buf, v, indent, depth + 1)
  end
  buf[#buf + 1] = nl .. pad .. "}"
end

function put(buf, v, indent, depth)
  local ty = type(v)
  if v == M.null or v == nil then buf[#buf + 1] = "null"
  elseif ty == "table" then put_table(buf, v, indent, depth or 0)
  elseif ty == "string" then buf[#buf + 1] = encode_string(v)
  elseif ty == "number" then buf[#buf + 1] = encode_number(v)
  elseif ty == "boolean" then buf[#buf + 1] = tostring(v)
  else error("cannot encode a " .. ty .. " as JSON") end
end

--- Encodes v; indent (a number of spaces) gives pretty output; with it,
-- opts.inline_arrays writes arrays of numbers, strings and booleans on one line;
-- opts.nonfinite writes NaN and the infinities as the strings "NaN",
-- "Infinity" and "-Infinity" (not null, which a missing value writes).
function M.encode(v, indent, opts)
  inline_arrays = opts and opts.inline_arrays or false
  nonfinite = opts and opts.nonfinite or false
  local buf = {}
  local ok, err = pcall(put, buf, v, indent, 0)
  inline_arrays, nonfinite = false, false
  if not ok then error(err, 2) end
  return table.concat(buf)
end


-- {==== decoding ====}

-- The keys of each decoded object in the order the text gives them.
local key_order = setmetatable({}, { __mode = "k" })

--- The keys of object t: in the text's order for a decoded object, sorted
-- otherwise (so a caller never depends on pairs()).
function M.keys(t)
  if key_order[t] then return { table.unpack(key_order[t]) } end
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  return keys
end

--- Whether t is a decoded JSON array (an empty one too).
function M.is_array(t) return type(t) == "table" and array_mark[t] == true end

-- A decoder's state: text, position, the name for messages.
local Dec = {}
Dec.__index = Dec

-- Raises "name:line:col: msg" at position i (an input error of
-- cgwb.util.errors, data.json set: decode catches it).
function Dec:fail(msg, i)
  i = i or self.i
  local before = self.s:sub(1, i - 1)
  local line = select(2, before:gsub("\n", "")) + 1
  local col = i - (before:match(".*()\n") or 0)
  error(errors.input(2, ("%s:%d:%d: %s"):format(self.name, line, col, msg), { json = true }))
end

function Dec:space() self.i = self.s:match("^[ \t\r\n]*()", self.i) end

-- What stands at the current position, for "found ..." in messages.
function Dec:found()
  local c = self.s:sub(self.i, self.i)
  if c == "" then return "end of input" end
  return "'" .. (self.s:match("^[%w_.+-]+", self.i) or c) .. "'"
end

local escape_of = { ['"'] = '"', ['\\'] = '\\', ['/'] = '/', b = '\b', f = '\f', n = '\n', r = '\r', t = '\t' }

function Dec:string()
  local out, i, s = {}, self.i + 1, self.s
  while true do
    local j = s:find('["\\%c]', i)
    if not j then self:fail("unterminated string", self.i) end
    out[#out + 1] = s:sub(i, j - 1)
    local c = s:sub(j, j)
    if c == '"' then self.i = j + 1; return table.concat(out) end
    if c ~= "\\" then self:fail("control character in a string", j) end
    local e = s:sub(j + 1, j + 1)
    if escape_of[e] then
      out[#out + 1], i = escape_of[e], j + 2
    elseif e == "u" then
      local hex = s:match("^%x%x%x%x", j + 2)
      if not hex then self:fail("expected four hex digits after \\u", j) end
      local cp = tonumber(hex, 16)
      if cp >= 0xD800 and cp <= 0xDBFF then -- a surrogate pair
        local lo = s:match("^\\u(%x%x%x%x)", j + 6)
        lo = lo and tonumber(lo, 16)
        if not lo or lo < 0xDC00 or lo > 0xDFFF then self:fail("unpaired surrogate", j) end
        cp, i = 0x10000 + (cp - 0xD800) * 0x400 + (lo - 0xDC00), j + 12
      else
        i = j + 6
      end
      out[#out + 1] = utf8.char(cp)
    else
      self:fail("bad escape '\\" .. e .. "'", j)
    end
  end
end

function Dec:number()
  local t = self.s:match("^-?%d+%.?%d*[eE]?[+-]?%d*", self.i)
  local strict = t and (t:match("^-?0$") or t:match("^-?[1-9]%d*$")
    or t:match("^-?0%.%d+$") or t:match("^-?[1-9]%d*%.%d+$")
    or t:match("^-?%d+%.?%d*[eE][+-]?%d+$"))
  if not strict or (t:match("^-?0%d")) or t:match("%.[eE]") then self:fail("bad number " .. self:found()) end
  local v = tonumber(t)
  if v == math.huge or v == -math.huge then self:fail("number " .. t .. " is beyond the largest double") end
  self.i = self.i + #t
  if t == "-0" then return -0.0 end -- an integer has no sign of zero: the float keeps it
  if math.type(v) == "integer" then return v end
  return v -- a float already: "-0.0" keeps its sign
end

function Dec:list(close, item)
  self.i = self.i + 1
  self:space()
  if self.s:sub(self.i, self.i) == close then self.i = self.i + 1; return end
  while true do
    item()
    self:space()
    local c = self.s:sub(self.i, self.i)
    if c == close then self.i = self.i + 1; return end
    if c ~= "," then self:fail(("expected ',' or '%s', found %s"):format(close, self:found())) end
    self.i = self.i + 1
    self:space()
  end
end

function Dec:value(depth)
  if depth > 500 then self:fail("nesting deeper than 500") end
  self:space()
  local c = self.s:sub(self.i, self.i)
  if c == "{" then
    local t, order = {}, {}
    self:list("}", function()
      if self.s:sub(self.i, self.i) ~= '"' then self:fail("expected a string key, found " .. self:found()) end
      local at = self.i
      local k = self:string()
      if t[k] ~= nil then self:fail("duplicate key '" .. k .. "'", at) end
      self:space()
      if self.s:sub(self.i, self.i) ~= ":" then self:fail("expected ':', found " .. self:found()) end
      self.i = self.i + 1
      t[k] = self:value(depth + 1)
      order[#order + 1] = k
    end)
    key_order[t] = order
    return t
  elseif c == "[" then
    local t = M.array({})
    self:list("]", function() t[#t + 1] = self:value(depth + 1) end)
    return t
  elseif c == '"' then
    return self:string()
  elseif c == "-" or c:match("%d") then
    return self:number()
  end
  for word, v in pairs({ ["true"] = true, ["false"] = false, ["null"] = M.null }) do
    if self.s:sub(self.i, self.i + #word - 1) == word then
      self.i = self.i + #word
      return v
    end
  end
  self:fail("expected a value, found " .. self:found())
end

--- Decodes JSON text: (text [, name]) -> value | nil, "name:line:col: message".
-- Objects are tables (M.keys gives their keys in the text's order), arrays
-- are tables marked as arrays, null is M.null, integers without a fraction or
-- exponent are Lua integers, other numbers floats.
function M.decode(text, name)
  local d = setmetatable({ s = text, i = 1, name = name or "json" }, Dec)
  local ok, v = pcall(function()
    local r = d:value(0)
    d:space()
    if d.i <= #d.s then d:fail("expected end of input, found " .. d:found()) end
    return r
  end)
  if ok then return v end
  if errors.is(v, "input") and v.data and v.data.json then return nil, v.msg end
  error(v, 0)
end

return M
