-- DOT and text dumps of graphs (cgwb graph --dot / --print, g:dot, g:print):
-- each node's attributes once, and a subgraph of at most --limit nodes,
-- frontier counted, with the cut shown.
local H = require "spec.helper"
local cgwb = require "cgwb"

-- The node statements of a DOT text: {id, attrs = {key -> count}, list = "..."}.
local function dot_nodes(dot)
  local nodes = {}
  for line in dot:gmatch("[^\n]+") do
    local id, body = line:match("^%s*([%w_]+) %[(.*)%];$")
    if id and id ~= "node" and not line:find("->", 1, true) then
      local attrs = {}
      -- key=value pairs; quoted values may hold commas
      local rest = body
      while #rest > 0 do
        local key, val, after = rest:match('^%s*([%w_]+)=("[^"]*")(.*)$')
        if not key then key, val, after = rest:match('^%s*([%w_]+)=([^,]*)(.*)$') end
        assert(key, "cannot parse attributes: " .. line)
        attrs[key] = attrs[key] or {}
        table.insert(attrs[key], val)
        rest = after:gsub("^%s*,", "")
      end
      nodes[#nodes + 1] = { id = id, attrs = attrs, line = line }
    end
  end
  return nodes
end

local function assert_no_repeats(dot, what)
  for _, n in ipairs(dot_nodes(dot)) do
    for key, vals in pairs(n.attrs) do
      assert(#vals == 1, ("%s: attribute %s given %d times: %s"):format(what, key, #vals, n.line))
    end
  end
end

-- A tape whose independent is also a dependent, and whose other dependent
-- is a supernode (exp > exp): every attribute of the two kinds at once.
local function mixed_graph()
  local path = H.write(H.tmp(".txt"), "assign_ind 0 0.5\nexp_op 1 0\nexp_op 2 1\nassign_dep 2\nassign_dep 0\n")
  local g = assert(cgwb.build_graph(assert(cgwb.read_tape(path))))
  os.remove(path)
  return g
end

describe("dump: DOT attributes", function()
  it("a dependent supernode has one style with both values (its fill is kept)", function()
    local g = mixed_graph()
    local dot = g:dot()
    assert_no_repeats(dot, "mixed")
    local byid = {}
    for _, n in ipairs(dot_nodes(dot)) do byid[n.id] = n end
    assert.are.same({ '"filled,rounded"' }, byid.n2.attrs.style)
    assert.are.same({ '"#ffe0b0"' }, byid.n2.attrs.fillcolor)
    assert.are.same({ "box" }, byid.n1.attrs.shape) -- independent and dependent
    assert.are.same({ "filled" }, byid.n1.attrs.style)
  end)

  it("no node of the example graphs, whole or cut, repeats an attribute; dot reads them", function()
    for _, name in ipairs({ "bratu", "cavity", "shallow" }) do
      local g = assert(cgwb.build_graph(assert(cgwb.read_tape("examples/tapes/" .. name .. ".tap"))))
      local whole = g:dot()
      assert_no_repeats(whole, name)
      local cut = g:dot(nil, g:n(), 40)
      assert_no_repeats(cut, name .. " cut")
      if os.execute("command -v dot >/dev/null 2>&1") then
        local p = H.write(H.tmp(".dot"), cut)
        assert.is_true(os.execute("dot -Tcanon " .. p .. " >/dev/null 2>&1") == true)
        os.remove(p)
      end
    end
  end)
end)

describe("dump: --limit", function()
  local g
  setup(function() g = assert(cgwb.build_graph(assert(cgwb.read_tape("examples/tapes/cavity.tap")))) end)

  -- The expected subgraph, computed here: the first k nodes breadth-first
  -- over children from root; and per shown node, its children not shown.
  local function expected(root, k)
    local shown, queue, head = { [root] = true }, { root }, 1
    local count = 1
    while head <= #queue and count < k do
      local v = queue[head]
      head = head + 1
      for _, c in ipairs(g:children(v)) do
        if count >= k then break end
        if not shown[c] then
          shown[c], count = true, count + 1
          queue[#queue + 1] = c
        end
      end
    end
    local hidden = {}
    for v in pairs(shown) do
      local seen, n = {}, 0
      for _, c in ipairs(g:children(v)) do
        if not shown[c] and not seen[c] then seen[c], n = true, n + 1 end
      end
      if n > 0 then hidden[v] = n end
    end
    return shown, count, hidden
  end

  it("g:print shows at most limit nodes, frontier counted, and marks each cut", function()
    local root = g:n()
    for _, k in ipairs({ 1, 2, 3, 6, 25, 200 }) do
      local shown, count, hidden = expected(root, k)
      local text = g:print(nil, root, k)
      local got, cuts, last = {}, {}, nil
      for line in text:gmatch("[^\n]+") do
        local id = line:match("^node (%d+):")
        if id then last = tonumber(id); got[last] = true end
        local n = line:match("^  %.%.%. %(cut%) (%d+) child")
        if n then cuts[last] = tonumber(n) end
      end
      local ngot = 0
      for _ in pairs(got) do ngot = ngot + 1 end
      assert.are.equal(count, ngot, "limit " .. k)
      assert.is_true(ngot <= k)
      assert.are.same(shown, got)
      assert.are.same(hidden, cuts)
    end
  end)

  it("g:dot shows the same nodes, each cut node dashed with a note", function()
    local root = g:n()
    local shown, count, hidden = expected(root, 6)
    local dot = g:dot(nil, root, 6)
    local nodes, notes = 0, 0
    for _, n in ipairs(dot_nodes(dot)) do
      local v = tonumber(n.id:match("^n(%d+)$"))
      if v then
        nodes = nodes + 1
        assert.is_true(shown[v])
        local style = (n.attrs.style or { "" })[1]
        assert.are.equal(hidden[v] ~= nil, style:find("dashed", 1, true) ~= nil, n.line)
      else
        notes = notes + 1
        local c = tonumber(n.id:match("^cut(%d+)$"))
        assert.truthy(n.line:find(("... (cut) %d child"):format(hidden[c]), 1, true), n.line)
        assert.truthy(dot:find(("cut%d -> n%d [style=dashed];"):format(c, c), 1, true))
      end
    end
    local ncut = 0
    for _ in pairs(hidden) do ncut = ncut + 1 end
    assert.are.equal(count, nodes)
    assert.are.equal(ncut, notes)
  end)

  it("the command: --limit counts the frontier; a limit below 1 is refused", function()
    local out, _, code = H.cgwb("graph examples/tapes/cavity.tap --print --node 43767 --limit 3")
    assert.are.equal(0, code)
    local n = 0
    for _ in out:gmatch("\nnode ") do n = n + 1 end
    if out:find("^node ") then n = n + 1 end
    assert.are.equal(3, n, out)
    assert.truthy(out:find("... (cut)", 1, true), out)
    assert.has_error(function() g:print(nil, 1, 0) end)
  end)
end)
