--- A small deterministic JSON encoder: object keys sorted, integers exact,
-- other numbers as %.17g (non-finite numbers become null).
local M = {}

local escapes = { ['"'] = '\\"', ['\\'] = '\\\\', ['\b'] = '\\b', ['\f'] = '\\f',
                  ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }

local function encode_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return escapes[c] or ("\\u%04x"):format(c:byte())
  end) .. '"'
end

local function encode_number(v)
  if math.type(v) == "integer" then return tostring(v) end
  if v ~= v or v == math.huge or v == -math.huge then return "null" end
  if v == math.floor(v) and math.abs(v) < 2^53 then return ("%d"):format(v) end
  return ("%.17g"):format(v)
end

-- An array is a table whose keys are exactly 1..n (an empty table is an object
-- unless marked with M.array).
local array_mark = setmetatable({}, { __mode = "k" })
function M.array(t) array_mark[t] = true; return t end

local function is_array(t)
  if array_mark[t] then return true end
  local n = #t
  if n == 0 then return false end
  local count = 0
  for _ in pairs(t) do count = count + 1 end
  return count == n
end

local encode

local function encode_table(t, indent, depth)
  local nl, pad, pad1 = "", "", ""
  if indent then
    nl = "\n"
    pad = (" "):rep(indent * depth)
    pad1 = (" "):rep(indent * (depth + 1))
  end
  local parts = {}
  if is_array(t) then
    for i = 1, #t do parts[i] = pad1 .. encode(t[i], indent, depth + 1) end
    if #parts == 0 then return "[]" end
    return "[" .. nl .. table.concat(parts, "," .. nl) .. nl .. pad .. "]"
  end
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  for i, k in ipairs(keys) do
    local v = t[k]
    if v == nil then v = t[tonumber(k)] end
    parts[i] = pad1 .. encode_string(k) .. (indent and ": " or ":") .. encode(v, indent, depth + 1)
  end
  if #parts == 0 then return "{}" end
  return "{" .. nl .. table.concat(parts, "," .. nl) .. nl .. pad .. "}"
end

function encode(v, indent, depth)
  local ty = type(v)
  if ty == "table" then return encode_table(v, indent, depth or 0) end
  if ty == "string" then return encode_string(v) end
  if ty == "number" then return encode_number(v) end
  if ty == "boolean" then return tostring(v) end
  if v == nil then return "null" end
  error("cannot encode a " .. ty .. " as JSON")
end

--- Encodes v; indent (a number of spaces) gives pretty output.
function M.encode(v, indent) return encode(v, indent, 0) end

return M
