-- spec/addriver.lua: compile and run generated adjoint code (doc/adjoint-code.md)
-- for the specs (31 to 33).  One executable per (adjoint file, kernel, function):
-- the adjoint's translation unit, the kernel's own (for primal runs and finite
-- differences) and a generated main that reads a call from stdin, so one
-- compilation serves many calls and seeds.
--
--   local A = require "addriver"
--   local exe = A.compile_adjoint(src, "F", kernel_src [, {flags = "-fsanitize=address,undefined"}])
--   local r = A.run(exe, call, seeds)      -- calls F_b
--   local p = A.primal(exe, call)          -- calls the kernel's F (compiled from kernel_src)
--   A.fd(exe, call, xd, yb [, h])          -- central difference of <yb, F(x + h xd)>
--   A.free(exe)
--
-- call: as tdriver.any_call makes it, {arrays = {{name, type = "double"|"int",
-- values}}, args = {{array = i, offset = o} | {int = v} | {double = v}}}.
-- seeds: {arrays = {[i] = {values, as long as array i}}, args = {[k] = v (the
-- initial adjoint of by-value double argument k)}, ret = v (the adjoint of a
-- double result)}; absent entries are 0.
-- r (and p): {P = {[i] = values after the call}, B = {[i] = adjoints after
-- the call} (double arrays), S = {[k] = adjoint of by-value argument k},
-- R = result (a double or int result), stats = {pushed, high_water, snapshot,
-- snapshot_high} (F_b_stats after the call; F_b_reset is called before it)}.
-- xd for fd: {arrays = {[i] = values}, args = {[k] = v}}: the direction of
-- the double cells and by-value doubles; fd returns <yb, (y(x+h xd) -
-- y(x-h xd)) / 2h> with y the double arrays after the call (and the result
-- weighted by yb.ret).
local H = require "spec.helper"
local cgwb = require "cgwb"
local T = require "tdriver"

local M = {}

M.CC = T.CC .. " -Wno-unknown-pragmas" -- the kernels' own #pragma cgwb lines
M.RUNTIME = "lua/cgwb/runtime" -- cgwb_adstack.h
M.TIMEOUT = 60 -- seconds a run may take (a wrong adjoint may loop forever)

-- The parameter list of fname in kernel k.
local function fn_of(k, fname)
  for _, f in ipairs(k:functions()) do if f.name == fname then return f end end
  error("addriver: no function " .. fname)
end

-- The argument expression of a pointer parameter p into array variable v.
local function cast_of(p)
  return p.type:find("%[%d*%]%[") and ("(" .. p.type:match("^(.-)%s*%[") .. " (*)" .. p.type:match("^.-%[%d*%](%[.*)$") .. ")")
    or ""
end

-- The generated main: reads the call, calls F_b or F, prints the results;
-- null: {[param name] = true} whose adjoint argument is NULL (passive).
-- The members of the struct parameter whose first member is parameter i
-- of fn: their indices (consecutive parameters).
local function struct_members(fn, i)
  local out, p = { i }, fn.params[i]
  local j = i + 1
  while fn.params[j] and fn.params[j].struct and not fn.params[j].struct.first
      and fn.params[j].struct.var == p.struct.var do
    out[#out + 1] = j
    j = j + 1
  end
  return out
end

local function main_text(fn, fname, null, structs)
  null = null or {}
  local out = { "#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>", '#include "cgwb_adstack.h"' }
  for _, d in ipairs(structs or {}) do out[#out + 1] = d end -- the kernel's struct types
  local decls, bdecls, names = {}, {}, {}
  for i, p in ipairs(fn.params) do
    if p.struct then -- S s by value (S *p), S *sb after it in F_b
      if p.struct.first then
        local ptr = p.type:find("%[") ~= nil
        decls[#decls + 1] = ((ptr and p.const) and "const " or "") .. p.struct.type .. (ptr and " *" or " ")
          .. p.struct.var
        bdecls[#bdecls + 1] = decls[#decls]
        bdecls[#bdecls + 1] = p.struct.type .. " *" .. p.struct.var .. "_adb"
      end
      goto next_param
    end
    decls[#decls + 1] = T.param_decl(p)
    names[i] = p.name
    bdecls[#bdecls + 1] = T.param_decl(p)
    if p.type:find("double") then
      local star = p.type:find("[%*%[]") and "" or "*"
      local bp = { name = p.name .. "_adb", type = p.type:gsub("^const ", "") }
      bdecls[#bdecls + 1] = star == "*" and ("double *" .. bp.name) or T.param_decl(bp)
    end
    ::next_param::
  end
  local ret = fn.ret or "void"
  if ret == "double" then bdecls[#bdecls + 1] = "double retb_" end
  out[#out + 1] = ("%s %s(%s);"):format(ret, fname, #decls > 0 and table.concat(decls, ", ") or "void")
  out[#out + 1] = ("%s %s_b(%s);"):format(ret, fname, #bdecls > 0 and table.concat(bdecls, ", ") or "void")
  out[#out + 1] = ("void %s_b_stats(cgwb_adstats *out);"):format(fname)
  out[#out + 1] = ("void %s_b_reset(void);"):format(fname)
  out[#out + 1] = [[
static double rd(void) {
  char buf[64];
  if (scanf("%63s", buf) != 1) { fprintf(stderr, "addriver: short input\n"); exit(3); }
  return strtod(buf, NULL);
}
static void pr(const char *tag, int i, const double *v, int n) {
  int j;
  printf("%s %d", tag, i);
  for (j = 0; j < n; j++) printf(" %a", v[j]);
  printf("\n");
}
int main(void) {
  int mode, na, i, j;
  int len[64], isint[64];
  double *D[64], *B[64];
  int *I[64];
  cgwb_adstats st;
  memset(D, 0, sizeof D); memset(B, 0, sizeof B); memset(I, 0, sizeof I);
  if (scanf("%d %d", &mode, &na) != 2 || na > 64) return 3;
  for (i = 0; i < na; i++) {
    isint[i] = (int)rd();
    len[i] = (int)rd();
    if (isint[i]) {
      I[i] = malloc(sizeof(int) * (size_t)(len[i] + 1));
      for (j = 0; j < len[i]; j++) I[i][j] = (int)rd();
    } else {
      D[i] = malloc(sizeof(double) * (size_t)(len[i] + 1));
      B[i] = malloc(sizeof(double) * (size_t)(len[i] + 1));
      for (j = 0; j < len[i]; j++) D[i][j] = rd();
      for (j = 0; j < len[i]; j++) B[i][j] = rd();
    }
  }
  {]]
  local args, bargs, nfree = {}, {}, {}
  local built, back = {}, {} -- struct arguments, built from their members' values once all are read; copied back
  for i, p in ipairs(fn.params) do
    local isd = p.type:find("double") ~= nil
    if p.struct and p.struct.pointer then -- a member of S *q: copied into a struct and back around the call
      local f = i
      while not fn.params[f].struct.first do f = f - 1 end
      if f == i then
        built[#built + 1] = ("    %s qv%d, qb%d;"):format(p.struct.type, i, i)
        args[#args + 1] = "&qv" .. i
        bargs[#bargs + 1] = "&qv" .. i
        local all_null = true
        for _, j in ipairs(struct_members(fn, i)) do
          if fn.params[j].type:find("double") and not null[fn.params[j].name] then all_null = false end
        end
        bargs[#bargs + 1] = all_null and "NULL" or ("&qb" .. i)
      end
      out[#out + 1] = ("    int a%d = (int)rd(), o%d = (int)rd();"):format(i, i)
      local m = p.struct.member
      local arr = isd and "D" or "I"
      if not p.type:find("%[") then -- a pointer member: it points into the array
        built[#built + 1] = ("    qv%d.%s = %s[a%d] + o%d;"):format(f, m, arr, i, i)
        if isd then built[#built + 1] = ("    qb%d.%s = B[a%d] + o%d;"):format(f, m, i, i) end
        goto next_arg
      end
      built[#built + 1] = ("    memcpy(&qv%d.%s, %s[a%d] + o%d, sizeof qv%d.%s);"):format(f, m, arr, i, i, f, m)
      if isd then built[#built + 1] = ("    memcpy(&qb%d.%s, B[a%d] + o%d, sizeof qb%d.%s);"):format(f, m, i, i, f, m) end
      back[#back + 1] = ("    memcpy(%s[a%d] + o%d, &qv%d.%s, sizeof qv%d.%s);"):format(arr, i, i, f, m, f, m)
      if isd then back[#back + 1] = ("    memcpy(B[a%d] + o%d, &qb%d.%s, sizeof qb%d.%s);"):format(i, i, f, m, f, m) end
    elseif p.struct then -- its members are read as parameters of their own
      local pm = p.type:find("%*") ~= nil -- a pointer member: into an array
      if pm then
        out[#out + 1] = ("    int a%d = (int)rd(), o%d = (int)rd();"):format(i, i)
        out[#out + 1] = ("    %s *v%d = %s[a%d] + o%d;"):format(isd and "double" or "int", i, isd and "D" or "I", i, i)
        if isd then out[#out + 1] = ("    double *s%d = B[a%d] + o%d;"):format(i, i, i) end
      elseif isd then out[#out + 1] = ("    double v%d = rd(), s%d = rd();"):format(i, i)
      else out[#out + 1] = ("    int v%d = (int)rd();"):format(i) end
      if p.struct.first then
        local vs, ss, all_null = {}, {}, true
        for _, j in ipairs(struct_members(fn, i)) do
          vs[#vs + 1] = "v" .. j
          local dj = fn.params[j].type:find("double") ~= nil
          ss[#ss + 1] = dj and ("s" .. j) or "0"
          if fn.params[j].type:find("%*") and not dj then ss[#ss] = "NULL" end
          if dj and not null[fn.params[j].name] then all_null = false end
        end
        built[#built + 1] = ("    %s sv%d = {%s}, sb%d = {%s};"):format(p.struct.type, i, table.concat(vs, ", "), i,
          table.concat(ss, ", "))
        built[#built + 1] = ("    (void)sb%d;"):format(i)
        args[#args + 1] = "sv" .. i
        bargs[#bargs + 1] = "sv" .. i
        bargs[#bargs + 1] = all_null and "NULL" or ("&sb" .. i)
      end
    elseif p.type:find("[%*%[]") then
      out[#out + 1] = ("    int a%d = (int)rd(), o%d = (int)rd();"):format(i, i)
      local c = cast_of(p)
      if isd then
        args[#args + 1] = ("%s(D[a%d] + o%d)"):format(c, i, i)
        bargs[#bargs + 1] = args[#args]
        bargs[#bargs + 1] = null[p.name] and "NULL" or ("%s(B[a%d] + o%d)"):format(c:gsub("^%(const ", "("), i, i)
      else
        local ct = p.type:gsub("^const ", ""):match("^(.-)%s*[%*%[]")
        if ct ~= "int" then -- char, short, _Bool cells: a copy of the int array in that type
          out[#out + 1] = ("    %s *N%d = malloc(sizeof(%s) * (size_t)(len[a%d] + 1));"):format(ct, i, ct, i)
          out[#out + 1] = ("    for (j = 0; j < len[a%d]; j++) N%d[j] = (%s)I[a%d][j];"):format(i, i, ct, i)
          args[#args + 1] = ("%s(N%d + o%d)"):format(c, i, i)
          nfree[#nfree + 1] = ("free(N%d);"):format(i)
        else
          args[#args + 1] = ("%s(I[a%d] + o%d)"):format(c, i, i)
        end
        bargs[#bargs + 1] = args[#args]
      end
    elseif isd then
      out[#out + 1] = ("    double v%d = rd(), s%d = rd();"):format(i, i)
      args[#args + 1] = "v" .. i
      bargs[#bargs + 1] = "v" .. i
      bargs[#bargs + 1] = null[p.name] and "NULL" or ("&s" .. i)
    else
      out[#out + 1] = ("    int v%d = (int)rd();"):format(i)
      args[#args + 1] = "v" .. i
      bargs[#bargs + 1] = "v" .. i
    end
    ::next_arg::
  end
  for _, l in ipairs(built) do out[#out + 1] = l end
  out[#out + 1] = "    double retb = rd();"
  out[#out + 1] = "    (void)retb;"
  if ret == "double" then bargs[#bargs + 1] = "retb" end
  local call = ("%s(%s)"):format(fname, table.concat(args, ", "))
  local bcall = ("%s_b(%s)"):format(fname, table.concat(bargs, ", "))
  if ret == "void" then
    out[#out + 1] = ("    if (mode == 1) %s; else { %s_b_reset(); %s; }"):format(call, fname, bcall)
    for _, l in ipairs(back) do out[#out + 1] = l end
  else
    out[#out + 1] = ("    double r = mode == 1 ? (double)%s : (%s_b_reset(), (double)%s);"):format(call, fname, bcall)
    for _, l in ipairs(back) do out[#out + 1] = l end
    out[#out + 1] = '    printf("R %a\\n", r);'
  end
  local first -- the struct a member belongs to: its first member's index
  for i, p in ipairs(fn.params) do
    if p.struct and p.struct.first then first = i end
    if p.struct and p.type:find("%[") then -- a member of S *q: its cells are an array's
    elseif p.struct and p.type:find("double") and not p.type:find("%*") then
      out[#out + 1] = ('    printf("S %d %%a\\n", sb%d.%s);'):format(i, first, p.struct.member)
    elseif p.type:find("double") and not p.type:find("[%*%[]") then
      out[#out + 1] = ('    printf("S %d %%a\\n", s%d);'):format(i, i)
    end
  end
  if #nfree > 0 then out[#out + 1] = "    " .. table.concat(nfree, " ") end
  out[#out + 1] = "  }"
  out[#out + 1] = [[
  for (i = 0; i < na; i++) if (!isint[i]) { pr("P", i + 1, D[i], len[i]); pr("B", i + 1, B[i], len[i]); }
  for (i = 0; i < na; i++) { free(D[i]); free(B[i]); free(I[i]); }]]
  out[#out + 1] = ("  %s_b_stats(&st);"):format(fname)
  out[#out + 1] = [[
  printf("STATS %lu %lu %lu %lu\n", (unsigned long)st.pushed, (unsigned long)st.high_water,
         (unsigned long)st.snapshot, (unsigned long)st.snapshot_high);
  return 0;
}]]
  return table.concat(out, "\n") .. "\n"
end

--- Compiles adjoint text src (defining fname_b) with the kernel text it
-- comes from and a generated main.  opts: flags (extra cc flags, e.g.
-- sanitizers), cc (instead of M.CC), env ("VAR=value" words the program
-- runs with, e.g. ASAN_OPTIONS), null (parameter names whose adjoint is
-- passed as NULL: a passive parameter's, which F_b must never touch), lenient_kernel (compile
-- kernel_src alone without -Werror: a real program with its own warnings), read (cgwb.read_kernel's options:
-- externals), extra (C files compiled with them: the externals' code).  Returns an exe handle, or raises
-- with the compiler's messages.
function M.compile_adjoint(src, fname, kernel_src, opts)
  opts = opts or {}
  local k = assert(cgwb.read_kernel(kernel_src, "kernel.c", opts.read)) -- read: its options (externals)
  local fn = fn_of(k, fname)
  local files = { H.write(H.tmp(".c"), src), H.write(H.tmp(".c"), kernel_src),
                  H.write(H.tmp(".c"), main_text(fn, fname, opts.null,
                    require("cgwb.ir.unparse").writer(k:flat(), require("cgwb.kparse").layout()):struct_defs())) }
  local exe, log = H.tmp(".exe"), H.tmp(".log")
  local ok = true
  if opts.lenient_kernel then -- a real program's own warnings are not the generated code's
    local obj = H.tmp(".o")
    ok = os.execute(("%s -w %s -c -o %s %s 2>%s"):format(T.CC:gsub(" %-Werror", ""):gsub(" %-pedantic", ""),
      opts.flags or "", obj, files[2], log))
    os.remove(files[2])
    files[2] = obj
  end
  local cmd = ("%s %s -I%s -o %s %s %s -lm 2>%s"):format(opts.cc or M.CC, opts.flags or "", M.RUNTIME, exe,
    table.concat(files, " "), table.concat(opts.extra or {}, " "), log)
  ok = ok and os.execute(cmd)
  local msg = H.read(log)
  os.remove(log)
  for _, f in ipairs(files) do os.remove(f) end
  if not ok then error("addriver: the adjoint code does not compile:\n" .. msg:sub(1, 4000), 2) end
  return { path = exe, fn = fn, fname = fname, warnings = msg, env = opts.env }
end

local function hex(v) return ("%a"):format(v) end

-- The input text of a call (mode 0 adjoint, 1 primal).
local function input(exe, mode, call, seeds, xd, h)
  seeds, xd, h = seeds or {}, xd or {}, h or 0
  local sa, sg = seeds.arrays or {}, seeds.args or {}
  local xa, xg = xd.arrays or {}, xd.args or {}
  local t = { mode, #call.arrays }
  for i, a in ipairs(call.arrays) do
    local isint = (a.type or "double") == "int"
    t[#t + 1] = isint and 1 or 0
    t[#t + 1] = #a.values
    for j, v in ipairs(a.values) do
      t[#t + 1] = isint and ("%d"):format(v) or hex(v + h * ((xa[i] or {})[j] or 0))
    end
    if not isint then for j = 1, #a.values do t[#t + 1] = hex((sa[i] or {})[j] or 0) end end
  end
  for i, a in ipairs(call.args) do
    if a.array then t[#t + 1] = a.array - 1; t[#t + 1] = a.offset
    elseif a.int then t[#t + 1] = a.int
    else t[#t + 1] = hex(a.double + h * (xg[i] or 0)); t[#t + 1] = hex(sg[i] or 0) end
  end
  t[#t + 1] = hex(seeds.ret or 0)
  return table.concat(t, " ") .. "\n"
end

-- Runs exe on input text: the parsed output.
local function exec(exe, text)
  local inp, outp, errp = H.write(H.tmp(".in"), text), H.tmp(".out"), H.tmp(".err")
  local ok, _, code = os.execute(("timeout %d %s%s <%s >%s 2>%s"):format(M.TIMEOUT, exe.env and ("env " .. exe.env .. " ") or "",
    exe.path, inp, outp, errp))
  local out, err = H.read(outp), H.read(errp)
  os.remove(inp); os.remove(outp); os.remove(errp)
  if not ok then error(("addriver: %s exited with %s:\n%s"):format(exe.fname, tostring(code), err:sub(1, 4000)), 3) end
  local r = { P = {}, B = {}, S = {}, stderr = err, other = {} } -- other: the kernel's own lines (printf)
  for line in out:gmatch("[^\n]+") do
    local tag, rest = line:match("^(%u+) ?(.*)$")
    if not (tag == "R" or tag == "S" or tag == "P" or tag == "B" or tag == "STATS") then r.other[#r.other + 1] = line end
    if tag == "R" then r.R = T.num(rest)
    elseif tag == "S" then
      local k, v = rest:match("^(%d+) (%S+)$")
      r.S[tonumber(k)] = T.num(v)
    elseif tag == "P" or tag == "B" then
      local vals, i = {}, nil
      for x in rest:gmatch("%S+") do
        if not i then i = tonumber(x) else vals[#vals + 1] = T.num(x) end
      end
      r[tag][i] = vals
    elseif tag == "STATS" then
      local a, b, c, d = rest:match("^(%d+) (%d+) (%d+) (%d+)$")
      r.stats = { pushed = tonumber(a), high_water = tonumber(b), snapshot = tonumber(c), snapshot_high = tonumber(d) }
    end
  end
  return r
end

--- Runs the adjoint F_b on call with seeds (see the top).
function M.run(exe, call, seeds)
  return exec(exe, input(exe, 0, call, seeds))
end

--- Runs the kernel's own F on call: {P, R} (B holds zeros).
function M.primal(exe, call)
  return exec(exe, input(exe, 1, call, nil))
end

--- Central finite difference <yb, (y(x + h xd) - y(x - h xd)) / 2h>.
function M.fd(exe, call, xd, yb, h)
  h = h or 1e-6
  local p = exec(exe, input(exe, 1, call, nil, xd, h))
  local m = exec(exe, input(exe, 1, call, nil, xd, -h))
  local s = 0
  for i = 1, #call.arrays do
    local w = (yb.arrays or {})[i] or {}
    for j, v in ipairs(p.P[i] or {}) do s = s + (w[j] or 0) * (v - m.P[i][j]) / (2 * h) end
  end
  if p.R and yb.ret then s = s + yb.ret * (p.R - m.R) / (2 * h) end
  return s
end

--- Removes the executable.
function M.free(exe) os.remove(exe.path) end

return M
