"""Entry point of the frozen app: one script behind both executables of the bundle.

``kbapp`` (console) is the command line (``kbapp.cli.main``), and ``kbapp gui`` — or ``kbapp``
without arguments — opens the window. ``kbapp-gui`` (Windows only: a windowed executable, so
starting it from the Start menu opens no console) is ``kbapp gui``.

``KBAPP_GUI_SMOKE_TEST=1`` makes the window quit with exit code 0 once it is shown and has
listed the library, printing one JSON line about the Qt set-up; the frozen smoke test uses it
to prove that the bundle's Qt plugins and translations load.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from pathlib import Path

SMOKE_ENV = "KBAPP_GUI_SMOKE_TEST"
SMOKE_TIMEOUT_MS = 60_000


def _command_index(args: list[str]) -> int:
    """Where the sub-command is (or goes): after the options that precede it, such as --data-dir."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] == "--data-dir" else 1
    return min(i, len(args))


def _quit_once_shown() -> None:
    """Create the QApplication early and quit once the main window has listed the library.

    An application-wide event filter sees the main window's first Show event, which comes before
    the library is opened, so its ``libraryLoaded`` signal cannot be missed. Smoke test only.
    """
    import json
    import time

    import psutil
    from PySide6.QtCore import QEvent, QLibraryInfo, QObject, QTimer
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QMainWindow

    from kbapp.gui.app import create_application

    app = create_application(sys.argv)
    started = psutil.Process().create_time()  # seconds since the process began, for measure.py

    class Watcher(QObject):
        window: QMainWindow | None = None
        shown_s = 0.0

        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            if self.window is None and event.type() == QEvent.Type.Show and isinstance(obj, QMainWindow):
                self.window, self.shown_s = obj, time.time() - started
                loaded = getattr(obj, "libraryLoaded", None)  # a window without it: shown is enough
                if loaded is not None:
                    loaded.connect(self.finish)
                else:
                    QTimer.singleShot(0, self.finish)
            return False

        def finish(self) -> None:
            assert self.window is not None
            report = {
                "window": self.window.windowTitle(),
                "platform": QGuiApplication.platformName(),
                "translators": len(app.property("kbapp_translators") or []),
                "qt_translations": QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath),
                "shown_s": round(self.shown_s, 2),
                "listed_s": round(time.time() - started, 2),
            }
            if sys.stdout is not None:  # None in the windowed executable
                print(json.dumps(report, ensure_ascii=False), flush=True)
            app.exit(0)

    watcher = Watcher(app)
    app.installEventFilter(watcher)
    QTimer.singleShot(SMOKE_TIMEOUT_MS, lambda: app.exit(3))


def main() -> int:
    # First of all: a parse worker (multiprocessing, spawn) starts this executable again, and
    # freeze_support() turns that run into the worker instead of a second app.
    multiprocessing.freeze_support()
    args = sys.argv[1:]
    # The windowed executable is the window; so is the console one started without arguments
    # (a double-click in a file manager), as `kbapp gui` documents.
    at = _command_index(args)
    if Path(sys.executable).stem.lower() == "kbapp-gui" or at == len(args):
        args = [*args[:at], "gui", *args[at:]]
    if args[at] == "gui" and os.environ.get(SMOKE_ENV) == "1":
        _quit_once_shown()
    from kbapp.cli.main import main as cli_main

    return cli_main(args)


if __name__ == "__main__":
    sys.exit(main())
