"""From a typed query to the response on screen: stale responses are dropped, a changed scope or
library re-runs the query, and the preview follows the chosen result."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from kbapp.contract import SearchResponse, SearchResult
from kbapp.gui.qt_compat import emit
from kbapp.gui.search_runner import SearchRequest

if TYPE_CHECKING:
    from kbapp.gui.main_window import MainWindow


class SearchFlow(QObject):
    """Connects the search field, the library panel's scope and the results area to the search."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._window = window
        area = window.results_area
        window.search_bar.searchRequested.connect(self.search)
        window.search_bar.leaveDown.connect(area.results_view.setFocus)
        area.results_view.selectionModel().currentChanged.connect(self._current_changed)
        area.results_view.opened.connect(self._opened)
        area.searchEverything.connect(self._search_everything)
        window.library.scopeChanged.connect(self.rerun)

    def search(self, query: str) -> None:
        """Search the library panel's scope for ``query``; an empty query clears the results."""
        window = self._window
        if window.kb is None:
            return
        if not query.strip():
            window.searcher.latest = None
            window.results_area.clear()
            window.preview.clear()
            window.update_idle_state()
            window.menu_actions.update_enabled()
            return
        window.searcher.search(query, window.library.scope_ids())

    def rerun(self) -> None:
        """Search the field's query again: the library, the scope or the model changed under it."""
        query = self._window.search_bar.text()
        if query.strip():
            self.search(query)

    def show_response(self, request: SearchRequest, response: SearchResponse) -> None:
        window = self._window
        if request.query != window.search_bar.text().strip():
            return  # the field changed since; its own search is on the way
        window.results_area.show_response(
            request,
            response,
            model_state=window.jobs.model_state,
            model_problem=window.jobs.model_problem,
            scope=window.library.scope_ids(),
            keep=self._kept(response),
        )
        if not response.results:
            window.preview.clear()
        window.menu_actions.update_enabled()
        emit(window.resultsShown)

    def _kept(self, response: SearchResponse) -> SearchResult | None:
        """The passage that stays selected: the same question asked again (the library, scope or
        model changed) keeps the one the user moved to. A new question, or a reader who had not
        left [1], starts at the best answer, [1]: vectors ready after a keyword-only first answer
        often change it."""
        shown, reading = self._window.results_area.response, self._window.preview.result
        if shown is None or reading is None or not shown.results or shown.query != response.query:
            return None
        return reading if reading.chunk_ids != shown.results[0].chunk_ids else None

    def show_failure(self, _request: SearchRequest, message: str) -> None:
        self._window.results_area.show_failure(message)
        emit(self._window.resultsShown)

    def _search_everything(self) -> None:
        """Nothing found among the selected documents: the user asked to search them all."""
        self._window.library.scope.setChecked(False)

    def _current_changed(self, *_args: object) -> None:
        self._preview(self._window.results_area.results_view.current_result())

    def _opened(self, result: SearchResult | None) -> None:
        """A result was opened (Enter, double-click): its query was worth keeping in the history."""
        self._window.search_bar.remember(self._window.search_bar.text())
        self._preview(result)

    def _preview(self, result: SearchResult | None) -> None:
        """Show ``result`` in the preview, unless it is already there (reloading would flicker)."""
        preview = self._window.preview
        if result is not None and result != preview.result:
            preview.show_result(result)
