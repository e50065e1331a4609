-- spec/46-ir_spec.lua: cgwb.ir, the one view of the kernel IR the back ends
-- read.  Its records agree with the raw rows part by part (the parts from
-- the core's CG_KSTMT_PARTS); its dispatch tables refuse a missing, unknown
-- or doubled kind, so a kind added to the layout stops every back end when
-- its module loads; the printer's two modes keep every tree (printed, read
-- back by the front end, the same tree) on many generated expressions.
local H = require "spec.helper"
local rng = require "rng"
local kparse = require "cgwb.kparse"
local ir = require "cgwb.ir"
local cprint = require "cgwb.ir.cprint"
local core = require "cgwb.core"

local LAY = core.kernel_layout()

local function kernels()
  local out, p = {}, io.popen("ls examples/kernels/*.c spec/support/*-adbench.c")
  for f in p:lines() do out[#out + 1] = f end
  p:close()
  return out
end

describe("cgwb.ir's view", function()
  it("gives every part of every statement of the shipped kernels as the raw slots hold it", function()
    local nparts = 0
    for _, file in ipairs(kernels()) do
      local flat = assert(kparse.parse(H.read(file), file))
      local v = ir.view(flat)
      assert.equal(v, ir.view(flat)) -- one view a flat table
      for s = 0, v.nstmt - 1 do
        local r = v:stmt(s)
        assert.equal(LAY.stmts[v:get("stmt", s, "KIND") + 1], r.kind)
        assert.equal(r, v:stmt(s)) -- cached
        for _, p in ipairs(LAY.stmt_parts[r.kind]) do
          local raw = flat.stmt[s * LAY.width.stmt + p.offset]
          if p.what == "list" or p.what == "args" then
            local n = flat.stmt[s * LAY.width.stmt + p.offset + 1]
            assert.equal(n, #r[p.name])
            for i = 1, n do assert.equal(flat[p.what == "args" and "args" or "list"][raw + i], r[p.name][i]) end
          elseif raw < 0 then
            assert.is_nil(r[p.name], file .. ": " .. r.kind .. "." .. p.name)
          else
            assert.equal(raw, r[p.name])
          end
          nparts = nparts + 1
        end
      end
    end
    assert.is_true(nparts > 1000, "parts checked: " .. nparts)
  end)

  it("names every slot a kind uses once, and the list parts in the order they run", function()
    for _, kind in ipairs(LAY.stmts) do
      local seen = {}
      for _, p in ipairs(LAY.stmt_parts[kind]) do
        local slots = (p.what == "list" or p.what == "args") and { p.offset, p.offset + 1 } or { p.offset }
        for _, o in ipairs(slots) do
          assert.is_nil(seen[o], kind .. ": slot " .. o .. " twice")
          assert.is_true(o >= LAY.stmt.X0 and o <= LAY.stmt.X6)
          seen[o] = true
        end
      end
    end
    local names = {}
    for _, p in ipairs(LAY.stmt_parts.loop) do if p.what == "list" then names[#names + 1] = p.name end end
    assert.same({ "pre", "body", "step" }, names)
  end)

  it("walks a loop's pre, body and step slices in the order they run, with depth and part", function()
    local flat = assert(kparse.parse([[
void f(int n, double *y) {
  int i;
  for (i = 0; i < n; i++) { if (y[i] > 0.0) y[i] = 1.0; else y[i] = 2.0; }
}]], "walk.c"))
    local v, seen = ir.view(flat), {}
    v:walk(v:func(0).body, function(r, depth, part) seen[#seen + 1] = r.kind .. "@" .. depth .. ":" .. (part or "-") end)
    assert.same({ "assign@0:-", "loop@0:-", "if@1:body", "assign@2:then", "assign@2:else", "assign@1:step" }, seen)
  end)
end)

describe("cgwb.ir.cases", function()
  local all = {}
  for _, k in ipairs(LAY.stmts) do all[k] = function(kind, x) return kind .. x end end

  it("dispatches every kind, grouped or not", function()
    local D = ir.cases("stmt", "test", {
      ["assign|call"] = function(k) return "simple " .. k end, ["if"] = function() return "if" end,
      loop = function() return "loop" end, ["return"] = function() return "ret" end,
      ["break|continue"] = function(k) return k end, ["alloc|free"] = function(k) return "heap " .. k end,
      passive = function() return "passive" end,
    })
    assert.equal("passive", D("passive"))
    assert.equal("simple call", D("call"))
    assert.equal("heap free", D("free"))
    assert.equal("continue", D("continue"))
    assert.has_error(function() D("goto") end, "test: no case for stmt kind 'goto'")
  end)

  it("refuses a table that leaves a kind out, names a kind that does not exist, or names one twice", function()
    local t = {}
    for k, f in pairs(all) do t[k] = f end
    t.loop = nil
    assert.has_error(function() ir.cases("stmt", "T", t) end, "T: no case for the stmt kind loop")
    t.loop, t["goto"] = all.loop, all.loop
    assert.has_error(function() ir.cases("stmt", "T", t) end, "T: a case for 'goto', which is no stmt kind")
    t["goto"], t["loop|if"] = nil, all.loop
    assert.has_error(function() ir.cases("stmt", "T", t) end, "T: two cases for 'loop'")
  end)

  it("stops every back end when the layout gains a statement or expression kind it does not handle", function()
    local saved_core, saved = package.loaded["cgwb.core"], {}
    local mods = { "cgwb.ir", "cgwb.ir.cprint", "cgwb.ir.unparse", "cgwb.kernel", "cgwb.tangent",
      "cgwb.xaif.export", "cgwb.adjoint" }
    for _, m in ipairs(mods) do saved[m] = package.loaded[m] end
    -- the loaded parts of cgwb.adjoint (lua/cgwb/adjoint/), which load again with it
    local function parts()
      local t = {}
      for n in pairs(package.loaded) do if n:match("^cgwb%.adjoint%.") then t[#t + 1] = n end end
      return t
    end
    local saved_parts = {}
    for _, m in ipairs(parts()) do saved_parts[m] = package.loaded[m] end
    local ok, err = pcall(function()
      for _, extra in ipairs { { "stmts", "goto" }, { "exprs", "comma" } } do
        local fake = setmetatable({ kernel_layout = function()
          local l = core.kernel_layout()
          l[extra[1]][#l[extra[1]] + 1] = extra[2]
          if extra[1] == "stmts" then l.stmt_parts[extra[2]] = {} end
          return l
        end }, { __index = saved_core })
        package.loaded["cgwb.core"] = fake
        for _, m in ipairs(mods) do package.loaded[m] = nil end
        for _, m in ipairs(parts()) do package.loaded[m] = nil end
        require "cgwb.ir"
        local stopped = {}
        for _, m in ipairs(mods) do
          if m ~= "cgwb.ir" then
            local okm, e = pcall(require, m)
            if not okm and tostring(e):find("no case for the " .. (extra[1] == "stmts" and "stmt" or "expr") .. " kind "
              .. extra[2], 1, true) then stopped[#stopped + 1] = m end
            package.loaded[m] = nil
            for _, part in ipairs(parts()) do package.loaded[part] = nil end
          end
        end
        -- the statement dispatchers: every back end but the printer (expressions only)
        local want = extra[1] == "stmts" and { "cgwb.ir.unparse", "cgwb.kernel", "cgwb.tangent",
          "cgwb.xaif.export", "cgwb.adjoint" } or { "cgwb.ir.cprint", "cgwb.ir.unparse", "cgwb.kernel",
          "cgwb.tangent", "cgwb.adjoint" }
        table.sort(stopped); table.sort(want)
        assert.same(want, stopped)
      end
    end)
    package.loaded["cgwb.core"] = saved_core
    for _, m in ipairs(mods) do package.loaded[m] = saved[m] end
    for _, m in ipairs(parts()) do package.loaded[m] = nil end
    for m, part in pairs(saved_parts) do package.loaded[m] = part end
    assert(ok, err)
  end)
end)

-- {==== the printer ====}

-- A random side-effect-free expression over int i, j and double x, y, as
-- fully parenthesized C of the given type.
local function gen(r, d, ty)
  if d <= 0 or r:int(1, 4) == 1 then
    if ty == "int" then return ({ "i", "j", "3", "7" })[r:int(1, 4)] end
    return ({ "x", "y", "0.5", "2.25" })[r:int(1, 4)]
  end
  local k = r:int(1, 9)
  if k <= 3 then
    local op = ty == "int" and ({ "+", "-", "*", "/", "%" })[r:int(1, 5)] or ({ "+", "-", "*", "/" })[r:int(1, 4)]
    return ("(%s %s %s)"):format(gen(r, d - 1, ty), op, gen(r, d - 1, ty))
  end
  if k == 4 then return ("(-%s)"):format(gen(r, d - 1, ty)) end
  if k == 5 then
    local c = ("(%s %s %s)"):format(gen(r, d - 1, "double"), ({ "<", "<=", ">", ">=", "==", "!=" })[r:int(1, 6)],
      gen(r, d - 1, "double"))
    if ty == "int" then return c end
    return ("(%s ? %s : %s)"):format(c, gen(r, d - 1, ty), gen(r, d - 1, ty))
  end
  if k == 6 and ty == "int" then
    return ("(%s %s %s)"):format(gen(r, d - 1, "int"), r:int(1, 2) == 1 and "&&" or "||", gen(r, d - 1, "int"))
  end
  if k == 6 then return ("sin(%s)"):format(gen(r, d - 1, ty)) end
  if k == 7 then return ty == "int" and ("(!%s)"):format(gen(r, d - 1, "int")) or ("pow(%s, %s)"):format(gen(r, d - 1, ty), gen(r, d - 1, ty)) end
  if k == 8 then return ("((%s)%s)"):format(ty, gen(r, d - 1, ty == "int" and "double" or "int")) end
  return ("(%s ? %s : %s)"):format(gen(r, d - 1, "int"), gen(r, d - 1, ty), gen(r, d - 1, ty))
end

local function source(ty, e)
  return ("%s f(int i, int j, double x, double y) {\n  %s z;\n  z = %s;\n  return z;\n}\n"):format(ty, ty, e)
end

-- The tree of the expression assigned to z, as a string (ops, types, leaves).
local function tree(flat)
  local v = ir.view(flat)
  local function t(x)
    local r = v:expr(x)
    local leaf = r.value and tostring(r.value) or (r.sym and v:sym(r.sym).name) or r.fn or ""
    local kids = {}
    for _, y in ipairs(v:operands(x)) do kids[#kids + 1] = t(y) end
    return r.op .. ":" .. r.type .. ":" .. leaf .. "(" .. table.concat(kids, ",") .. ")"
  end
  for s = 0, v.nstmt - 1 do
    local r = v:stmt(s)
    if r.kind == "assign" and v:sym(v:expr(r.lhs).sym).name == "z" then return t(r.rhs) end
  end
end

local function rhs_text(flat, mode)
  local v = ir.view(flat)
  local P = cprint.new(v, { parens = mode })
  for s = 0, v.nstmt - 1 do
    local r = v:stmt(s)
    if r.kind == "assign" and v:sym(v:expr(r.lhs).sym).name == "z" then return P:expr(r.rhs) end
  end
end

describe("cgwb.ir.cprint", function()
  it("prints 300 generated expressions so that the front end reads back the same tree, in both modes", function()
    local fewer = 0
    for seed = 1, 300 do
      local r = rng.new(seed)
      local ty = r:int(1, 2) == 1 and "int" or "double"
      local text = gen(r, 5, ty)
      local flat = assert(kparse.parse(source(ty, text), "gen.c"))
      local want = tree(flat)
      for _, mode in ipairs { "needed", "all" } do
        local printed = rhs_text(flat, mode)
        local back, err = kparse.parse(source(ty, printed), "back.c")
        assert(back, ("seed %d, %s: %s -> %s: %s"):format(seed, mode, text, printed, tostring(err)))
        assert.equal(want, tree(back), ("seed %d, %s: %s"):format(seed, mode, printed))
        if mode == "needed" and #printed < #rhs_text(flat, "all") then fewer = fewer + 1 end
      end
    end
    assert.is_true(fewer > 100, "the precedence mode drops parentheses in " .. fewer .. " of 300")
  end)

  it("spells constants so they read back exactly, INT_MIN and -0.0 included", function()
    assert.equal("(-2147483647 - 1)", cprint.int(-2147483648))
    assert.equal("(-0.0)", cprint.double(-0.0))
    assert.equal("0.10000000000000001", cprint.double(0.1))
    assert.equal("HUGE_VAL", cprint.double(math.huge))
    assert.equal("NAN", cprint.double(0 / 0))
  end)
end)

describe("one error type", function()
  it("tells a bug in a back end from bad input: the input error comes back as nil, message, the bug is raised", function()
    local cgwb = require "cgwb"
    local tangent = require "cgwb.tangent"
    local emit = require "cgwb.ir.emit"
    local k = assert(cgwb.read_kernel("examples/kernels/utke-fig2.c"))
    local code, msg = tangent.emit(k, "fig2", { split = "nosuchsplit" })
    assert.is_nil(code)
    assert.truthy(msg:find("not a split strategy", 1, true), msg)
    local keep = emit.keep_read
    emit.keep_read = function() error("a bug in the emitter") end
    local ok, err = pcall(tangent.emit, k, "fig2", {})
    emit.keep_read = keep
    assert.is_false(ok)
    assert.truthy(tostring(err):find("a bug in the emitter", 1, true), tostring(err))
    assert(tangent.emit(k, "fig2", {})) -- and it works again
  end)

  it("tells a bug in adjoint code's generator from bad input and refusals: those come back as nil, message", function()
    local cgwb = require "cgwb"
    local adjoint = require "cgwb.adjoint"
    local emit = require "cgwb.ir.emit"
    local k = assert(cgwb.read_kernel("examples/kernels/utke-fig2.c"))
    local code, msg = adjoint.emit(k, "fig2", { independents = { "nosuch" } }) -- input
    assert.is_nil(code)
    assert.truthy(msg:find("'nosuch' is not a parameter of fig2", 1, true), msg)
    code, msg = adjoint.emit(k, "fig2", { loops = { 999 } }) -- input
    assert.is_nil(code)
    assert.truthy(msg:find("--loops: no loop starts at line 999", 1, true), msg)
    local kb = assert(cgwb.read_kernel("void f(int n, const double *x, double *y) {\n  int i;\n"
      .. "  for (i = 0; i < n; i++) { if (x[i] > 0.0) break; y[i] = x[i]; }\n}\n", "b.c"))
    code, msg = adjoint.emit(kb, "f") -- refused
    assert.is_nil(code)
    assert.equal("b.c:3:45: adjoint code: break is not supported yet", msg)
    -- a bug: a Lua error, or a table of the old {msg =} shape, raised inside the generator
    local new = emit.new
    for _, bug in ipairs { "a bug in the emitter", { msg = "a bug in the emitter" } } do
      emit.new = function() error(bug, 0) end
      local ok, err = pcall(adjoint.emit, k, "fig2", {})
      emit.new = new
      assert.is_false(ok)
      assert.equal(bug, err)
    end
    assert(adjoint.emit(k, "fig2", {})) -- and it works again
  end)
end)
