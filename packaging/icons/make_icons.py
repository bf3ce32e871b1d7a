"""Renders ``kbapp.svg`` into the raster icons the installers need, with Qt (already a dependency).

* ``kbapp.png`` (256 px): the Linux desktop entry (hicolor/256x256) and the tarball;
* ``kbapp.ico`` (16–256 px): the Windows executables, Start-menu entry and uninstaller.

The outputs are committed, so builds never need to render; run this after editing the SVG:

    QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/icons/make_icons.py
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QIODevice, QSize
from PySide6.QtGui import QGuiApplication, QIcon

HERE = Path(__file__).parent
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)


def main() -> int:
    app = QGuiApplication(sys.argv)
    icon = QIcon(str(HERE / "kbapp.svg"))  # the svg icon engine ships with PySide6-Essentials
    if icon.isNull():
        print("cannot load kbapp.svg (Qt's svg icon engine missing?)", file=sys.stderr)
        return 1
    icon.pixmap(QSize(256, 256)).save(str(HERE / "kbapp.png"))
    # Qt's ico writer stores one image per file, so the .ico is assembled here: PNG-compressed
    # entries, which Windows has read since Vista.
    pngs = [_png(icon, size) for size in ICO_SIZES]
    header = struct.pack("<HHH", 0, 1, len(pngs))
    offset = len(header) + 16 * len(pngs)
    entries = b""
    for size, data in zip(ICO_SIZES, pngs, strict=True):
        side = size % 256  # 0 means 256
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(data), offset)
        offset += len(data)
    (HERE / "kbapp.ico").write_bytes(header + entries + b"".join(pngs))
    del app
    return 0


def _png(icon: QIcon, size: int) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    icon.pixmap(QSize(size, size)).save(buffer, "PNG")
    return bytes(buffer.data().data())


if __name__ == "__main__":
    sys.exit(main())
