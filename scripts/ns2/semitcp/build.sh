#!/usr/bin/env bash
# Build ns-2.35 with the public semi-TCP code (GitHub musicinthedark/semitcp,
# commit 8d9b9e9) as `ns-semitcp`, on Debian 12 (bookworm). See README.md.
#
#   scripts/ns2/semitcp/build.sh [BUILD_DIR]          # default ./ns-semitcp-build
#
# Environment:
#   SEMITCP_SRC  a clone (or bare mirror) of musicinthedark/semitcp; default: git clone
#   NS2_ORIG     ns2_2.35+dfsg.orig.tar.xz; default: `apt-get source --download-only ns2`
#   JOBS         parallel make jobs (default 2)
#   SKIP_APT=1   do not apt-get install the build dependencies
# Result: BUILD_DIR/ns-semitcp (and BUILD_DIR/ns-2.35-semitcp/, the tree).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(mkdir -p "${1:-$PWD/ns-semitcp-build}" && cd "${1:-$PWD/ns-semitcp-build}" && pwd)
JOBS=${JOBS:-2}
SEMITCP_COMMIT=8d9b9e9
TREE=$BUILD/ns-2.35-semitcp
cd "$BUILD"

# 1. Build dependencies (Debian 12 package names).
if [ "${SKIP_APT:-0}" != 1 ]; then
    apt-get install -y --no-install-recommends build-essential git xz-utils dpkg-dev \
        perl tcl8.6-dev tk8.6-dev libotcl1-dev libtclcl1-dev tclcl \
        libx11-dev libxt-dev libxext-dev libpcap0.8-dev
fi

# 2. ns-2.35: Debian's upstream tarball (ns2_2.35+dfsg.orig.tar.xz). Only the
#    upstream tarball is used, not Debian's patches (see README.md).
if [ -z "${NS2_ORIG:-}" ]; then
    NS2_ORIG=$BUILD/ns2_2.35+dfsg.orig.tar.xz
    if [ ! -f "$NS2_ORIG" ]; then
        if ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
            echo "build.sh: needs a deb-src entry for bookworm (see README.md), or NS2_ORIG=..." >&2
            exit 1
        fi
        # The Debian packaging tarball is not needed; a failure to fetch it is ignored.
        apt-get source --download-only ns2 || true
        [ -f "$NS2_ORIG" ] || { echo "build.sh: could not download ns2_2.35+dfsg.orig.tar.xz" >&2; exit 1; }
    fi
fi

# 3. The semi-TCP code.
if [ -z "${SEMITCP_SRC:-}" ]; then
    SEMITCP_SRC=$BUILD/semitcp.git
    [ -d "$SEMITCP_SRC" ] || git clone --bare https://github.com/musicinthedark/semitcp "$SEMITCP_SRC"
fi
rm -rf "$BUILD/semitcp"
mkdir -p "$BUILD/semitcp"
git -C "$SEMITCP_SRC" archive "$SEMITCP_COMMIT" | tar -x -C "$BUILD/semitcp"

# 4. The tree: ns-2.35, the semi-TCP files over it, then hoplab's port patches.
rm -rf "$TREE" "$BUILD/ns-2.35"
tar -xJf "$NS2_ORIG" -C "$BUILD"
mv "$BUILD/ns-2.35" "$TREE"
while read -r f; do
    case "$f" in ''|'#'*) continue ;; esac
    cp "$BUILD/semitcp/$f" "$TREE/$f"
done < "$HERE/overlay.txt"
for p in "$HERE"/patches/*.patch; do
    patch -d "$TREE" -p1 --no-backup-if-mismatch < "$p"
done

# 5. configure looks for Tcl/Tk/OTcl/TclCL in source-tree layouts; Debian
#    installs them elsewhere, so point it at a directory of symbolic links.
SR=$BUILD/sysroot
L=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -dumpmachine)
rm -rf "$SR"
mkdir -p "$SR"/tcl/include "$SR"/tcl/lib/tcl8.6 "$SR"/tk/include "$SR"/tk/lib/tk8.6 \
         "$SR"/otcl/include "$SR"/otcl/lib "$SR"/tclcl/include "$SR"/tclcl/lib
ln -s /usr/include/tcl8.6/*.h /usr/include/tcl8.6/tcl-private/generic/*.h "$SR"/tcl/include/ 2>/dev/null || true
ln -sf "$L"/libtcl8.6.so "$SR"/tcl/lib/
ln -s /usr/share/tcltk/tcl8.6/* "$SR"/tcl/lib/tcl8.6/
ln -sf /usr/include/tcl8.6/tk*.h "$SR"/tk/include/
ln -sf "$L"/libtk8.6.so "$SR"/tk/lib/
ln -s /usr/share/tcltk/tk8.6/* "$SR"/tk/lib/tk8.6/
ln -sf /usr/include/otcl.h "$SR"/otcl/include/
ln -sf "$L"/libotcl.so "$SR"/otcl/lib/libotcl1.14.so
ln -sf /usr/include/tclcl/*.h "$SR"/tclcl/include/
ln -sf "$L"/libtclcl.so "$SR"/tclcl/lib/
ln -sf /usr/bin/tcl2c++ "$SR"/tclcl/

cd "$TREE"
./configure --with-tcl-ver=8.6 --with-tk-ver=8.6 --with-tcl="$SR"/tcl --with-tk="$SR"/tk \
    --with-otcl="$SR"/otcl --with-tclcl="$SR"/tclcl > "$BUILD/configure.log" 2>&1 \
    || { tail -20 "$BUILD/configure.log"; exit 1; }
# gcc 12 and Tcl 8.6: old C++ (-std=gnu++98 -fpermissive), Tcl_Interp::result
# (USE_INTERP_RESULT). -DNDEBUG removed: the authors' build kept assert() on.
# Debian's libtclcl is built without int64 support (no TclObject::bind for
# int64_t), so ns must not use it either.
sed -i 's|^#define HAVE_INT64 1|/* #undef HAVE_INT64 */|' autoconf.h
sed -i 's/^CCOPT\t=.*/CCOPT\t= -O2 -fpermissive -std=gnu++98 -Wno-write-strings -Wno-narrowing -w -DUSE_INTERP_RESULT -DUSE_INTERP_ERRORLINE/; s/ -DNDEBUG//' Makefile
nice -n 10 make -j"$JOBS" ns > "$BUILD/make.log" 2>&1 || { grep -B2 -A3 'error' "$BUILD/make.log" | tail -40; exit 1; }
cp ns "$BUILD/ns-semitcp"
echo "built $BUILD/ns-semitcp"
