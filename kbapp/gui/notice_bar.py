"""A strip above the results for what the user should know and may act on: an interrupted
import to resume, a library that was repaired, a read-only library folder.

The status bar forgets a message after a few seconds; these stay until dismissed or acted on.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget


class NoticeBar(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.ToolTipBase)
        self.setForegroundRole(QPalette.ColorRole.ToolTipText)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setForegroundRole(QPalette.ColorRole.ToolTipText)
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(10, 6, 6, 6)
        self._layout.addWidget(self.label, 1)
        self.buttons: list[QPushButton] = []
        self.asks = False  # whether the notice waits for a decision (not just a Dismiss)
        self.hide()

    def show_notice(self, text: str, actions: list[tuple[str, Callable[[], object]]] | None = None) -> None:
        """Show ``text`` with buttons for ``actions`` (each hides the bar, then runs); without
        actions there is a Dismiss button."""
        for button in self.buttons:
            button.deleteLater()
        self.buttons = []
        self.label.setText(text)
        self.asks = actions is not None
        for label, callback in actions or [(self.tr("Dismiss"), lambda: None)]:
            button = QPushButton(label)
            button.clicked.connect(lambda _checked=False, run=callback: (self.hide(), run()))
            self._layout.addWidget(button)
            self.buttons.append(button)
        self.show()
