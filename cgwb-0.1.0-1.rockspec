-- Installs cgwb into a rocks tree:  luarocks-5.4 make --deps-mode=none [--tree DIR]
-- (the Lua dependencies, lpeg and argparse, come from Debian's packages;
-- see README.md).
rockspec_format = "3.0"
package = "cgwb"
version = "0.1.0-1"
source = { url = "git+https://example.invalid/cgwb.git" }
description = {
  summary = "A Lua-scriptable research workbench for automatic differentiation",
  detailed = [[
cgwb reads operation traces (ADOL-C 2.x tapes, classic tapes of Bischof & Hu
1991, text tapes), builds optimized computational graphs, and accumulates
Jacobians by elimination, with every decision point scriptable in Lua.]],
  license = "MIT",
}
dependencies = { "lua >= 5.4", "lpeg", "argparse" }
build = {
  type = "make",
  build_variables = {
    CFLAGS = "$(CFLAGS)",
    LIBFLAG = "$(LIBFLAG)",
    LUA_INCDIR = "$(LUA_INCDIR)",
  },
  install_variables = {
    PREFIX = "$(PREFIX)",
    LIBDIR = "$(LIBDIR)",
    LUADIR = "$(LUADIR)",
    BINDIR = "$(BINDIR)",
  },
}
