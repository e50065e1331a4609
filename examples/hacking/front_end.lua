-- examples/hacking/front_end.lua: the front end of front_end.c in Lua,
-- through cgwb.graph_builder: t = x0 * x1; y = exp(t) + x0 at (0.5, 2).
local cgwb = require "cgwb"
local b <close> = cgwb.graph_builder({ name = "k.c" })
b:origin("k.c", 3, 5)
b:independent(0, 0.5)
b:independent(1, 2.0)
b:op(2, "mul", { 0, 1 })
b:op(3, "exp", { 2 })
b:op(4, "add", { 3, 0 })
b:dependent(4)
local g <close> = assert(b:finish())
local lg <close> = assert(cgwb.core.linearize(g))
assert(lg:eliminate("markowitz"))
local J = lg:jacobian()
for k = 1, J.nnz do print(("J(%d,%d) = %.17g"):format(J.rows[k], J.cols[k], J.vals[k])) end
