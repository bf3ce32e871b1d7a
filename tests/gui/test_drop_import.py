"""Dropping files on the window: only local files count, and only an open, writable library
takes the drag, with the overlay shown while it is over the window."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent
from PySide6.QtWidgets import QApplication

from kbapp.gui.drop_import import local_paths
from kbapp.gui.main_window import MainWindow
from tests.gui.conftest import drop_paths


def test_only_local_files_are_imported(tmp_path: Path) -> None:
    local = QUrl.fromLocalFile(str(tmp_path / "a.pdf"))
    assert local_paths([local, QUrl("https://example.com/b.pdf"), QUrl()]) == [str(tmp_path / "a.pdf")]


def test_no_drag_is_taken_before_the_library_is_open(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = MainWindow()
    qtbot.addWidget(window)
    assert drop_paths(window, [tmp_path]) == (False, False)
    assert window.drops.overlay.isHidden()


def test_the_overlay_shows_while_a_drag_is_over_the_window(open_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = open_window()
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(tmp_path))])
    enter = QDragEnterEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted() and window.drops.overlay.isVisible()
    QApplication.sendEvent(window, QEvent(QEvent.Type.DragLeave))
    assert not window.drops.overlay.isVisible()
