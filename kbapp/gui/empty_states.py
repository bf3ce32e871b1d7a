"""What the results area shows when there are no results to show.

``WelcomePage`` is the first-launch state (an empty library: say what to drop, offer the
sample library); ``MessagePage`` is for "type something" and for an honest "nothing found".
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget


def _label(text: str = "", *, scale: float = 1.0, bold: bool = False, muted: bool = False) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    font = QFont(label.font())
    font.setPointSizeF(font.pointSizeF() * scale)
    font.setBold(bold)
    label.setFont(font)
    if muted:
        label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label


class WelcomePage(QWidget):
    """The empty library: a drop zone with the supported formats and a way to try the app."""

    sampleRequested = Signal()
    importFilesRequested = Signal()
    importFolderRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = _label(self.tr("Your library is empty"), scale=1.5, bold=True)
        self.drop_hint = _label(
            self.tr("Drop PDFs, Word, Markdown, text or HTML files or whole folders here"), scale=1.15
        )
        self.body = _label(
            self.tr(
                "kbapp reads them on this computer — nothing is uploaded — and answers a question with "
                "the exact passages, pages and headings, in Chinese or English."
            ),
            muted=True,
        )
        self.sample_button = QPushButton(self.tr("Try the sample library"))
        self.sample_button.setDefault(True)
        self.files_button = QPushButton(self.tr("Import files…"))
        self.folder_button = QPushButton(self.tr("Import folder…"))
        self.sample_button.clicked.connect(self.sampleRequested)
        self.files_button.clicked.connect(self.importFilesRequested)
        self.folder_button.clicked.connect(self.importFolderRequested)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for button in (self.sample_button, self.files_button, self.folder_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(48, 48, 48, 48)
        layout.addStretch(2)
        layout.addWidget(self.title)
        layout.addSpacing(12)
        layout.addWidget(self.drop_hint)
        layout.addSpacing(8)
        layout.addWidget(self.body)
        layout.addSpacing(24)
        layout.addLayout(buttons)
        layout.addStretch(3)

    def paintEvent(self, event: QPaintEvent) -> None:
        """A dashed drop zone in the palette's mid tone (visible in light and dark themes)."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        color = QColor(self.palette().color(QPalette.ColorRole.Mid))
        pen = QPen(color, 2, Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(16, 16, -16, -16), 12, 12)


class MessagePage(QWidget):
    """A centred headline and explanation, with an optional action button."""

    actionRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = _label(scale=1.25, bold=True)
        self.body = _label(muted=True)
        self.body.setTextFormat(Qt.TextFormat.PlainText)
        self.action = QPushButton()
        self.action.clicked.connect(self.actionRequested)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.action)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(32, 32, 32, 32)
        layout.addStretch(1)
        layout.addWidget(self.title)
        layout.addSpacing(8)
        layout.addWidget(self.body)
        layout.addSpacing(16)
        layout.addLayout(row)
        layout.addStretch(2)

    def show_message(self, title: str, body: str, action: str = "") -> None:
        self.title.setText(title)
        self.body.setText(body)
        self.body.setVisible(bool(body))
        self.action.setText(action)
        self.action.setVisible(bool(action))
