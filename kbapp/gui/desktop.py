"""Handing a document to the operating system: open it, or show it in its folder.

"Open original" opens the file itself, without a ``#page=N`` anchor: a fragment on a local
file URL is dropped by Qt on Windows (ShellExecute gets the bare path), rejected by GLib on
Linux ("local file URI may not include a '#'", so xdg-open would fail outright), and ignored
by Preview on macOS. The window therefore opens the plain file and tells the user which page
holds the passage.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6.QtCore import QProcess, QUrl
from PySide6.QtGui import QDesktopServices


def open_original(path: str) -> bool:
    """Open ``path`` with the system's default application; False if it is gone or refused."""
    if not Path(path).is_file():
        return False
    return QDesktopServices.openUrl(QUrl.fromLocalFile(path))


def reveal(path: str) -> bool:
    """Show ``path`` selected in the file manager (Windows, macOS) or open its folder (others)."""
    target = Path(path)
    if not target.exists():
        return target.parent.is_dir() and QDesktopServices.openUrl(QUrl.fromLocalFile(str(target.parent)))
    if sys.platform == "win32":
        return QProcess.startDetached("explorer", [f"/select,{os.path.normpath(path)}"])[0]
    if sys.platform == "darwin":
        return QProcess.startDetached("open", ["-R", path])[0]
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(target.parent)))
