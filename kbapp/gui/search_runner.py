"""Searching off the GUI thread, latest query wins.

Typing fires a search every 250 ms; each runs on a worker (a hybrid query embeds the question
and may wait on the disk while an import writes). While one search runs, only the newest
request waits behind it; older ones are dropped, and a result that is no longer the newest
request is never shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from kbapp.contract import SearchResponse
from kbapp.gui.operations import OperationContext, run_in_background
from kbapp.gui.qt_compat import emit

if TYPE_CHECKING:
    from kbapp.library import KnowledgeBase

RESULTS = 20


@dataclass(frozen=True, slots=True)
class SearchRequest:
    query: str
    document_ids: tuple[int, ...] | None = None
    collections: tuple[str, ...] = ()


class SearchRunner(QObject):
    finished = Signal(object, object)  # SearchRequest, SearchResponse
    failed = Signal(object, str)  # SearchRequest, message

    def __init__(self, kb: KnowledgeBase, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._kb = kb
        self._running: SearchRequest | None = None
        self._waiting: SearchRequest | None = None
        self.latest: SearchRequest | None = None
        self.collections: tuple[str, ...] = ()  # search only these collections (the picker's choice)

    def search(self, query: str, document_ids: Sequence[int] | None = None) -> None:
        ids = tuple(document_ids) if document_ids is not None else None
        request = SearchRequest(query.strip(), ids, self.collections)
        self.latest = request
        if self._running is not None:
            self._waiting = request
            return
        self._start(request)

    def _start(self, request: SearchRequest) -> None:
        self._running = request

        def work(_ctx: OperationContext) -> SearchResponse:
            scope = self._kb.collections.restrict(request.document_ids, request.collections)
            return self._kb.search(request.query, RESULTS, "hybrid", scope)

        run_in_background(
            work,
            on_success=lambda response: self._done(request, response, None),
            on_failure=lambda err: self._done(request, None, f"{type(err).__name__}: {err}"),
        )

    def _done(self, request: SearchRequest, response: SearchResponse | None, error: str | None) -> None:
        self._running = None
        if request == self.latest:
            if response is not None:
                emit(self.finished, request, response)
            else:
                emit(self.failed, request, error or "")
        waiting, self._waiting = self._waiting, None
        if waiting is not None:
            self._start(waiting)
