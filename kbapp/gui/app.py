"""Starting the desktop app: ``run()`` is what ``kbapp gui`` calls.

The window is shown before anything slow happens: it paints first, then the library opens
(importing the core and checking SQLite take a few hundred milliseconds), and only then does
the model load on a worker — keyword search works from the first keystroke.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QMessageBox

from kbapp.gui.i18n import install_translators, resolve_language
from kbapp.gui.main_window import MainWindow
from kbapp.gui.settings import LANGUAGE, app_settings
from kbapp.gui.termination import close_on_stop_signals
from kbapp.library.paths import resolve_data_dir

_OPEN_AT_LATEST_MS = 400


def create_application(argv: list[str]) -> QApplication:
    """The QApplication, with fractional high-DPI scaling and the chosen UI language."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
    app = QApplication(argv)
    app.setOrganizationName("kbapp")
    app.setApplicationName("kbapp")
    app.setApplicationDisplayName("kbapp")
    language = resolve_language(str(app_settings().value(LANGUAGE, "") or ""))
    app.setProperty("kbapp_translators", install_translators(app, language))
    return app


def launch(data_dir: str | None = None, open_paths: Sequence[str] = ()) -> MainWindow:
    """Show the window, then open the library in ``data_dir`` (default: ``resolve_data_dir``)
    and attach it as soon as the window has painted; the window's ``kb`` is set from then on.
    ``open_paths`` (files the desktop asked kbapp to open) are imported once the library is open.

    Painting first puts the window on screen in well under a second: opening the library imports
    the core (SQLite, NumPy, ONNX Runtime, PyMuPDF) and checks the database.
    """
    window = MainWindow()

    def open_library() -> None:
        if window.kb is not None or not window.isVisible():
            return
        from kbapp.library import KnowledgeBase

        folder = resolve_data_dir(data_dir)
        try:
            kb = KnowledgeBase(folder, autoload_model=False, model_process=True)
        except Exception as err:  # an unwritable folder or a damaged library: say so, do not crash
            QMessageBox.critical(
                window,
                "kbapp",
                QCoreApplication.translate("App", "Cannot open the library in %1:\n%2")
                .replace("%1", str(folder))
                .replace("%2", str(err)),
            )
            window.close()
            return
        window.attach(kb)
        window.start()
        window.commands.import_paths(list(open_paths))

    window.painted.connect(lambda: QTimer.singleShot(0, open_library))
    QTimer.singleShot(_OPEN_AT_LATEST_MS, open_library)  # in case the window is never painted (minimised)
    window.show()
    return window


def run(argv: list[str] | None = None, data_dir: str | None = None, open_paths: Sequence[str] = ()) -> int:
    """``kbapp gui [PATH...]``: open the window on the library in ``data_dir`` (importing
    ``open_paths``); returns the exit code once the window is closed."""
    app = create_application(sys.argv if argv is None else argv)
    window = launch(data_dir, open_paths)
    restore_signals = close_on_stop_signals(window)  # logout, shutdown, Ctrl-C: close as a click does
    try:
        code = app.exec()
    finally:
        restore_signals()
        if window.kb is not None:
            window.kb.close()
    return code if window.kb is not None else 1


if __name__ == "__main__":
    sys.exit(run())
