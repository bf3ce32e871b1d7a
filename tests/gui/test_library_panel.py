"""The library list of a library with thousands of documents: it is refreshed after every few
imported files and every half second while embedding, on the window's thread."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from kbapp.contract import DocumentRecord, DocumentStatus
from kbapp.gui.library_panel import AnyIndex, DocumentsModel, LibraryPanel


def records(n: int) -> list[DocumentRecord]:
    """``n`` documents whose titles, page counts and passage counts run in different orders."""
    return [
        DocumentRecord(
            id=i + 1,
            path=f"/manuals/doc{i:05}.pdf",
            content_hash=f"h{i}",
            title=f"Manual {(i * 7919) % n:05} part {i % 3}",
            doc_type="pdf",
            page_count=(i * 31) % 97 + 1,
            size=1000,
            mtime=0.0,
            imported_at=1_700_000_000.0 + i,
            status=DocumentStatus.READY,
            error=None,
            warnings="",
            chunk_count=(i * 13) % 50,
            copy_path=None,
        )
        for i in range(n)
    ]


class CountingModel(DocumentsModel):
    calls = 0

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        CountingModel.calls += 1
        return super().data(index, role)


@pytest.fixture
def panel(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> Iterator[LibraryPanel]:
    monkeypatch.setattr("kbapp.gui.library_panel.DocumentsModel", CountingModel)
    widget = LibraryPanel()
    qtbot.addWidget(widget)
    widget.resize(320, 600)
    widget.show()
    yield widget


def shown(panel: LibraryPanel, column: int) -> list[str]:
    proxy = panel.table.model()
    return [proxy.index(row, column).data() for row in range(proxy.rowCount())]


def refresh_calls(panel: LibraryPanel, qtbot: QtBot, docs: list[DocumentRecord]) -> int:
    CountingModel.calls = 0
    panel.set_documents(docs, {})
    qtbot.wait(1)  # the layout and paint the refresh causes
    return CountingModel.calls


def test_a_refresh_reads_what_is_shown_not_every_row_many_times(panel: LibraryPanel, qtbot: QtBot) -> None:
    """Sorted by a proxy model, a list of 5,000 documents called ``data`` 230,000 times per
    refresh (340 ms). Now what a refresh reads does not grow with the library."""
    small = refresh_calls(panel, qtbot, records(300))
    panel.set_documents([], {})
    large = refresh_calls(panel, qtbot, records(3000))
    assert large < 1.5 * small + 200, (small, large)


def test_the_list_sorts_filters_and_keeps_the_selection(panel: LibraryPanel, qtbot: QtBot) -> None:
    docs = records(400)
    panel.set_documents(docs, {})
    titles = shown(panel, DocumentsModel.TITLE)
    assert titles == sorted(titles, key=str.casefold)  # by title at first
    panel.table.sortByColumn(DocumentsModel.PASSAGES, Qt.SortOrder.DescendingOrder)
    counts = [int(c) for c in shown(panel, DocumentsModel.PASSAGES)]
    assert counts == sorted(counts, reverse=True)
    # A selected document stays selected when the list is read again, wherever it now sorts.
    panel.table.selectRow(5)
    chosen = panel.selected_ids()
    changed = [replace(d, chunk_count=99) if d.id == chosen[0] else d for d in docs]
    panel.set_documents(changed + records(401)[400:], {})
    assert panel.selected_ids() == chosen
    assert shown(panel, DocumentsModel.PASSAGES)[0] == "99"
    # What the user types is looked for as typed: spaces, hyphens and dots are not special.
    panel.filter.setText("part 2")
    titles = shown(panel, DocumentsModel.TITLE)
    assert titles and all("part 2" in t for t in titles)
    panel.filter.setText("doc00042.PDF")
    assert shown(panel, DocumentsModel.TITLE) == [next(d.title for d in docs if d.id == 43)]
