"""Reading the document list off the GUI thread, one listing at a time: an import asks every few
seconds, and a refresh asked for mid-listing is done once, right after."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from kbapp.contract import DocumentRecord, OcrState
from kbapp.gui.operations import OperationContext, run_in_background
from kbapp.gui.qt_compat import emit

if TYPE_CHECKING:
    from kbapp.library import KnowledgeBase

# documents, embedding progress, semantic search available, OCR state: one library listing
Listing = tuple[list[DocumentRecord], dict[int, tuple[int, int]], bool, dict[int, OcrState]]


class LibraryListing(QObject):
    listed = Signal(object)  # Listing
    failed = Signal(str)

    def __init__(self, kb: KnowledgeBase, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._kb = kb
        self._running = False
        self._again = False

    def refresh(self) -> None:
        """Re-read the list on a worker (at most one listing in flight)."""
        if self._running:
            self._again = True
            return
        self._running = True

        def work(_ctx: OperationContext) -> Listing:
            kb = self._kb
            return kb.documents(), kb.embedding_progress(), kb.model_available, kb.ocr_states()

        run_in_background(work, on_success=self._listed, on_failure=self._failed)

    def _listed(self, listing: Listing) -> None:
        self._running = False
        emit(self.listed, listing)
        if self._again:
            self._again = False
            self.refresh()

    def _failed(self, err: BaseException) -> None:
        self._running = False
        emit(self.failed, str(err))
