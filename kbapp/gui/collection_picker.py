"""The collection picker beside the search field: search everything, or only some collections.

A button with a menu of checkable collection names; the button says what is searched. A
collection that disappears (deleted, renamed) drops out of the choice when the list is updated.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QMenu, QToolButton, QWidget

from kbapp.gui.qt_compat import emit


class CollectionPicker(QToolButton):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu_ = QMenu(self)
        self.setMenu(self.menu_)
        self._names: list[str] = []
        self._chosen: list[str] = []
        self.set_collections([])

    def selected(self) -> tuple[str, ...]:
        """The collections to search in; empty: the whole library."""
        return tuple(self._chosen)

    def set_collections(self, names: list[str]) -> None:
        before = self.selected()
        self._names = list(names)
        self._chosen = [n for n in self._chosen if n in self._names]
        self._rebuild()
        if self.selected() != before:
            emit(self.changed)

    def choose(self, names: list[str]) -> None:
        self._chosen = [n for n in self._names if n in names]
        self._rebuild()
        emit(self.changed)

    def _toggle(self, name: str, on: bool) -> None:
        chosen = set(self._chosen) | {name} if on else set(self._chosen) - {name}
        self.choose(sorted(chosen))

    def _rebuild(self) -> None:
        self.menu_.clear()
        everything = self.menu_.addAction(self.tr("All documents"))
        everything.setCheckable(True)
        everything.setChecked(not self._chosen)
        everything.triggered.connect(lambda: self.choose([]))
        if self._names:
            self.menu_.addSeparator()
        for name in self._names:
            action = self.menu_.addAction(name)
            action.setCheckable(True)
            action.setChecked(name in self._chosen)
            action.toggled.connect(lambda on, n=name: self._toggle(n, on))
        self.setEnabled(bool(self._names))
        if not self._chosen:
            self.setText(self.tr("All documents"))
        else:
            self.setText(self.tr("In: %1").replace("%1", ", ".join(self._chosen)))
        self.setToolTip(self.tr("Search only in the chosen collections"))
