-- spec/38-startup_spec.lua: the faster paths of a command's start, each
-- against the plain path it replaces: a point file read with tonumber on
-- whole lines (against the comment-stripping trim on every line), and the
-- command line parser set up for the one command being run (against the
-- parser of every command).
local H = require "spec.helper"
local R = require "spec.rng"
local cgwb = require "cgwb"
local cli = require "cgwb.cli"

-- The plain reader: every line trimmed and stripped of its comment first.
local function read_point_plain(path)
  local fh = assert(io.open(path, "r"))
  local x, n = {}, 0
  for line in fh:lines() do
    n = n + 1
    local s = line:gsub("#.*", ""):match("^%s*(.-)%s*$")
    if s ~= "" then
      local v = tonumber(s)
      if not v then
        fh:close()
        return nil, ("%s:%d: not a number: %s"):format(path, n, s)
      end
      x[#x + 1] = v
    end
  end
  fh:close()
  return x
end

local SPACES = { "", " ", "  ", "\t", " \t ", "\r", "\v", "\f" }
local BAD = { "x", "1.5.2", "--1", "1e", "nan", "inf", "0x", "1 2", "one", "+-3" }

-- A line of a generated point file: mostly numbers in the forms people and
-- programs write, with spaces around, comments, blank lines and, when bad
-- is true, now and then a word that is no number.
local function gen_line(r, bad)
  local k = r:int(1, 20)
  local v = r:float(-1e3, 1e3) * 10 ^ r:int(-30, 30)
  local num
  local form = r:int(1, 7)
  if form == 1 then num = ("%.17g"):format(v)
  elseif form == 2 then num = ("%d"):format(r:int(-100000, 100000))
  elseif form == 3 then num = ("%a"):format(v)
  elseif form == 4 then num = ("%.3e"):format(v)
  elseif form == 5 then num = ("%.6f"):format(v)
  elseif form == 6 then num = ("0x%x"):format(r:int(0, 65535))
  else num = (v >= 0 and r:int(0, 1) == 1 and "+" or "") .. ("%g"):format(v) end
  local pre, post = SPACES[r:int(1, #SPACES)], SPACES[r:int(1, #SPACES)]
  if k == 1 then return pre .. post end                                    -- blank
  if k == 2 then return pre .. "# a comment " .. num end                   -- comment alone
  if k == 3 then return pre .. num .. post .. "# " .. num end              -- number and comment
  if k == 4 and bad then return pre .. BAD[r:int(1, #BAD)] .. post end     -- no number
  return pre .. num .. post
end

describe("read_point, whole lines through tonumber first", function()
  it("reads what the plain reader reads, bit for bit, on hand-made lines", function()
    local lines = { "1", " 2.5 ", "\t-3e-7\t", "0x10", "  # only a comment", "", "4 # four",
      "1e308", "-0", "0x1p-3", "\r", "5\r", "  +6  " }
    local path = H.write(H.tmp(".x"), table.concat(lines, "\n") .. "\n")
    local x, err = cgwb.read_point(path)
    assert.is_nil(err)
    local y = read_point_plain(path)
    H.assert_bits(x, y, "hand-made")
    assert.are.equal(10, #x)
    os.remove(path)
  end)

  it("agrees with the plain reader on 300 generated files, values and errors", function()
    local r = R.new(34)
    local errors = 0
    for case = 1, 300 do
      local bad = case % 3 == 0
      local lines = {}
      for i = 1, r:int(0, 60) do lines[i] = gen_line(r, bad) end
      local path = H.write(H.tmp(".x"), table.concat(lines, "\n") .. (r:int(0, 1) == 1 and "\n" or ""))
      local x, e1 = cgwb.read_point(path)
      local y, e2 = read_point_plain(path)
      assert.are.equal(e2, e1, "case " .. case)
      if y then H.assert_bits(x, y, "case " .. case) else errors = errors + 1 end
      os.remove(path)
    end
    assert.is_true(errors > 30, "the generated files include bad ones") -- the error path is exercised
    assert.is_true(errors <= 100, "and good ones") -- only the files that may hold a bad line fail
  end)
end)

describe("the parser of the command being run", function()
  local function names()
    local _, subs = cli.build_parser()
    local list = {}
    for name in pairs(subs) do list[#list + 1] = name end
    table.sort(list)
    return list, subs
  end

  it("gives each command the help and usage of the whole parser", function()
    local list, all = names()
    assert.is_true(#list >= 13)
    for _, name in ipairs(list) do
      local p, subs = cli.build_parser(name)
      assert.are.equal(all[name]:get_help(), subs[name]:get_help(), name)
      assert.are.equal(all[name]:get_usage(), subs[name]:get_usage(), name)
      assert.are.equal(select(1, cli.build_parser()):get_help(), p:get_help(), name .. ": top level")
    end
  end)

  it("parses a command line as the whole parser does", function()
    local args = { "jacobian", "t.tap", "--at", "x", "--order", "min-fill", "--seed=-0", "--json" }
    local full = select(1, cli.build_parser())
    local one = select(1, cli.build_parser("jacobian"))
    local ok1, a1 = full:pparse(args)
    local ok2, a2 = one:pparse(args)
    assert.is_true(ok1)
    assert.is_true(ok2)
    for k, v in pairs(a1) do assert.are.same(v, a2[k], k) end
    for k, v in pairs(a2) do assert.are.same(a1[k], v, k) end
    -- a bad option: the same message from both
    local _, m1 = full:pparse({ "jacobian", "t.tap", "--bogus" })
    local _, m2 = one:pparse({ "jacobian", "t.tap", "--bogus" })
    assert.are.equal(m1, m2)
  end)

  it("runs commands through the command line as before (help, errors, a Jacobian)", function()
    local o1 = H.cgwb("help jacobian")
    local o2 = H.cgwb("jacobian --help")
    assert.are.equal(o1, o2)
    assert.truthy(o1:find("--order", 1, true))
    local _, e, code = H.cgwb("eliminate")
    assert.are.equal(2, code)
    assert.truthy(e:find("Usage: cgwb eliminate", 1, true))
    local o, _, c = H.cgwb("jacobian examples/tapes/bratu.tap --at examples/tapes/bratu.x --json")
    assert.are.equal(0, c)
    assert.truthy(o:find('"mults": 44240', 1, true))
  end)
end)

describe("the launcher's cache of compiled modules", function()
  -- A build directory of its own: the core through a link, the cache empty.
  local function fresh_build()
    local dir = H.tmp("-build")
    local build = H.build:match("^/") and H.build or (io.popen("pwd"):read("l") .. "/" .. H.build)
    assert(os.execute(("mkdir -p %s && ln -s %s/cgwb %s/cgwb"):format(dir, build, dir)))
    return dir
  end
  local function run(dir, args)
    local out, err = H.tmp(".out"), H.tmp(".err")
    local _, _, code = os.execute(("CGWB_BUILD=%s scripts/cgwb %s >%s 2>%s"):format(dir, args, out, err))
    local o, e = H.read(out), H.read(err)
    os.remove(out)
    os.remove(err)
    return o, e, code
  end

  it("keeps each module's chunk with the path and text it was compiled from", function()
    local dir = fresh_build()
    local o, _, code = run(dir, "--version")
    assert.are.equal(0, code)
    assert.truthy(o:find("^cgwb "))
    for _, name in ipairs({ "argparse", "cgwb", "cgwb.cli" }) do
      local c = H.read(dir .. "/luac-" .. name)
      local path, src, pos = string.unpack("<s8s8", c)
      assert.are.equal(H.read(path), src, name) -- the text of the module's file now
      assert.truthy(load(c:sub(pos), "=" .. name, "b"), name) -- and its chunk
    end
    os.execute("rm -rf " .. dir)
  end)

  it("uses a chunk made from the module's text and no other", function()
    local dir = fresh_build()
    assert.are.equal(0, select(3, run(dir, "--version")))
    local file = dir .. "/luac-cgwb.cli"
    local path, src = string.unpack("<s8s8", H.read(file))
    local other = string.dump(load('return { main = function() print("from the cache") return 0 end }'))
    -- made from the same text: used (the command is the chunk's)
    H.write(file, string.pack("<s8s8", path, src) .. other)
    assert.are.equal("from the cache\n", (run(dir, "--version")))
    -- made from another text (the module was edited since): compiled again, and the cache renewed
    H.write(file, string.pack("<s8s8", path, src .. "\n-- edited\n") .. other)
    local o, _, code = run(dir, "--version")
    assert.are.equal(0, code)
    assert.truthy(o:find("^cgwb "))
    assert.are.equal(src, select(2, string.unpack("<s8s8", H.read(file))))
    -- unreadable as a chunk: the source serves
    H.write(file, string.pack("<s8s8", path, src) .. "not a chunk")
    o = run(dir, "--version")
    assert.truthy(o:find("^cgwb "))
    os.execute("rm -rf " .. dir)
  end)

  it("runs commands as from the source when the cache cannot be read or written", function()
    local dir = fresh_build()
    for _, name in ipairs({ "argparse", "cgwb", "cgwb.cli", "cgwb.elim" }) do
      assert(os.execute(("mkdir %s/luac-%s"):format(dir, name))) -- a directory where a chunk would be
    end
    local args = "jacobian examples/tapes/bratu.tap --at examples/tapes/bratu.x --json"
    local o2, e2, c2 = run(dir, args)
    local o3, e3, c3 = run(H.build, args)
    assert.are.equal(0, c2)
    assert.are.equal(c3, c2)
    assert.are.equal(e3, e2)
    assert.are.equal((o3:gsub('"seconds": [^\n]*\n', "")), (o2:gsub('"seconds": [^\n]*\n', "")))
    local p = io.popen("ls " .. dir)
    local left = p:read("a")
    p:close()
    assert.is_nil(left:find("tmp", 1, true)) -- the chunks written aside were removed
    os.execute("rm -rf " .. dir)
  end)
end)
