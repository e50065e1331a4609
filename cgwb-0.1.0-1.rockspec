-- Installs cgwb into a rocks tree:  luarocks-5.4 make --deps-mode=none [--tree DIR]
-- (the Lua dependencies come from Debian: argparse from lua-argparse, lpeg
-- from lua-lpeg for the kernel front end, luaexpat from lua-expat for XAIF
-- import; scripts/install-deps.sh installs them; see README.md).
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
dependencies = { "lua >= 5.4", "argparse", "lpeg", "luaexpat" }
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
    -- The C library (doc/c-api.md) stays in the rock's directory: LuaRocks
    -- deploys a rock's lib/ as Lua C modules.
    INCLUDEDIR = "$(PREFIX)/c/include",
    CLIBDIR = "$(PREFIX)/c/lib",
  },
}
-- LuaRocks' wrapper of a Lua command sets the paths of the configured trees
-- only (not those of --tree, nor any with --deps-mode=none), so the launcher
-- goes unwrapped into <tree>/bin and finds <tree>/share/lua/5.4 and
-- <tree>/lib/lua/5.4 next to itself (scripts/cgwb).
deploy = { wrap_bin_scripts = false }
