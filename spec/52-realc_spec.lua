-- spec/52-realc_spec.lua: real C programs in, as their authors would write
-- them (spec/support/realc/: programs of our own in the style of the
-- polyhedral benchmark suites and of the objectives AD tools are compared
-- on, each with its headers, macros, a main with printf and timers).  Each
-- is read unmodified with --function naming its kernel; the functions it does
-- not reach are read and left alone; the kernel's tangent and adjoint code
-- compile warning-free and give the derivatives of the compiled program
-- (central differences and the dot-product test, primal results bit for bit).
local H = require "spec.helper"
local cgwb = require "cgwb"
local rng = require "rng"
local T = require "tdriver"
local AC = require "adcheck"
local TC = require "tcheck"

local DIR = "spec/support/realc"
local ABS = io.popen("pwd"):read("l") .. "/" .. DIR

-- The programs: file, kernel function, the functions left alone, and the
-- call (ints and doubles by parameter name; arrays sized by their
-- parameter's dims or given as n; ints for int arrays).
-- pbs.h's own helpers (timers, allocation) are outside the subset too; its
-- printing helper and print_array are lowered (printf, fprintf(stderr) are passive calls)
local PBS = { "pbs_alloc", "pbs_now", "pbs_timer_start", "pbs_timer_stop" }
local function with_pbs(t) for _, n in ipairs(PBS) do t[#t + 1] = n end return t end
local PROGRAMS = {
  { file = "pbs-gemm.c", fname = "kernel_gemm", left = with_pbs { "main" },
    ints = { ni = 6, nj = 5, nk = 4 }, doubles = { alpha = 1.5, beta = 1.2 } },
  { file = "pbs-corr.c", fname = "kernel_correlation", left = with_pbs { "main" },
    ints = { m = 5, n = 7 }, doubles = { float_n = 7.0 } },
  { file = "pbs-trisolv.c", fname = "kernel_trisolv", left = with_pbs { "main" }, ints = { n = 8 },
    fill = { L = function(i, r) return (i % 9 == 0) and 4 + r:float(0, 1) or r:float(-0.5, 0.5) end } },
  -- the objective takes its Wishart prior as a struct by value, calls lgamma
  -- and mallocs its work arrays
  { file = "gmmstyle.c", fname = "gmm_loglik", left = {}, ints = { d = 2, k = 3, n = 4, ["wishart.m"] = 2 },
    doubles = { ["wishart.gamma"] = 1.3 }, sizes = { alphas = 3, means = 6, icf = 9, x = 8, err = 1 },
    cflags = "-D_DEFAULT_SOURCE" }, -- M_PI, as cc without -std does
  { file = "pbs-heat3d.c", fname = "kernel_heat_3d", left = with_pbs { "main" },
    ints = { tsteps = 2, n = 6 } },
  { file = "bastyle.c", fname = "ba_objective", left = { "make_problem", "main" },
    ints = { n = 2, m = 3, p = 4 },
    sizes = { cams = 22, X = 9, w = 4, obs = 8, feats = 8, reproj_err = 8, w_err = 4 },
    fill = { obs = function(i) return i % 2 == 0 and (i // 2) % 2 or (i // 2) % 3 end, -- (camera, point)
             w = function(_, r) return r:float(0.5, 1.5) end } },
  -- its gates and predictions from malloc; even main (printf) is lowered
  { file = "lstmstyle.c", fname = "lstm_loss", left = {}, ints = { layers = 2, steps = 4, b = 3 },
    sizes = { main_params = 48, extra_params = 9, state = 12, sequence = 12, loss = 1 } },
}

-- The cells of an array parameter: the product of its dims.
local function cells(p)
  local n = 1
  for d in p.type:gmatch("%[(%d+)%]") do n = n * tonumber(d) end
  return n
end

-- A call of fname (core form) from the program's table.
local function make_call(k, prog, r)
  local fn
  for _, f in ipairs(k:functions()) do if f.name == prog.fname then fn = f end end
  local arrays, args = {}, {}
  for i, p in ipairs(fn.params) do
    local base = p.type:find("int") and "int" or "double"
    if p.type:find("[%*%[]") then
      local n = (prog.sizes or {})[p.name] or cells(p)
      local v, fill = {}, (prog.fill or {})[p.name]
      for j = 1, n do
        v[j] = fill and fill(j - 1, r) or (base == "int" and r:int(0, 1) or r:float(-1, 1))
      end
      arrays[#arrays + 1] = { name = p.name, type = base, values = v }
      args[i] = { array = #arrays, offset = 0 }
    elseif base == "int" then args[i] = { int = assert(prog.ints[p.name], p.name) }
    else args[i] = { double = assert(prog.doubles[p.name], p.name) } end
  end
  if fn.ret == "double" then -- the wrapper's cell for the result
    arrays[#arrays + 1] = { name = "realc_out", type = "double", values = { 0 } }
    args[#args + 1] = { array = #arrays, offset = 0 }
  end
  return { arrays = arrays, args = args }, fn
end

-- A kernel text that includes the program unmodified (its main renamed, so a
-- driver can be linked with it) and calls its kernel from a function that
-- is not static (storing a double result in a cell of its own).
local function wrapper(prog, fn)
  local decls, names = T.c_params(fn)
  local store = ""
  if fn.ret == "double" then decls[#decls + 1], store = "double *realc_out", "*realc_out = " end
  return ("#define main realc_main\n#include \"%s/%s\"\n#undef main\nvoid realc_entry(%s) {\n  %s%s(%s);\n}\n")
    :format(ABS, prog.file, table.concat(decls, ", "), store, prog.fname, table.concat(names, ", "))
end

describe("real C programs, read as they are", function()
  for _, prog in ipairs(PROGRAMS) do
    it(prog.file .. ": --function " .. prog.fname .. " reads it; the rest is left alone", function()
      local k = assert(cgwb.read_kernel(DIR .. "/" .. prog.file, nil, { functions = { prog.fname } }))
      local left = {}
      for _, f in ipairs(k:left_alone()) do left[#left + 1] = f.name end
      table.sort(left)
      local want = { table.unpack(prog.left) }
      table.sort(want)
      assert.same(want, left)
      for _, f in ipairs(k:left_alone()) do
        assert.truthy(f.why:find("^[^:]+:%d+:%d+: "), f.why) -- each with its place and reason
      end
      local out, err, code = H.cgwb("kernel " .. DIR .. "/" .. prog.file .. " --function " .. prog.fname)
      assert.equal(0, code, err)
      assert.truthy(out:find("function %d+: [%w ]+" .. prog.fname), out)
    end)
  end

  for n, prog in ipairs(PROGRAMS) do
    it(prog.file .. ": tangent and adjoint code of " .. prog.fname .. " against the compiled program", function()
      local r = rng.new(100 + n)
      local k0 = assert(cgwb.read_kernel(DIR .. "/" .. prog.file, nil, { functions = { prog.fname } }))
      local call, fn = make_call(k0, prog, r)
      local text = wrapper(prog, fn)
      TC.check({ TC.make_case(text, prog.file, "realc_entry", call) })
      AC.check(text, "realc_entry", call, { loops = "auto", seed = n, lenient_kernel = true, flags = prog.cflags })
    end)
  end
end)
