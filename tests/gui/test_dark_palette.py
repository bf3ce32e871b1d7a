"""A dark system palette: the window follows it, and highlights stay readable on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from kbapp.gui.results_view import HtmlRole
from tests.gui.conftest import WAIT_MS, import_by_drop, screenshot, search


@pytest.fixture
def dark_palette(qapp) -> Iterator[QPalette]:  # type: ignore[no-untyped-def]
    before = QPalette(qapp.palette())
    dark = QPalette()
    for role, color in {
        QPalette.ColorRole.Window: "#2b2b2b",
        QPalette.ColorRole.WindowText: "#e6e6e6",
        QPalette.ColorRole.Base: "#1e1e1e",
        QPalette.ColorRole.AlternateBase: "#262626",
        QPalette.ColorRole.Text: "#e6e6e6",
        QPalette.ColorRole.Button: "#353535",
        QPalette.ColorRole.ButtonText: "#e6e6e6",
        QPalette.ColorRole.Highlight: "#3d6fb4",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.PlaceholderText: "#9a9a9a",
        QPalette.ColorRole.Mid: "#555555",
        QPalette.ColorRole.Dark: "#151515",
        QPalette.ColorRole.ToolTipBase: "#3a3a30",
        QPalette.ColorRole.ToolTipText: "#f0f0e0",
    }.items():
        dark.setColor(role, QColor(color))
    QApplication.setPalette(dark)
    yield dark
    QApplication.setPalette(before)


def test_dark_palette_results_and_preview(qtbot, dark_palette, open_window, manuals: Path) -> None:  # type: ignore[no-untyped-def]
    window = open_window()
    import_by_drop(qtbot, window, [manuals / "camera_en.md", manuals / "camera_zh.txt"])
    search(qtbot, window, "exposure 曝光时间")
    qtbot.waitUntil(
        lambda: window.preview.shown_doc == window.results_area.response.results[0].doc_id, timeout=WAIT_MS
    )
    assert window.results_area.results_view.palette().color(QPalette.ColorRole.Base) == QColor("#1e1e1e")
    # Muted row text (heading path) is drawn in the palette's placeholder colour, not a fixed grey.
    row = window.results_area.results_view.model().index(0).data(HtmlRole)
    assert "#9a9a9a" in row
    screenshot(window, "07-dark-palette")
