-- spec/44-embed_spec.lua: the C library and embedding (doc/c-api.md), the
-- parts that need no install (scripts/check-rockspec.sh checks the installed
-- copy).  doc/c-api.md shows every examples/c-api program as it is; the
-- umbrella header includes every public header and the public headers (only
-- they) export their declarations; the built libraries export what they
-- should; the core has no mutable global data beyond an allow-list; an
-- example program agrees with the Lua face; the C host's lua_States stay
-- apart.  Each detector is also run on a counterexample it must flag.
local H = require "spec.helper"
local cgwb = require "cgwb"

local function ls(pattern)
  local out, p = {}, io.popen("ls " .. pattern .. " 2>/dev/null")
  for l in p:lines() do out[#out + 1] = l end
  p:close()
  return out
end

local function run(cmd)
  local p = io.popen(cmd .. " 2>&1")
  local out = p:read("a")
  local ok = p:close()
  return out, ok
end

local san = H.build:find("debug") and "-fsanitize=address,undefined" or "" -- the sanitizer build's objects

-- {==== the doc's listings ====}

-- The examples/c-api files whose text doc does not show as a ```c block.
local function unlisted(doc, files)
  local missing = {}
  for _, f in ipairs(files) do
    if not doc:find("```c\n" .. H.read(f) .. "```\n", 1, true) then missing[#missing + 1] = f end
  end
  return missing
end

describe("doc/c-api.md", function()
  local files = ls("examples/c-api/*.c")

  it("shows every examples/c-api program as it is", function()
    assert.is_true(#files >= 5)
    assert.same({}, unlisted(H.read("doc/c-api.md"), files))
  end)

  it("(a changed program is caught)", function()
    local doc = H.read("doc/c-api.md")
    local changed = H.write(H.tmp(".c"), H.read(files[1]):gsub("return 0;", "return 1;", 1))
    assert.same({ changed }, unlisted(doc, { changed }))
    os.remove(changed)
  end)
end)

-- {==== headers ====}

-- The public headers: those make install installs (Makefile's PUBLIC_HEADERS).
local function public_headers()
  local out = {}
  for _, h in ipairs(ls("csrc/*/*.h")) do
    if not (h:match("_impl%.h$") or h:match("^csrc/lua/") or h == "csrc/elim/cg_cand.h"
            or h == "csrc/elim/cg_colpack.h") then
      out[#out + 1] = h
    end
  end
  return out
end

-- Public headers the umbrella does not include (the X-macro helpers
-- cg_gopx_*.h come through cg_gops.h).
local function not_in_umbrella(umbrella, headers)
  local inc, missing = {}, {}
  for f in umbrella:gmatch('#include "([^"]+)"') do inc["csrc/" .. f] = true end
  for _, h in ipairs(headers) do
    if not inc[h] and not h:match("cg_gopx_") then missing[#missing + 1] = h end
  end
  return missing
end

-- Headers whose visibility does not match: public ones must push default
-- visibility (and pop it), internal ones must not.
local function wrong_visibility(headers, public)
  local bad = {}
  for _, h in ipairs(headers) do
    local text = H.read(h)
    local push = text:find("#pragma GCC visibility push(default)", 1, true) ~= nil
    local pop = text:find("#pragma GCC visibility pop", 1, true) ~= nil
    if (public[h] or false) ~= (push and pop) or push ~= pop then bad[#bad + 1] = h end
  end
  return bad
end

describe("the public headers", function()
  local headers = public_headers()

  it("are all included by the umbrella csrc/cgwb.h", function()
    assert.same({}, not_in_umbrella(H.read("csrc/cgwb.h"), headers))
    assert.same({ "csrc/tape/cg_tape.h" },
      not_in_umbrella(H.read("csrc/cgwb.h"):gsub('#include "tape/cg_tape.h"\n', ""), headers))
  end)

  it("and only they declare with default visibility (the exports of libcgwb.so)", function()
    local public = {}
    for _, h in ipairs(headers) do public[h] = not h:match("cg_gopx_") or nil end
    local all = ls("csrc/*/*.h")
    local checked = {}
    for _, h in ipairs(all) do
      if not h:match("cg_gopx_") then checked[#checked + 1] = h end
    end
    assert.same({}, wrong_visibility(checked, public))
    local fake = H.write(H.tmp(".h"), "#ifndef X_H\n#define X_H\nint cg_x(void);\n#endif\n")
    assert.same({ fake }, wrong_visibility({ fake }, { [fake] = true }))
    os.remove(fake)
  end)

  it("compile alone and together as C99 with every warning", function()
    local src = {}
    for _, h in ipairs(headers) do
      if not h:match("cg_gopx_") then src[#src + 1] = ('#include "%s"'):format(h:sub(6)) end
    end
    src[#src + 1] = '#include "cgwb.h"\nint main(void) { return CG_OK; }\n'
    local c = H.write(H.tmp(".c"), table.concat(src, "\n"))
    local out, ok = run(("cc -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only -Icsrc %s"):format(c))
    assert.is_true(ok, out)
    for _, h in ipairs(headers) do -- each one on its own: self-contained
      if not h:match("cg_gopx_") then
        H.write(c, ('#include "%s"\nint main(void) { return 0; }\n'):format(h:sub(6)))
        out, ok = run(("cc -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only -Icsrc %s"):format(c))
        assert.is_true(ok, h .. ": " .. out)
      end
    end
    os.remove(c)
  end)
end)

-- {==== the built libraries ====}

-- The defined dynamic symbols of a shared object, sorted.
local function exports(so)
  local out = {}
  for l in run("nm -D --defined-only " .. so):gmatch("[^\n]+") do
    local kind, name = l:match("%x+ (%a) (%S+)$")
    if kind and kind ~= "w" then out[#out + 1] = name end
  end
  table.sort(out)
  return out
end

describe("the built libraries", function()
  it("cgwb/core.so exports luaopen_cgwb_core alone", function()
    assert.same({ "luaopen_cgwb_core" }, exports(H.build .. "/cgwb/core.so"))
  end)

  it("libcgwb.so exports only cg_* functions, those of the examples among them", function()
    local so = H.build .. "/lib/libcgwb.so.0.1.0"
    local syms, set = exports(so), {}
    for _, s in ipairs(syms) do
      assert.truthy(s:match("^cg_"), s)
      set[s] = true
    end
    for _, f in ipairs(ls("examples/c-api/*.c")) do
      for name in H.read(f):gmatch("(cg_[%w_]+)%(") do assert.truthy(set[name], f .. ": " .. name) end
    end
    assert.falsy(set.cg_cand_push) -- internal to csrc/elim
    assert.truthy(run("objdump -p " .. so):find("SONAME%s+libcgwb%.so%.0\n"))
    assert.truthy(H.read(H.build .. "/lib/cgwb.pc"):find("Libs: -L${libdir} -lcgwb\n", 1, true))
  end)
end)

-- {==== no mutable global data ====}

-- Objects of writable sections (.data, .bss and their variants, not the
-- read-only-after-relocation .data.rel.ro) in the object files, as
-- "file:symbol", less the allow-list and the sanitizers' own (ASan's ODR
-- indicators, in the debug build).
local function mutable_objects(files, allowed)
  local found = {}
  for _, f in ipairs(files) do
    local obj = f:match("[^/]*$")
    for l in run("objdump -t " .. f):gmatch("[^\n]+") do
      obj = l:match("^(%S+%.o):%s+file format") or obj
      local sec, name = l:match("^%x+ [lgw! ]+O (%S+)%s+%x+ (%S+)$")
      if sec and (sec:match("^%.data") or sec:match("^%.bss") or sec == "*COM*")
         and not sec:match("^%.data%.rel%.ro") and not allowed[name]
         and not name:match("^__odr_asan") and not name:match("^__asan") and not name:match("^__ubsan") then
        found[#found + 1] = obj .. ":" .. name
      end
    end
  end
  table.sort(found)
  return found
end

describe("the core and its bindings", function()
  -- Each written once per process, or never written.
  local allowed = {
    cg_optab_full = "cg_ops.c: the opcode table with its permutations, filled once through pthread_once",
    cg_optab_plain = "cg_ops.c: filled with cg_optab_full",
    op_once = "cg_ops.c: the pthread_once control",
    cg_optab_ready = "cg_ops.c: set (release order) when the tables are filled",
    default_alloc = "cg_util.c: the default allocator, never written (cg_alloc * is not const)",
    _ZStL8__ioinit = "cg_colpack.cpp: <iostream>'s initializer, included by ColPack's headers",
    ["DW.ref.__gxx_personality_v0"] = "the C++ compiler's exception tables",
    ["DW.ref._ZTISt9bad_alloc"] = "the C++ compiler's exception tables",
  }

  it("have no mutable global or static data beyond the allow-list", function()
    local files = ls(H.build .. "/csrc/*/*.o")
    assert.is_true(#files > 40)
    assert.same({}, mutable_objects(files, allowed))
  end)

  it("(a static counter is caught)", function()
    local c, o = H.tmp(".c"), H.tmp(".o")
    H.write(c, "int cg_next(void);\nint cg_next(void) {\n  static int n;\n  return ++n;\n}\n"
      .. "static const int k[2] = {1, 2};\nint cg_k(int i);\nint cg_k(int i) { return k[i]; }\n")
    local out, ok = run(("cc -std=c99 -O2 -fPIC -c %s -o %s"):format(c, o))
    assert.is_true(ok, out)
    local found = mutable_objects({ o }, allowed)
    assert.equal(1, #found)
    assert.truthy(found[1]:match(":n%.%d+$") or found[1]:match(":n$"), found[1])
    os.remove(c)
    os.remove(o)
  end)
end)

-- {==== programs against the library ====}

describe("examples/c-api/04-eliminate.c against build's libcgwb.a", function()
  it("counts what the Lua face counts", function()
    local inc = H.tmp("-inc")
    os.execute(("mkdir -p %s && ln -sfn %s/csrc %s/cgwb"):format(inc, os.getenv("PWD"), inc))
    local exe = H.tmp(".exe")
    local out, ok = run(("cc -std=c99 -pedantic -Wall -Wextra -Werror %s -I%s examples/c-api/04-eliminate.c "
      .. "%s/lib/libcgwb.a -lColPack -lgomp -lstdc++ -lm -o %s"):format(san, inc, H.build, exe))
    assert.is_true(ok, out)
    for _, case in ipairs({ { "cavity", "forward" }, { "bratu", "min-fill" } }) do
      local tape = "examples/tapes/" .. case[1] .. ".tap"
      out, ok = run(("%s %s %s 2>/dev/null"):format(exe, tape, case[2]))
      assert.is_true(ok, out)
      local lg <close> = assert(cgwb.core.linearize(assert(cgwb.build_graph(tape))))
      local cost = assert(lg:eliminate(case[2]))
      local J = assert(lg:jacobian())
      assert.equal(("adds %d\nfill %d\nmults %d\nmults_nontrivial %d\nnnz %d\nsteps %d\n")
        :format(cost.adds, cost.fill, cost.mults, cost.mults_nontrivial, J.nnz, cost.steps), out)
    end
    out, ok = run(exe .. " examples/tapes/bratu.tap no-such-order")
    assert.falsy(ok)
    assert.equal("no-such-order: no vertex ordering of that name\n", out)
    os.remove(exe)
    os.execute("rm -rf " .. inc)
  end)
end)

describe("examples/c-host/host.c", function()
  it("keeps its lua_States apart (limits, results, closing, two threads)", function()
    -- an install layout over the work tree: P/share/lua/5.4 and P/lib/lua/5.4
    local P, root = H.tmp("-prefix"), os.getenv("PWD")
    os.execute(("mkdir -p %s/share/lua %s/lib/lua && ln -sfn %s/lua %s/share/lua/5.4 && ln -sfn %s/%s %s/lib/lua/5.4")
      :format(P, P, root, P, root, H.build, P))
    local exe = H.tmp(".exe")
    local out, ok = run(("cc -std=c99 -pedantic -Wall -Wextra -Werror examples/c-host/host.c "
      .. "$(pkg-config --cflags --libs lua5.4) -pthread -o %s"):format(exe))
    assert.is_true(ok, out)
    out, ok = run(("env -u CGWB_MEMORY_LIMIT %s %s %s examples/tapes/bratu.tap examples/tapes/cavity.tap")
      :format(H.san_preload and ("LD_PRELOAD='" .. H.san_preload .. "'") or "", exe, P)) -- it loads the module
    assert.is_true(ok, out)
    assert.truthy(out:find("\nhost: 15 passed, 0 failed\n$"), out)
    assert.truthy(out:find("\nok A's limit stops A's job\n", 1, true), out)
    assert.truthy(out:find("\nok thread 2 (no limit) gives B's result\n", 1, true), out)
    -- the results are the Lua face's
    local lg <close> = assert(cgwb.core.linearize(assert(cgwb.build_graph("examples/tapes/cavity.tap"))))
    local cost = assert(lg:eliminate("markowitz"))
    assert.truthy(out:find(("\nB: cavity.tap: nnz %d, mults %d, "):format(lg:jacobian().nnz, cost.mults), 1, true), out)
    os.remove(exe)
    os.execute("rm -rf " .. P)
  end)
end)
