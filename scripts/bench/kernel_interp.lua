-- kernel_interp.lua KERNEL.c N REPS: the interpreter's side of the kernel
-- benchmark (run with `scripts/cgwb run`).  Reads the kernel and runs
-- all(u, v, idx, w, 0.75, N) on the arrays of scripts/bench/kernel_run.c,
-- REPS times; prints
--   interp SECONDS STEPS SUM
-- (best time; the interpreter's step count; the %.17g sum of u and w, the
-- same sum in the same order as the compiled driver's).
local path, n, reps = arg[1], math.tointeger(tonumber(arg[2])), tonumber(arg[3] or "3")
local k = assert(cgwb.read_kernel(path))
local u, v, w, idx = {}, {}, {}, {}
for i = 0, n - 1 do
  u[i + 1] = i / n
  v[i + 1] = (n - i) / n
  w[i + 1] = 0.5
  idx[i + 1] = (i * 7) % n
end
local call = {
  arrays = { { name = "u", type = "double", values = u }, { name = "v", type = "double", values = v },
             { name = "idx", type = "int", values = idx }, { name = "w", type = "double", values = w } },
  args = { { array = 1, offset = 0 }, { array = 2, offset = 0 }, { array = 3, offset = 0 },
           { array = 4, offset = 0 }, { double = 0.75 }, { int = n } },
}
local f = assert(k:function_id("all"))
local best, r = math.huge, nil
for _ = 1, reps do
  local t0 = os.clock()
  r = assert(k:run(f, call))
  best = math.min(best, os.clock() - t0)
end
local sum = 0.0
for _, x in ipairs(r.arrays[1].values) do sum = sum + x end
for _, x in ipairs(r.arrays[4].values) do sum = sum + x end
print(("interp %.9f %d %.17g"):format(best, r.steps or 0, sum))
