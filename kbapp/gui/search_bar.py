"""The search field: search as you type (debounced), Enter searches at once, history dropdown."""

from __future__ import annotations

from PySide6.QtCore import QStringListModel, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QCompleter, QLineEdit, QWidget

from kbapp.gui.qt_compat import emit
from kbapp.gui.settings import HISTORY, HISTORY_SIZE, app_settings, string_list

DEBOUNCE_MS = 250


class SearchBar(QLineEdit):
    """Emits ``searchRequested`` 250 ms after the last keystroke, or at once on Enter.

    Down arrow in an empty field opens the history; otherwise (history popup closed) it emits
    ``leaveDown`` so the results list takes the focus: the keyboard alone gets from typing to
    reading.
    """

    searchRequested = Signal(str)
    leaveDown = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setPlaceholderText(self.tr("Ask a question or type a word, code or part number…"))
        self.setClearButtonEnabled(True)
        self.setAcceptDrops(False)  # dropped files go to the window's import, not into the text
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self._fire)
        self.textEdited.connect(lambda _text: self._timer.start())
        self.returnPressed.connect(self.search_now)
        self._history = QStringListModel(string_list(app_settings(), HISTORY), self)
        completer = QCompleter(self._history, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.activated.connect(lambda _text: self.search_now())
        self.setCompleter(completer)

    def search_now(self) -> None:
        self._timer.stop()
        self.remember(self.text())
        self._fire()

    def _fire(self) -> None:
        emit(self.searchRequested, self.text())

    def history(self) -> list[str]:
        return self._history.stringList()

    def remember(self, query: str) -> None:
        """Put ``query`` first in the history (kept in QSettings across runs)."""
        query = query.strip()
        if not query:
            return
        items = [query, *(q for q in self._history.stringList() if q != query)][:HISTORY_SIZE]
        self._history.setStringList(items)
        app_settings().setValue(HISTORY, items)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        completer = self.completer()
        if event.key() == Qt.Key.Key_Down and not completer.popup().isVisible():
            if not self.text() and self._history.rowCount():
                completer.setCompletionPrefix("")
                completer.complete()  # an empty field shows the whole history
            else:
                emit(self.leaveDown)
            return
        super().keyPressEvent(event)
