"""The search flow: a response to a query the field no longer holds is dropped, and erasing the
query clears the results."""

from __future__ import annotations

from pathlib import Path

from kbapp.contract import ResponseStatus, SearchResponse
from kbapp.gui.search_runner import SearchRequest
from tests.gui.conftest import import_by_drop, search


def test_a_stale_response_is_not_shown(qtbot, open_window) -> None:  # type: ignore[no-untyped-def]
    window = open_window()
    window.search_bar.setText("pump")
    stale = SearchResponse("pum", "hybrid", [], ResponseStatus.NOTHING_FOUND)
    with qtbot.assertNotEmitted(window.resultsShown):
        window.search_flow.show_response(SearchRequest("pum"), stale)
    assert window.results_area.response is None


def test_erasing_the_query_clears_the_results(qtbot, open_window, manuals: Path) -> None:  # type: ignore[no-untyped-def]
    window = open_window()
    import_by_drop(qtbot, window, [manuals / "camera_en.md"])
    search(qtbot, window, "exposure")
    assert window.results_area.response is not None and window.results_area.response.results
    assert window.menu_actions.context_action.isEnabled()
    window.search_bar.clear()
    window.search_flow.search("")
    area = window.results_area
    assert area.response is None and area.results_view.model().rowCount() == 0
    assert window.preview.result is None and not window.menu_actions.context_action.isEnabled()
    assert area.message_page.title.text() == "Search your library"
