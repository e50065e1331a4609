--- spec/tcheck.lua: the tangent-code check of spec/24-tangent_spec.lua,
-- shared with spec/45-adjoint-constructs_spec.lua: cases (a kernel, a
-- function, a call) whose generated F_d, compiled together with a driver
-- in one cc call and run once per input direction, must give the
-- interpreter's primal results bit for bit and its tangent mode's
-- Jacobian (k:jacobian) to T.close_enough.
local H = require "spec.helper"
local cgwb = require "cgwb"
local tangent = require "cgwb.tangent"
local T = require "tdriver"
local lit, subject, num = T.lit, T.subject, T.num
local close_enough = T.close_enough
local assert = require "luassert" -- busted's, as in a spec file

local M = {}
-- the compiler (opts.cc of M.check: sanitizers), the runs' environment
local CC = T.CC


--- One C file for case n: the generated code made static, and case_n()
-- printing per direction d the lines "n d P a v..." (primal cells, d = 0
-- only) and "n d T a v..." (tangent cells) of every double array a.
local function case_file(n, c)
  local code = c.code:gsub("\n(%a+ [%w_]+_d%()", "\nstatic %1")
  local out = { code, "#include <stdio.h>", "#include <string.h>", "void case_" .. n .. "(void);",
    "void case_" .. n .. "(void) {" }
  local arrs = c.call.arrays
  for i, a in ipairs(arrs) do
    local ty = a.ctype or a.type or "double" -- ctype: the C type of an int array's cells ("char", ...)
    local vals = {}
    for j, v in ipairs(a.values) do vals[j] = ty ~= "double" and ("%d"):format(v) or lit(v) end
    out[#out + 1] = ("  static const %s I%d[%d] = {%s};"):format(ty, i, #vals, table.concat(vals, ", "))
    out[#out + 1] = ("  %s A%d[%d];"):format(ty, i, #vals)
    if ty == "double" then out[#out + 1] = ("  double T%d[%d];"):format(i, #vals) end
  end
  local ndir = math.max(1, #c.cols)
  out[#out + 1] = ("  int d, i;")
  out[#out + 1] = ("  (void)i;")
  out[#out + 1] = ("  for (d = 0; d < %d; d++) {"):format(ndir)
  for i, a in ipairs(arrs) do
    out[#out + 1] = ("    memcpy(A%d, I%d, sizeof A%d);"):format(i, i, i)
    if (a.type or "double") == "double" then out[#out + 1] = ("    memset(T%d, 0, sizeof T%d);"):format(i, i) end
  end
  local args, after, back = {}, {}, {} -- after: struct arguments, built once the seeds are set; back: copied back
  c.struct_first = {}
  for i, a in ipairs(c.call.args) do
    local p = c.params[i]
    if p.struct and p.struct.pointer then -- a member of S *q: copied into a struct and back around the call
      if p.struct.first then
        out[#out + 1] = ("    %s q%d, qd%d;"):format(p.struct.type, i, i)
        args[#args + 1] = "&q" .. i
        args[#args + 1] = "&qd" .. i
      end
      local q = "q" .. (p.struct.first and i or c.struct_first[i])
      c.struct_first[i + 1] = q:sub(2) + 0
      local ty = c.call.arrays[a.array].type or "double"
      for _, pair in ipairs { { q, "A" }, { q:gsub("^q", "qd"), "T" } } do
        if not p.type:find("%[") then -- a pointer member: it points into the array
          if pair[2] == "A" or ty == "double" then
            after[#after + 1] = ("    %s.%s = %s%d + %d;"):format(pair[1], p.struct.member, pair[2], a.array, a.offset)
          end
        elseif pair[2] == "A" or ty == "double" then
          local m = pair[1] .. "." .. p.struct.member
          local src = ("%s%d + %d"):format(pair[2], a.array, a.offset)
          after[#after + 1] = ("    memcpy(&%s, %s, sizeof %s);"):format(m, src, m)
          back[#back + 1] = ("    memcpy(%s, &%s, sizeof %s);"):format(src, m, m)
        end
      end
    elseif p.struct then -- a struct by value (its members in order: consecutive parameters) and its tangents'
      if a.double then out[#out + 1] = ("    double s%d = 0.0;"):format(i) end
      if p.struct.first then
        local vals, tans, j = {}, {}, i
        repeat
          local b = c.call.args[j]
          if b.array then -- a pointer member
            vals[#vals + 1] = ("A%d + %d"):format(b.array, b.offset)
            tans[#tans + 1] = (c.call.arrays[b.array].type or "double") == "double" and ("T%d + %d"):format(b.array,
              b.offset) or "0"
          else
            vals[#vals + 1] = b.double and lit(b.double) or ("%d"):format(b.int)
            tans[#tans + 1] = b.double and ("s" .. j) or "0"
          end
          j = j + 1
        until not c.params[j] or not c.params[j].struct or c.params[j].struct.first
          or c.params[j].struct.var ~= p.struct.var
        after[#after + 1] = ("    %s v%d = {%s}, vd%d = {%s};"):format(p.struct.type, i, table.concat(vals, ", "), i,
          table.concat(tans, ", "))
        args[#args + 1] = "v" .. i
        args[#args + 1] = "vd" .. i
      end
    elseif a.double then
      out[#out + 1] = ("    double s%d = 0.0;"):format(i)
      args[#args + 1] = lit(a.double)
      args[#args + 1] = "s" .. i
    elseif a.int then
      args[#args + 1] = ("%d"):format(a.int)
    else
      local cast = p.type:find("%[%d*%]%[") and ("(" .. p.type:match("^(.-)%s*%[") .. " (*)" .. p.type:match("^.-%[%d*%](%[.*)$") .. ")")
        or ""
      args[#args + 1] = ("%s(A%d + %d)"):format(cast, a.array, a.offset)
      if p.type:find("double") then args[#args + 1] = ("%s(T%d + %d)"):format(cast, a.array, a.offset) end
    end
  end
  for j, col in ipairs(c.cols) do
    if col.array and (arrs[col.array].type or "double") == "int" then -- noqa: an int cell has no tangent
    elseif col.array then
      out[#out + 1] = ("    if (d == %d) T%d[%d] = 1.0;"):format(j - 1, col.array, col.cell)
    else
      out[#out + 1] = ("    if (d == %d) s%d = 1.0;"):format(j - 1, col.param)
    end
  end
  for _, l in ipairs(after) do out[#out + 1] = l end
  out[#out + 1] = ("    %s_d(%s);"):format(c.fname, table.concat(args, ", "))
  for _, l in ipairs(back) do out[#out + 1] = l end
  for i, a in ipairs(arrs) do
    if (a.type or "double") == "double" then
      out[#out + 1] = ("    if (d == 0) { printf(\"%d 0 P %d\"); for (i = 0; i < %d; i++) printf(\" %%a\", A%d[i]); printf(\"\\n\"); }")
        :format(n, i, #a.values, i)
      out[#out + 1] = ("    printf(\"%d %%d T %d\", d); for (i = 0; i < %d; i++) printf(\" %%a\", T%d[i]); printf(\"\\n\");")
        :format(n, i, #a.values, i)
    end
  end
  out[#out + 1] = "  }"
  out[#out + 1] = "}"
  return table.concat(out, "\n") .. "\n"
end

--- Compiles the cases' files and a main in one cc call, runs it: per case
-- {P = {[array] = values}, T = {[dir] = {[array] = values}}}.
local function run_cases(cases, opts)
  opts = opts or {}
  local files, main = {}, { "#include <stdio.h>" }
  for n, c in ipairs(cases) do
    files[n] = H.write(H.tmp(".c"), case_file(n, c))
    main[#main + 1] = ("void case_%d(void);"):format(n)
  end
  main[#main + 1] = "int main(void) {"
  for n = 1, #cases do main[#main + 1] = ("  case_%d();"):format(n) end
  main[#main + 1] = "  return 0;\n}"
  files[#files + 1] = H.write(H.tmp(".c"), table.concat(main, "\n") .. "\n")
  local exe = H.tmp(".exe")
  local log = H.tmp(".log")
  local ok = os.execute(("%s -o %s %s -lm 2>%s"):format(opts.cc or CC, exe, table.concat(files, " "), log))
  if not ok then error("the generated code does not compile:\n" .. H.read(log):sub(1, 3000)) end
  local p = assert(io.popen((opts.env and ("env " .. opts.env .. " ") or "") .. exe))
  local got = {}
  for line in p:lines() do
    local n, d, kind, a, rest = line:match("^(%d+) (%d+) ([PT]) (%d+)(.*)$")
    if n then -- else a line the kernel printed (printf)
      n, d, a = tonumber(n), tonumber(d), tonumber(a)
      got[n] = got[n] or { P = {}, T = {} }
      local vals = {}
      for x in rest:gmatch("%S+") do vals[#vals + 1] = num(x) end
      if kind == "P" then got[n].P[a] = vals
      else got[n].T[d + 1] = got[n].T[d + 1] or {}; got[n].T[d + 1][a] = vals end
    end
  end
  local ok_run, _, code = p:close()
  if not ok_run then error("the tangent code's driver exited with " .. tostring(code)) end
  for _, f in ipairs(files) do os.remove(f) end
  os.remove(exe); os.remove(log)
  return got
end

--- A case: kernel text, function, CALL (core form), options of emit.
local function make_case(text, name, fname, call, opts)
  local k0 = assert(cgwb.read_kernel(text, name))
  local stext, sname = subject(text, k0, fname)
  local k = assert(cgwb.read_kernel(stext, name))
  if sname ~= fname then
    call = { arrays = { table.unpack(call.arrays) }, args = { table.unpack(call.args) } }
    call.arrays[#call.arrays + 1] = { name = "OUT", type = "double", values = { 0.0 } }
    call.args[#call.args + 1] = { array = #call.arrays, offset = 0 }
  end
  local code, report = tangent.emit(k, sname, opts)
  assert(code, report)
  local fn
  for _, f in ipairs(k:functions()) do if f.name == sname then fn = f end end
  local r = assert(k:run(sname, call))
  local J = assert(k:jacobian(sname, call))
  local cols = {}
  for j, c in ipairs(J.cols) do cols[j] = c.param and { param = c.param } or { array = c.array, cell = c.cell } end
  return { k = k, code = code, report = report, fname = sname, params = fn.params, call = call, run = r, J = J,
           cols = cols, label = name .. ":" .. fname }
end

--- Checks every case against the interpreter.
local function check(cases, opts)
  local got = run_cases(cases, opts)
  for n, c in ipairs(cases) do
    local g = assert(got[n], c.label .. ": no output")
    for a, arr in ipairs(c.run.arrays) do
      if (c.call.arrays[a].type or "double") == "double" then
        -- C does not specify a NaN's sign (roe.c at unphysical states): any NaN is one NaN here
        local function nan1(t) local o = {} for i, v in ipairs(t) do o[i] = v ~= v and 0 / 0 or v end return o end
        H.assert_bits(nan1(arr.values), nan1(g.P[a]), c.label .. ": primal of array " .. a .. "\n" .. c.code)
      end
    end
    for r, row in ipairs(c.J.rows) do
      for j = 1, #c.J.cols do
        local want, have = c.J.values[r][j], g.T[j][row.array][row.cell + 1]
        if not close_enough(have, want) then
          error(("%s: J[%d][%d] (array %d cell %d): tangent code %.17g, interpreter %.17g\n%s"):format(
            c.label, r, j, row.array, row.cell, have, want, c.code))
        end
      end
    end
  end
end


M.case_file, M.run_cases, M.make_case, M.check = case_file, run_cases, make_case, check
return M
