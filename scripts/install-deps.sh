#!/bin/sh
# Installs the Debian 12 packages cgwb needs, only those missing.
# luarocks (for the rockspec check) pulls lua5.1 and repoints the `lua`
# alternative; we put the alternative back as it was, or, on a machine that had
# no `lua` before, point it at lua5.4 (cgwb always runs lua5.4 by name).
set -e
PKGS="make gcc g++ lua5.4 liblua5.4-dev lua-lpeg lua-busted lua-argparse lua-term
      graphviz gnuplot-nox libxml2-utils lua-expat libadolc-dev libcolpack-dev luarocks clang libclang-rt-14-dev
      lua-ldoc parallel pkgconf fonts-dejavu-core"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing$missing" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
before=$(readlink -e /etc/alternatives/lua-interpreter 2>/dev/null || true)
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
[ -n "$before" ] || before=/usr/bin/lua5.4
now=$(readlink -e /etc/alternatives/lua-interpreter 2>/dev/null || true)
if [ -n "$now" ] && [ "$now" != "$before" ]; then
  $SUDO update-alternatives --set lua-interpreter "$before" >/dev/null ||
    echo "install-deps: could not point 'lua' back at $before (cgwb does not need it)" >&2
fi
