-- scripts/results-lib.lua: what the results scripts share: claims checked by
-- the script that writes them (a page states nothing its script did not
-- compute), shares and their tolerances, the summary of a level distribution
-- (Bischof & Hu 1991, Figure 11) and the cost model of the level-by-level
-- schedule that predicts Table 5 beyond the machine's cores.  Loaded by the
-- results scripts and by spec/43-results_spec.lua:
--   local R = dofile("scripts/results-lib.lua")
local M = {}

-- {==== claims ====}

-- A claim collector: each check records its message when it fails; `result`
-- says whether every claim held, `finish` makes the script fail (exit 1, the
-- failed claims on stderr) when one did not.
local Claims = {}
Claims.__index = Claims

--- A new collector; who names the script in its messages.
function M.claims(who) return setmetatable({ who = who, failed = {}, n = 0 }, Claims) end

--- Records the claim msg; ok false means it does not hold.  Returns ok.
function Claims:check(ok, msg)
  self.n = self.n + 1
  if not ok then self.failed[#self.failed + 1] = msg end
  return ok
end

--- The claim "a equals b" (label names it).
function Claims:equal(label, a, b)
  return self:check(a == b, ("%s: %s, not %s"):format(label, tostring(a), tostring(b)))
end

--- true, or nil and every failed claim, one per line.
function Claims:result()
  if #self.failed == 0 then return true end
  return nil, self.who .. ": a claim the page makes does not hold:\n  " .. table.concat(self.failed, "\n  ")
end

--- Exits 1 with the failed claims when one did not hold; else returns the count checked.
function Claims:finish()
  local ok, msg = self:result()
  if not ok then
    io.stderr:write(msg, "\n")
    os.exit(1)
  end
  return self.n
end

-- {==== shares ====}

--- 100 a / b with one decimal, as the pages print shares ("0.0" for b = 0).
function M.pct(a, b) return b == 0 and "0.0" or ("%.1f"):format(100 * a / b) end

--- Whether two shares (percent) are within tol percentage points.
function M.close(a, b, tol) return math.abs(a - b) <= tol end

--- Per problem, whether ours is close to the paper's share: rows are
-- {name, ours (percent), paper (percent)}; returns {name, ours, paper, diff, close}
-- in the rows' order.
function M.share_verdicts(rows, tol)
  local out = {}
  for _, r in ipairs(rows) do
    out[#out + 1] = { name = r[1], ours = r[2], paper = r[3], diff = r[2] - r[3],
                      close = M.close(r[2], r[3], tol) }
  end
  return out
end

--- A printed percentage ("3.84", "<0.01") against the share its count gives:
-- consistent when they agree to the printed precision (half a unit of its last
-- digit, plus rounding slack); "<x" holds when the share is below x.
function M.printed_share_ok(printed, count, total)
  local share = 100 * count / total
  local below = printed:match("^<%s*([%d.]+)$")
  if below then return share < tonumber(below) end
  local dec = printed:match("%.(%d+)$")
  local half = 0.5 * 10 ^ -(dec and #dec or 0)
  return math.abs(share - tonumber(printed)) <= half + 1e-9
end

-- {==== level distribution (Figure 11) ====}

--- Summary of a level distribution (array: nodes per level, level 0 first) for
-- batches of `batch` nodes (Bischof & Hu 1991, sec. 4.3: 1000): number of
-- levels, nodes, widest level and its index (0-based), levels under `under`
-- nodes, the nodes in them, the batches of the widest level (the most threads
-- a level can use), and the levels that give more than 3 batches.
function M.level_summary(hist, batch, under)
  local s = { levels = #hist, nodes = 0, widest = 0, widest_at = 0, under = 0, nodes_under = 0,
              over3 = 0 }
  for i, c in ipairs(hist) do
    s.nodes = s.nodes + c
    if c > s.widest then s.widest, s.widest_at = c, i - 1 end
    if c < under then s.under, s.nodes_under = s.under + 1, s.nodes_under + c end
    if math.ceil(c / batch) > 3 then s.over3 = s.over3 + 1 end
  end
  s.max_batches = math.ceil(s.widest / batch)
  return s
end

--- Plots a level distribution (nodes per level, level 0 first) into the PNG
-- at path, through gnuplot, with the paper's 3,000-node line (Figure 11);
-- dat is a scratch file for the data.  gnuplot's libgd PNG terminal with
-- the DejaVu font named by its file (fonts-dejavu-core), so no font lookup
-- depends on the machine; it writes no date or version: the same levels
-- give the same bytes.  Returns true or nil, message.
M.FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
function M.plot_levels(hist, path, dat, title)
  local rows, widest = {}, 1
  for l, c in ipairs(hist) do
    rows[#rows + 1] = ("%d %d"):format(l - 1, c)
    widest = math.max(widest, c)
  end
  local f = assert(io.open(dat, "wb"))
  f:write(table.concat(rows, "\n"), "\n")
  f:close()
  local gp = table.concat({
    ("set terminal png size 800,500 font '%s' 11"):format(M.FONT),
    ("set output '%s.tmp'"):format(path),
    ("set title '%s'"):format(title),
    "set xlabel 'level (height)'", "set ylabel 'nodes'", "set style fill solid 0.6", "set boxwidth 0.8",
    "set grid ytics", "set xtics 1", "unset key",
    ("set yrange [0:%d]"):format(math.ceil(math.max(widest, 3000) * 1.1 / 1000) * 1000),
    ("set xrange [-0.6:%g]"):format(#hist - 0.4),
    "set arrow from graph 0, first 3000 to graph 1, first 3000 nohead dashtype 2",
    "set label 'paper: most levels < 3,000 nodes' right at graph 0.99, first 3300 front",
    ("plot '%s' using 1:2 with boxes"):format(dat),
  }, "; ")
  if not os.execute("gnuplot -e \"" .. gp:gsub('"', '\\"') .. "\"") then
    os.remove(path .. ".tmp")
    return nil, path .. ": gnuplot failed"
  end
  return os.rename(path .. ".tmp", path)
end

-- {==== the cost model of the level-by-level schedule ====}

-- Time of one evaluation on p threads (p = 0: the serial code, no OpenMP):
--   T(p) = c_node * W(p) + c_bar * B(p) + c_byte * Q
-- W(p): nodes on the critical path, summed over levels: a level of n nodes is
--   cut into ceil(n / batch) batches, dealt out to p threads, so the busiest
--   thread computes min(n, ceil(ceil(n / batch) / p) * batch) nodes;
-- B(p): barrier units, one barrier per level whose cost grows as a tree
--   barrier does, 1 + log2 p (0 for the serial code);
-- Q: bytes read and written (8 per operand read, 8 per result), the same for
--   every p: the threads share one memory bus (Bischof & Hu 1991, sec. 4.3:
--   "severely I/O bound"), so traffic does not shrink with p.
M.FEATURES = { "c_node", "c_bar", "c_byte" }

--- The model's inputs for p threads from the levels: nodes[l] and bytes[l] per level.
function M.features(nodes, bytes, p, batch)
  local w, q = 0, 0
  for l = 1, #nodes do
    local n = nodes[l]
    if p == 0 then
      w = w + n
    else
      w = w + math.min(n, math.ceil(math.ceil(n / batch) / p) * batch)
    end
    q = q + bytes[l]
  end
  local b = p == 0 and 0 or #nodes * (1 + math.log(p, 2))
  return { w, b, q }
end

-- Solves the k x k system a x = r (Gaussian elimination, partial pivoting);
-- nil when singular.
local function solve(a, r)
  local k = #r
  for c = 1, k do
    local piv = c
    for i = c + 1, k do if math.abs(a[i][c]) > math.abs(a[piv][c]) then piv = i end end
    if math.abs(a[piv][c]) < 1e-300 then return nil end
    a[c], a[piv], r[c], r[piv] = a[piv], a[c], r[piv], r[c]
    for i = c + 1, k do
      local f = a[i][c] / a[c][c]
      for j = c, k do a[i][j] = a[i][j] - f * a[c][j] end
      r[i] = r[i] - f * r[c]
    end
  end
  local x = {}
  for i = k, 1, -1 do
    local s = r[i]
    for j = i + 1, k do s = s - a[i][j] * x[j] end
    x[i] = s / a[i][i]
  end
  return x
end

-- Least squares on the columns in `cols` of rows X against t, each row
-- weighted by 1 / t (relative error): the coefficients (0 outside cols) or nil.
local function lsq(X, t, cols)
  local k = #cols
  local a, r = {}, {}
  for i = 1, k do
    a[i], r[i] = {}, 0
    for j = 1, k do a[i][j] = 0 end
  end
  for n = 1, #X do
    local wt = 1 / (t[n] * t[n])
    for i = 1, k do
      local xi = X[n][cols[i]]
      r[i] = r[i] + wt * xi * t[n]
      for j = 1, k do a[i][j] = a[i][j] + wt * xi * X[n][cols[j]] end
    end
  end
  local x = solve(a, r)
  if not x then return nil end
  local c = {}
  for j = 1, #M.FEATURES do c[j] = 0 end
  for i = 1, k do c[cols[i]] = x[i] end
  return c
end

--- The model's prediction for a feature row.
function M.predict(c, f)
  local s = 0
  for j = 1, #c do s = s + c[j] * f[j] end
  return s
end

--- Root mean square of the relative residuals of c on rows X, times t.
function M.fit_error(c, X, t)
  local s = 0
  for n = 1, #X do s = s + ((M.predict(c, X[n]) - t[n]) / t[n]) ^ 2 end
  return math.sqrt(s / #X)
end

--- Fits the model's coefficients to measured times t (seconds) for feature rows
-- X: relative least squares with every coefficient >= 0 (a cost is never
-- negative), solved exactly for three features by trying every subset of
-- them and keeping the best admissible fit.  Returns the coefficients and the
-- fit error (RMS relative residual), or nil, message.
function M.fit(X, t)
  if #X == 0 or #X ~= #t then return nil, "fit: no measurements" end
  local best, berr
  for mask = 1, (1 << #M.FEATURES) - 1 do
    local cols = {}
    for j = 1, #M.FEATURES do if mask & (1 << (j - 1)) ~= 0 then cols[#cols + 1] = j end end
    if #cols <= #X then
      local c = lsq(X, t, cols)
      local ok = c ~= nil
      for j = 1, #M.FEATURES do ok = ok and c[j] >= 0 end
      if ok then
        local e = M.fit_error(c, X, t)
        if not berr or e < berr - 1e-12 then best, berr = c, e end
      end
    end
  end
  if not best then return nil, "fit: no admissible fit (every fit has a negative cost)" end
  return best, berr
end

return M
