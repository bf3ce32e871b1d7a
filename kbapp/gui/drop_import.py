"""Importing what is dropped on the window: an event filter, because no child widget takes drops
and Qt hands every drag over the window to it, wherever the pointer is."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QPalette
from PySide6.QtWidgets import QLabel, QWidget

if TYPE_CHECKING:
    from kbapp.gui.main_window import MainWindow

OVERLAY_INSET = 24  # px between the overlay and the edges of what it covers


def local_paths(urls: Sequence[QUrl]) -> list[str]:
    """The local files among dropped URLs (a browser may drop web links too)."""
    return [url.toLocalFile() for url in urls if url.isLocalFile() and url.toLocalFile()]


class DropImport(QObject):
    def __init__(self, window: MainWindow, covered: QWidget) -> None:
        """``covered`` is the part of the window the overlay covers while a drag is over it."""
        super().__init__(window)
        self._window = window
        self._covered = covered
        self.overlay = QLabel(self.tr("Drop to import into the library"), covered)
        self.overlay.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.overlay.setAutoFillBackground(True)
        self.overlay.setBackgroundRole(QPalette.ColorRole.Highlight)
        self.overlay.setForegroundRole(QPalette.ColorRole.HighlightedText)
        font = self.overlay.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        self.overlay.setFont(font)
        self.overlay.hide()
        window.setAcceptDrops(True)
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Take the drags and drops this class handles; the rest go on to the window."""
        if isinstance(event, QDragEnterEvent):
            return self._enter(event)
        if event.type() == QEvent.Type.DragLeave:
            self.overlay.hide()
        elif event.type() == QEvent.Type.Drop and isinstance(event, QDropEvent):
            return self._drop(event)
        return False

    def _enter(self, event: QDragEnterEvent) -> bool:
        kb = self._window.kb
        mime = event.mimeData()
        if kb is None or kb.read_only or not mime.hasUrls() or not local_paths(mime.urls()):
            event.ignore()
            return False
        event.acceptProposedAction()
        inset = OVERLAY_INSET
        self.overlay.setGeometry(self._covered.rect().adjusted(inset, inset, -inset, -inset))
        self.overlay.raise_()
        self.overlay.show()
        return True

    def _drop(self, event: QDropEvent) -> bool:
        self.overlay.hide()
        paths = local_paths(event.mimeData().urls())
        if not paths:
            event.ignore()
            return False
        event.acceptProposedAction()
        window = self._window
        window.commands.import_paths(window.sources.take_folders(paths))
        return True
