"""The library commands: checking the library reports back, and nothing is imported before a
library is open."""

from __future__ import annotations

from pathlib import Path

from kbapp.gui.main_window import MainWindow
from tests.gui.conftest import WAIT_MS


def test_checking_a_healthy_library_says_so(qtbot, open_window) -> None:  # type: ignore[no-untyped-def]
    window = open_window()
    window.menu_actions.verify_action.trigger()
    qtbot.waitUntil(lambda: window.status.currentMessage() == "The library is consistent.", timeout=WAIT_MS)


def test_nothing_is_imported_before_the_library_is_open(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = MainWindow()
    qtbot.addWidget(window)
    window.commands.import_paths([str(tmp_path)])  # would need window.jobs, which does not exist yet
    assert window.jobs is None
