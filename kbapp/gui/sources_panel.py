"""The "Folders & collections" panel: watched folders with their sync status, and collections.

Each watched folder shows when it was last synced, how many files it holds, how many of them
could not be read, and whether it is offline (its documents stay searchable meanwhile). The
line under the list says what the running or last sync did. Buttons ask for what they need
(a folder, a name) and emit the request; ``SourceSync`` carries it out off the GUI thread.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from kbapp.gui.qt_compat import emit


class SourcesPanel(QWidget):
    watchRequested = Signal(str, str)  # folder, collection ("" for none)
    unwatchRequested = Signal(str)
    syncRequested = Signal()
    createRequested = Signal(str)
    renameRequested = Signal(str, str)
    deleteRequested = Signal(str)
    addSelectedRequested = Signal(str)  # collection: add the documents selected in the library list

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folders = QTreeWidget()
        self.folders.setRootIsDecorated(False)
        self.folders.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # the folder's own name stays visible
        self.folders.setHeaderLabels(
            [self.tr("Folder"), self.tr("Status"), self.tr("Last sync"), self.tr("Files"), self.tr("Failed")]
        )
        header = self.folders.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, 5):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.sync_line = QLabel(self.tr("No sync yet."))
        self.sync_line.setWordWrap(True)
        self.sync_line.setTextFormat(Qt.TextFormat.PlainText)
        self.keep_in_sync = QCheckBox(self.tr("Keep dropped folders in sync"))
        self.keep_in_sync.setToolTip(
            self.tr(
                "A folder dropped on the window is watched: new, changed, moved and deleted files follow."
            )
        )
        self.watch_button = QPushButton(self.tr("Watch folder…"))
        self.unwatch_button = QPushButton(self.tr("Stop watching"))
        self.sync_button = QPushButton(self.tr("Sync now"))
        self.collections = QListWidget()
        self.new_button = QPushButton(self.tr("New…"))
        self.rename_button = QPushButton(self.tr("Rename…"))
        self.delete_button = QPushButton(self.tr("Delete"))
        self.add_button = QPushButton(self.tr("Add selected documents"))

        self._build_layout()
        self.watch_button.clicked.connect(self._ask_folder)
        self.unwatch_button.clicked.connect(self._unwatch)
        self.sync_button.clicked.connect(lambda: emit(self.syncRequested))
        self.new_button.clicked.connect(self._ask_new)
        self.rename_button.clicked.connect(self._ask_rename)
        self.delete_button.clicked.connect(
            lambda: self._with_collection(lambda n: emit(self.deleteRequested, n))
        )
        self.add_button.clicked.connect(
            lambda: self._with_collection(lambda n: emit(self.addSelectedRequested, n))
        )
        self.folders.itemSelectionChanged.connect(self._update_buttons)
        self.collections.itemSelectionChanged.connect(self._update_buttons)
        self._update_buttons()

    def _build_layout(self) -> None:
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(self.tr("Watched folders")))
        layout.addWidget(self.folders, 2)
        layout.addWidget(self.sync_line)
        row = QHBoxLayout()
        for button in (self.watch_button, self.unwatch_button, self.sync_button):
            row.addWidget(button)
        layout.addLayout(row)
        layout.addWidget(self.keep_in_sync)
        layout.addWidget(QLabel(self.tr("Collections")))
        layout.addWidget(self.collections, 1)
        row = QHBoxLayout()
        for button in (self.new_button, self.rename_button, self.delete_button):
            row.addWidget(button)
        layout.addLayout(row)
        layout.addWidget(self.add_button)

    # -- showing ----------------------------------------------------------------------------

    def _state(self, state: str) -> str:
        return {"ok": self.tr("OK"), "offline": self.tr("Offline"), "new": self.tr("Not synced yet")}.get(
            state, state
        )

    def show_sources(self, sources: list[Any], collections: list[Any]) -> None:
        chosen = self.selected_folder()
        self.folders.clear()
        for s in sources:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(s.last_sync)) if s.last_sync else "—"
            item = QTreeWidgetItem([s.path, self._state(s.state), when, str(s.files), str(s.failures)])
            item.setData(0, Qt.ItemDataRole.UserRole, s.path)
            tip = (
                s.path
                + (f"\n→ {s.collection}" if s.collection else "")
                + (f"\n{s.message}" if s.message else "")
            )
            for column in range(5):
                item.setToolTip(column, tip)
            self.folders.addTopLevelItem(item)
            item.setSelected(s.path == chosen)
        name = self.selected_collection()
        self.collections.clear()
        for c in collections:
            entry = QListWidgetItem(self.tr("%1 (%n documents)", "", c.documents).replace("%1", c.name))
            entry.setData(Qt.ItemDataRole.UserRole, c.name)
            self.collections.addItem(entry)
            entry.setSelected(c.name == name)
        self._update_buttons()

    def show_progress(self, progress: Any) -> None:
        self.sync_line.setText(
            self.tr("Syncing: %1 of %2 changes — %3")
            .replace("%1", str(progress.done))
            .replace("%2", str(progress.total))
            .replace("%3", progress.current.rsplit("/", 1)[-1])
        )

    def show_report(self, report: Any) -> None:
        counts = {str(c.change): 0 for c in report.changes}
        for c in report.changes:
            counts[str(c.change)] += 1
        text = self.tr("Last sync: %1 added, %2 updated, %3 moved, %4 removed, %5 failed, %6 unchanged")
        for n, key in enumerate(("added", "updated", "moved", "removed", "failed"), start=1):
            text = text.replace(f"%{n}", str(counts.get(key, 0)))
        text = text.replace("%6", str(report.unchanged))
        if report.offline:
            text += "\n" + self.tr("Offline (documents kept): %1").replace(
                "%1", ", ".join(folder for folder, _ in report.offline)
            )
        if report.error:
            text += "\n" + report.error
        self.sync_line.setText(text)

    # -- asking -----------------------------------------------------------------------------

    def selected_folder(self) -> str | None:
        items = self.folders.selectedItems()
        return items[0].data(0, Qt.ItemDataRole.UserRole) if items else None

    def selected_collection(self) -> str | None:
        items = self.collections.selectedItems()
        return items[0].data(Qt.ItemDataRole.UserRole) if items else None

    def _update_buttons(self) -> None:
        self.unwatch_button.setEnabled(self.selected_folder() is not None)
        has = self.selected_collection() is not None
        for button in (self.rename_button, self.delete_button, self.add_button):
            button.setEnabled(has)

    def _ask_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Watch folder"))
        if not folder:
            return
        names = [
            self.collections.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.collections.count())
        ]
        collection, ok = QInputDialog.getItem(
            self,
            self.tr("Watch folder"),
            self.tr("Put its documents in a collection (optional, a new name creates one):"),
            ["", *names],
            0,
            True,
        )
        if ok:
            emit(self.watchRequested, folder, collection.strip())

    def _unwatch(self) -> None:
        folder = self.selected_folder()
        if folder is not None:
            emit(self.unwatchRequested, folder)

    def _ask_new(self) -> None:
        name, ok = QInputDialog.getText(self, self.tr("New collection"), self.tr("Name:"))
        if ok and name.strip():
            emit(self.createRequested, name.strip())

    def _ask_rename(self) -> None:
        old = self.selected_collection()
        if old is None:
            return
        new, ok = QInputDialog.getText(self, self.tr("Rename collection"), self.tr("New name:"), text=old)
        if ok and new.strip() and new.strip() != old:
            emit(self.renameRequested, old, new.strip())

    def _with_collection(self, act: Any) -> None:
        name = self.selected_collection()
        if name is not None:
            act(name)
