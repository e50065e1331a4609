-- jplan_points.lua X COUNT SEED: COUNT points near the point in file X (one
-- value a line): each value times 1 + u, u uniform in [-0.01, 0.01] from a
-- seeded xorshift64* (the same points on every run); one point a line.
local path, count, seed = arg[1], tonumber(arg[2]), tonumber(arg[3])
local x0 = {}
for line in io.lines(path) do x0[#x0 + 1] = tonumber(line) end
local s = (seed * 2654435761 + 88172645463325252) & 0x7fffffffffffffff
local function u()
  s = s ~ (s << 13); s = s ~ (s >> 7); s = s ~ (s << 17)
  return ((s >> 11) & 0x1fffffffffffff) / 2 ^ 53
end
for _ = 1, count do
  local p = {}
  for i, v in ipairs(x0) do p[i] = ("%.17g"):format(v * (1 + 0.02 * (u() - 0.5))) end
  print(table.concat(p, " "))
end
