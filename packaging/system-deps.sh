#!/usr/bin/env bash
# Debian/Ubuntu system libraries that PySide6 (Qt 6) needs, a CJK font so Chinese renders,
# and Xvfb so the app and its GUI tests can run on a machine without a screen.
# Installs only what is missing; needs root (or sudo) for that.
set -euo pipefail

PKGS=(
  libgl1 libegl1 libglib2.0-0 libfontconfig1 libdbus-1-3 libxkbcommon0 libxkbcommon-x11-0
  libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0
  libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1
  fonts-wqy-microhei xvfb xauth
)

command -v dpkg-query >/dev/null || { echo "system-deps: not a Debian system; install Qt 6's libraries yourself"; exit 0; }
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "system-deps: missing ${missing[*]}; run as root: apt-get install ${missing[*]}" >&2; exit 1
  fi
fi
echo "system-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
