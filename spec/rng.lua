-- A small seeded generator (xorshift64*), independent of math.random, so
-- generated cases are the same on every run and every Lua build.
local M = {}
M.__index = M

function M.new(seed)
  local s = (seed * 2654435761 + 88172645463325252) & 0x7fffffffffffffff
  if s == 0 then s = 1 end
  return setmetatable({ s = s }, M)
end

function M:next()
  local x = self.s
  x = x ~ (x << 13)
  x = x ~ (x >> 7)
  x = x ~ (x << 17)
  self.s = x
  return (x >> 11) & 0x1fffffffffffff -- 53 bits
end

--- Integer in [lo, hi].
function M:int(lo, hi) return lo + self:next() % (hi - lo + 1) end

--- Float in [lo, hi).
function M:float(lo, hi) return lo + (hi - lo) * (self:next() / 2^53) end

return M
