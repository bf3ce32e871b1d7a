"""``kbapp.gui.app.run``, the entry point ``kbapp gui`` calls: window first, then the library."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from kbapp.gui.app import run
from kbapp.gui.main_window import MainWindow


def test_run_shows_the_window_then_opens_the_library(
    qapp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("KBAPP_MODEL_DIR", str(tmp_path / "no-model"))  # keyword-only: no model to load
    seen: dict[str, object] = {}

    def check() -> None:  # polls: run() blocks in the event loop until the window closes
        windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        if not windows or windows[0].kb is None or not windows[0].library_loaded:
            QTimer.singleShot(20, check)
            return
        window = windows[0]
        seen["data_dir"] = window.kb.data_dir
        seen["welcome"] = window.results_area.stack.currentWidget() is window.results_area.welcome
        window.close()

    QTimer.singleShot(0, check)
    # Never hang the suite, and stop the watchdog after: left running, it closed whichever window
    # a later test had open 30 s on, cancelling that test's import.
    watchdog = QTimer()
    watchdog.setSingleShot(True)
    watchdog.timeout.connect(QApplication.closeAllWindows)
    watchdog.start(30_000)
    try:
        assert run([], data_dir=str(tmp_path / "library")) == 0
    finally:
        watchdog.stop()
    assert seen["data_dir"] == tmp_path / "library" and seen["welcome"] is True
    assert (tmp_path / "library").is_dir()
