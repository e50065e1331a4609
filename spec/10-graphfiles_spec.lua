-- Graph files (.cg and EliAD, doc/elimination.md): every bad file is refused
-- with a message naming the file and the line at fault; names of vertices
-- that are never defined are refused, not turned into isolated vertices.
require "spec.helper"
local core = require "cgwb.core"

-- Asserts that text is refused by reader with "NAME:LINE: <what>".
local function refused(reader, name, text, line, what)
  local g, err = reader(text, name)
  assert.is_nil(g, ("accepted: %q"):format(text))
  local want = ("%s:%d: "):format(name, line)
  assert.are.equal(want, err:sub(1, #want), ("%q -> %s"):format(text, err))
  assert.truthy(err:find(what, 1, true), err)
end

describe("graph files: .cg", function()
  local function bad(text, line, what) refused(core.read_cg, "bad.cg", text, line, what) end

  it("a Y: naming a vertex never defined is refused at the Y: line", function()
    -- (the edge into 2 used to be dropped silently, 3 an isolated dependent)
    bad("X: 0\nY: 3\n2: 0:1.5\n", 2, "Y: vertex 3 is never defined")
    bad("# c\nX: 0\n\nY: 2 3\n2: 0\n", 4, "Y: vertex 3 is never defined")
  end)

  it("an X: naming a vertex never defined, an edge from one, are refused", function()
    bad("X: 0 7\nY: 2\n2: 0\n", 1, "X: vertex 7 is never defined")
    bad("X: 0\nY: 2\n2: 0 1\n", 3, "edge 1 -> 2: vertex 1 is never defined")
    bad("X: 0\nY: 3\n3: 0:1 2:1\n", 3, "edge 2 -> 3: vertex 2 is never defined")
  end)

  it("a vertex both independent and dependent, listed twice, or with two lines", function()
    bad("X: 0 1\nY: 2 1\n2: 0\n1:\n", 2, "vertex 1 is both independent (X:, line 1) and dependent")
    bad("X: 0 0\nY: 1\n1: 0\n", 1, "X: vertex 0 listed twice")
    bad("X: 0\nY: 1 1\n1: 0\n", 2, "Y: vertex 1 listed twice")
    bad("X: 0\nY: 2\n2: 0\n2: 1\n1: 0\n", 4, "vertex 2 has a second line (the first is line 3)")
  end)

  it("every other bad line names its line", function()
    bad("X: 0\nY: 2\n1: 0\n2: 1\n2: 0\n", 5, "vertex 2 has a second line")
    bad("X: 0\nY: 2\n1: 0\n2: 1 1\n", 4, "edge 1 -> 2 given twice")
    bad("X: 0\nY: 2\n1: 0\n2: 0 1 0:2\n", 4, "edge 0 -> 2 given twice")
    bad("X: 0\nY: 2\n2: 1 x\n", 3, "expected a vertex id")
    bad("X: 0\nY: 1\n1: 2\n", 3, "is not in topological order")
    bad("X: 0\nY: 1\n1: 0:zz\n", 3, "bad weight")
    bad("X: 0\nX: 1\n", 2, "X: given twice")
    bad("X: 0:2\nY: 1\n1: 0\n", 1, "take no weights")
    bad("X: 0\nY: 1\n1: 99999999999\n", 3, "vertex id out of range")
    bad("X: 0\nY: 1\n1 0\n", 3, "expected ':'")
    bad("X: 0\nY: 2\n1: 0\n2: 1\n0: 1\n", 5, "is not in topological order")
    bad("X: 1\nY: 2\n1: 0\n0:\n2: 1\n", 3, "independent 1 has predecessors")
    bad("X: 0\nY: 1\n1: 0\0\n", 3, "NUL byte")
    bad("X: 0\n1: 0\n", 2, "no Y: line")
    bad("", 1, "no X: line")
  end)

  it("a line of its own defines an unused independent or a constant dependent", function()
    local g = assert(core.read_cg("X: 0 1\nY: 3 4\n1:\n3: 0:2\n4:\n", "ok.cg"))
    local J = g:jacobian("forward")
    assert.are.same({ 1 }, J.rows)
    assert.are.same({ 1 }, J.cols)
    -- and write_cg writes those lines (in dense ids), so the text reads back the same
    local text = g:write_cg()
    assert.truthy(text:find("\n1:\n", 1, true) and text:find("\n3:\n", 1, true), text)
    assert.are.equal(text, assert(core.read_cg(text, "back.cg")):write_cg())
  end)
end)

describe("graph files: EliAD", function()
  local function bad(text, line, what) refused(core.read_eliad, "bad.eliad", text, line, what) end

  it("every bad line names its line", function()
    bad("n = 3\nCG = [\n 2 1\n]\n", 3, "expected 'target source triviality'")
    bad("n = 3\nCG = [\n 2 1 2\n 3 2 2\n 3 2 2\n]\n", 5, "edge 2 -> 3 given twice")
    bad("n = 3\nCG = [\n 2 1 2\n 3 4 2\n]\n", 4, "vertex 4 out of range 1..3")
    bad("n = 3\nCG = [\n 2 1 2\n 0 1 2\n]\n", 4, "vertex 0 out of range")
    bad("n = 3\nCG = [\n 2 1 2\n 2 3 2\n]\n", 4, "is not in topological order")
    bad("n = 3\nCG = [\n 2 1 2 junk\n 3 2 2\n]\n", 3, "unexpected 'junk'")
    bad("n = 0\nCG = [\n]\n", 1, "bad vertex count")
    bad("# none\n\n", 2, "no vertex count")
    bad("n = 3\n", 1, "no 'CG = [' line")
    bad("n = 3\nCG = [\n 2 1 2\n 3 2 2\n", 4, "no closing ']'")
    bad("n = 3\nCG = [\n 2 1 2\n 3 2\0 2\n]\n", 4, "NUL byte")
    bad("n = 3\nCG = [\n 2 1 2" .. (" "):rep(300) .. "\n 3 2 2\n]\n", 3, "line longer than 255")
  end)

  it("a vertex without edges is refused at the line that declares the count", function()
    bad("# g\nn = 4\nCG = [\n 2 1 2\n 3 2 2\n]\n", 2, "vertex 4 (of n = 4) has no edge")
  end)
end)
