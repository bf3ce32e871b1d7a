"""The library panel: every document with its type, size, import time and state.

It also sets the search scope: with "Search only the selected documents" ticked, searches
are restricted to the selected rows. Actions (remove, re-import, reveal) are requests the
main window carries out through ``LibraryJobs``; the panel itself never writes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QDateTime,
    QItemSelection,
    QItemSelectionModel,
    QLocale,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMenu,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from kbapp.contract import DocumentRecord, DocumentStatus, OcrState
from kbapp.gui.qt_compat import emit

_SHORT_TYPES = {"markdown": "MD", "text": "TXT"}
AnyIndex = QModelIndex | QPersistentModelIndex


class DocumentsModel(QAbstractTableModel):
    TITLE, STATUS, TYPE, PAGES, PASSAGES, IMPORTED = range(6)  # what matters most comes first

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._docs: list[DocumentRecord] = []
        self._embedded: dict[int, tuple[int, int]] = {}
        self._ocr: dict[int, OcrState] = {}
        self.semantic = False  # whether a model pack exists, so "embedding n %" means something
        self._order = (self.TITLE, Qt.SortOrder.AscendingOrder)

    def set_documents(
        self,
        docs: Sequence[DocumentRecord],
        embedded: dict[int, tuple[int, int]],
        ocr: dict[int, OcrState] | None = None,
    ) -> bool:
        """Show ``docs`` in the current order; returns whether rows changed (False: same documents
        in the same order, new details — updated in place, which keeps the view's selection and
        scroll position and is cheap enough to run every half second while embedding)."""
        self._embedded = dict(embedded)
        self._ocr = dict(ocr or {})
        ordered = self._sorted(docs)
        same = [d.id for d in ordered] == [d.id for d in self._docs]
        if not same:
            self.beginResetModel()
        self._docs = ordered
        if not same:
            self.endResetModel()
        elif ordered:
            emit(self.dataChanged, self.index(0, 0), self.index(len(ordered) - 1, self.columnCount() - 1))
        return not same

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sorted here, one key per document and Python's sort, rather than by a proxy model, which
        compares rows two at a time through ``data``: with 5,183 documents that took 340 ms of the
        window's thread at every change of the list (230,000 calls of ``data``), and an import
        changes it after every few files. Column -1 (no sort) keeps the order as it is."""
        if not 0 <= column < self.columnCount():
            return
        self.layoutAboutToBeChanged.emit()
        before = self.persistentIndexList()
        ids = [self._docs[index.row()].id for index in before]
        self._order = (column, order)
        self._docs = self._sorted(self._docs)
        row_of = {doc.id: row for row, doc in enumerate(self._docs)}
        after = [self.index(row_of[i], index.column()) for i, index in zip(ids, before, strict=True)]
        self.changePersistentIndexList(before, after)
        self.layoutChanged.emit()

    def _sorted(self, docs: Sequence[DocumentRecord]) -> list[DocumentRecord]:
        column, order = self._order
        return sorted(docs, key=self._key(column), reverse=order == Qt.SortOrder.DescendingOrder)

    def _key(self, column: int) -> Callable[[DocumentRecord], Any]:
        """What a column sorts by: the title without case, the status as shown, the rest's values."""
        if column == self.TITLE:
            return lambda doc: doc.title.casefold()
        if column == self.STATUS:
            return self.status_text
        field = column - self.TYPE
        return lambda doc: (doc.doc_type, doc.page_count or 0, doc.chunk_count, doc.imported_at)[field]

    def documents(self) -> list[DocumentRecord]:
        return list(self._docs)

    def document(self, row: int) -> DocumentRecord:
        return self._docs[row]

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._docs)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else 6

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole:
            return None
        return [
            self.tr("Document"),
            self.tr("Status"),
            self.tr("Type"),
            self.tr("Pages"),
            self.tr("Passages"),
            self.tr("Imported"),
        ][section]

    def status_text(self, doc: DocumentRecord) -> str:
        if doc.status == DocumentStatus.FAILED:
            reason = (doc.error or "").removeprefix(f"{Path(doc.path).name}: ") or self.tr("unknown reason")
            return self.tr("Failed: %1").replace("%1", reason)
        ocr = self._ocr.get(doc.id)
        if ocr is not None and ocr.pending:
            return self.tr("Searchable · OCR pending on %1 pages").replace("%1", str(ocr.pending))
        embedded, total = self._embedded.get(doc.id, (0, 0))
        if self.semantic and total and embedded < total:
            return self.tr("Searchable · embedding %1 %").replace("%1", str(embedded * 100 // total))
        if ocr is not None and ocr.failed:
            return self.tr("Searchable · OCR failed on %1 pages").replace("%1", str(ocr.failed))
        return self.tr("Searchable")

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        doc = self._docs[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.ToolTipRole:
            lines = [doc.path]
            if doc.error:
                lines.append(doc.error)
            lines += [w for w in doc.warnings.splitlines() if w]
            return "\n".join(lines)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (self.PAGES, self.PASSAGES):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if column == self.TITLE:
            return doc.title or Path(doc.path).name
        if column == self.TYPE:
            return _SHORT_TYPES.get(doc.doc_type, doc.doc_type.upper())
        if column == self.PAGES:
            return str(doc.page_count) if doc.page_count else "–"
        if column == self.PASSAGES:
            return str(doc.chunk_count)
        if column == self.IMPORTED:
            when = QDateTime.fromSecsSinceEpoch(int(doc.imported_at))
            return QLocale().toString(when, QLocale.FormatType.ShortFormat)
        return self.status_text(doc)


class _Filter(QSortFilterProxyModel):
    """Matches the filter text against title, file path, type and status; the order is the
    documents model's own (``DocumentsModel.sort``), this proxy never sorts.

    The text is kept as typed: Qt's fixed-string filter is a regular expression with the text
    escaped, so reading its pattern back turned "XK-200" into "XK\\-200", which no title holds."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._needle = ""

    def set_text(self, text: str) -> None:
        announced = hasattr(self, "beginFilterChange")  # Qt 6.10: invalidateRowsFilter is deprecated
        if announced:
            self.beginFilterChange()
        self._needle = text.strip().casefold()
        if announced:
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self.invalidateRowsFilter()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.sourceModel().sort(column, order)

    def filterAcceptsRow(self, row: int, parent: AnyIndex) -> bool:
        needle = self._needle
        if not needle:
            return True
        model = self.sourceModel()
        assert isinstance(model, DocumentsModel)
        doc = model.document(row)
        haystack = " ".join([doc.title, doc.path, doc.doc_type, model.status_text(doc)]).casefold()
        return needle in haystack


class LibraryPanel(QWidget):
    scopeChanged = Signal()
    removeRequested = Signal(list)  # doc ids
    reimportRequested = Signal(list)  # paths
    revealRequested = Signal(str)  # path

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = DocumentsModel(self)
        self._proxy = _Filter(self)
        self._proxy.setSourceModel(self.model)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText(self.tr("Filter documents…"))
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._proxy.set_text)
        self.table = QTableView()
        self.table.setModel(self._proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(DocumentsModel.TITLE, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setResizeContentsPrecision(40)  # measure 40 rows, not thousands, on every change
        header.setSectionResizeMode(DocumentsModel.TITLE, QHeaderView.ResizeMode.Interactive)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.table.doubleClicked.connect(lambda _index: self._reveal())

        self.scope = QCheckBox(self.tr("Search only the selected documents"))
        self._last_scope: list[int] | None = None
        self._writable = True
        self.scope.toggled.connect(self._selection_changed)
        self.remove_button = QPushButton(self.tr("Remove"))
        self.remove_button.setToolTip(
            self.tr("Remove the selected documents from the library (the files stay)")
        )
        self.reimport_button = QPushButton(self.tr("Re-import"))
        self.reimport_button.setToolTip(
            self.tr("Read the selected files again (picks up changes, retries failures)")
        )
        self.reveal_button = QPushButton(self.tr("Show file"))
        self.reveal_button.setToolTip(self.tr("Show the file in its folder"))
        self.remove_button.clicked.connect(lambda: emit(self.removeRequested, self.selected_ids()))
        self.reimport_button.clicked.connect(lambda: emit(self.reimportRequested, self.selected_paths()))
        self.reveal_button.clicked.connect(self._reveal)

        buttons = QHBoxLayout()
        for button in (self.remove_button, self.reimport_button, self.reveal_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.filter)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.scope)
        layout.addLayout(buttons)
        self._selection_changed()

    def set_documents(
        self,
        docs: Sequence[DocumentRecord],
        embedded: dict[int, tuple[int, int]],
        ocr: dict[int, OcrState] | None = None,
    ) -> None:
        """Replace the list, keeping the selection (by document id) across the refresh."""
        keep = set(self.selected_ids())
        if not self.model.set_documents(docs, embedded, ocr):
            return
        selection = QItemSelection()
        for row, doc in enumerate(self.model.documents() if keep else ()):
            if doc.id in keep:
                index = self._proxy.mapFromSource(self.model.index(row, 0))
                if index.isValid():
                    selection.select(index, index)
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        self.table.selectionModel().select(selection, flags)
        self._fit_title_column()
        self._selection_changed()

    def _fit_title_column(self) -> None:
        """Give the title what the other columns leave, but never less than a readable width
        (the table scrolls sideways instead)."""
        header = self.table.horizontalHeader()
        others = sum(header.sectionSize(c) for c in range(1, header.count()))
        header.resizeSection(DocumentsModel.TITLE, max(150, self.table.viewport().width() - others))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_title_column()

    def _selected(self) -> list[DocumentRecord]:
        docs = self.model.documents()
        rows = {self._proxy.mapToSource(i).row() for i in self.table.selectionModel().selectedRows()}
        return [docs[r] for r in sorted(rows)]

    def selected_ids(self) -> list[int]:
        return [d.id for d in self._selected()]

    def selected_paths(self) -> list[str]:
        return [d.path for d in self._selected()]

    def scope_ids(self) -> list[int] | None:
        """The documents to search, or None for the whole library."""
        return self.selected_ids() if self.scope.isChecked() else None

    def set_writable(self, writable: bool) -> None:
        """A read-only library can be searched but not changed."""
        self._writable = writable
        self._selection_changed()

    def _selection_changed(self, *_args: object) -> None:
        any_selected = bool(self.table.selectionModel().selectedRows())
        for button in (self.remove_button, self.reimport_button):
            button.setEnabled(any_selected and self._writable)
        self.reveal_button.setEnabled(len(self.table.selectionModel().selectedRows()) == 1)
        scope = self.scope_ids()
        if scope != self._last_scope:
            self._last_scope = scope
            emit(self.scopeChanged)

    def _reveal(self) -> None:
        paths = self.selected_paths()
        if paths:
            emit(self.revealRequested, paths[0])

    def _context_menu(self, pos: Any) -> None:
        if not self.selected_ids():
            return
        menu = QMenu(self)
        menu.addAction(self.reveal_button.text(), self._reveal)
        menu.addAction(self.reimport_button.text(), self.reimport_button.click)
        menu.addSeparator()
        menu.addAction(self.remove_button.text(), self.remove_button.click)
        menu.exec(self.table.viewport().mapToGlobal(pos))
