"""The results area's states, worded for the user: nothing found and why, a narrowed scope, a
model still loading, and the pages shown when no query is typed."""

from __future__ import annotations

from kbapp.contract import ModelState, ResponseStatus, SearchResponse
from kbapp.gui.results_area import ResultsArea
from kbapp.gui.search_runner import SearchRequest
from tests.gui.test_formatting import result


def nothing(query: str, status: ResponseStatus, unknown: tuple[str, ...] = ()) -> SearchResponse:
    return SearchResponse(query, "hybrid", [], status, unknown_words=unknown)


def test_a_question_about_words_the_library_never_saw_says_which(qtbot) -> None:  # type: ignore[no-untyped-def]
    area = ResultsArea()
    qtbot.addWidget(area)
    request = SearchRequest("zebra giraffe")
    response = nothing(request.query, ResponseStatus.NOTHING_RELEVANT, ("zebra", "giraffe"))
    area.show_response(request, response, model_state=ModelState.READY, scope=None, keep=None)
    assert area.stack.currentWidget() is area.message_page
    assert area.message_page.title.text() == "Nothing found for “zebra giraffe”"
    assert area.message_page.body.text().splitlines() == [
        "No passage in the library is close to this question.",
        "No document mentions: zebra, giraffe",
        "Try other or fewer words, a synonym, or the other language.",
    ]
    assert area.message_page.action.isHidden()  # the search set nothing aside to show
    assert area.response is response and area.info.isHidden()


def test_an_unknown_word_says_what_else_it_was_looked_for_as(qtbot) -> None:  # type: ignore[no-untyped-def]
    area = ResultsArea()
    qtbot.addWidget(area)
    request = SearchRequest("叶轮密封多久更换")
    response = nothing(request.query, ResponseStatus.NOTHING_RELEVANT, ("叶轮",))
    response.unknown_translations["叶轮"] = ("turbine", "wheel")
    area.show_response(request, response, model_state=ModelState.READY, scope=None, keep=None)
    assert "No document mentions: 叶轮 (also looked for: turbine, wheel)" in area.message_page.body.text()
    # A question missing many words is about something else: the words alone, not a wall of glosses.
    many = nothing(
        "red wine carpet stains", ResponseStatus.NOTHING_RELEVANT, ("red", "wine", "carpet", "stains")
    )
    many.unknown_translations.update({"red": ("红色",), "wine": ("葡萄酒",)})
    area.show_response(SearchRequest(many.query), many, model_state=ModelState.READY, scope=None, keep=None)
    assert "No document mentions: red, wine, carpet, stains" in area.message_page.body.text()


def test_results_for_a_question_with_words_no_passage_holds_say_which(qtbot) -> None:  # type: ignore[no-untyped-def]
    """A question answered on some of its words ("cable"): the line above the results names the
    words no document holds, with what else each was looked for as."""
    area = ResultsArea()
    qtbot.addWidget(area)
    found = [result("Keep the cable at least 20 cm away from motor power lines.", [])]
    request = SearchRequest("where should the cable shield be grounded")
    response = SearchResponse(
        request.query, "hybrid", found, ResponseStatus.OK, unknown_words=("shield", "grounded")
    )
    response.unknown_translations["shield"] = ("盾牌",)
    area.show_response(request, response, model_state=ModelState.READY, scope=None, keep=None)
    assert area.stack.currentWidget() is area.results_view
    assert area.info.text() == (
        "No document mentions shield (also looked for: 盾牌), grounded: "
        "the results match the rest of the question."
    )
    assert not area.info.isHidden()
    answered = SearchResponse("cable", "hybrid", found, ResponseStatus.OK)
    area.show_response(SearchRequest("cable"), answered, model_state=ModelState.READY, scope=None, keep=None)
    assert area.info.isHidden()  # every word found: nothing to say


def test_nothing_found_in_a_scope_offers_to_search_everything(qtbot) -> None:  # type: ignore[no-untyped-def]
    area = ResultsArea()
    qtbot.addWidget(area)
    request = SearchRequest("pump", (3, 5))
    area.show_response(
        request,
        nothing("pump", ResponseStatus.NOTHING_FOUND),
        model_state=ModelState.LOADING,
        scope=[3, 5],
        keep=None,
    )
    assert area.message_page.body.text().splitlines() == [
        "No passage in the library contains these words.",
        "Matching by meaning starts once the semantic model has loaded.",
        "Only the documents selected in the library were searched.",
    ]
    assert area.message_page.action.text() == "Search all documents"
    assert not area.message_page.action.isHidden()
    assert area.info.text() == "Searching only 2 selected documents."
    with qtbot.waitSignal(area.searchEverything):
        area.message_page.action.click()


def test_a_refused_question_can_still_show_the_closest_passages(qtbot) -> None:  # type: ignore[no-untyped-def]
    """ "Nothing relevant" stays the answer; the passages the search set aside are one click away,
    under a line that says they were judged not to answer the question."""
    area = ResultsArea()
    qtbot.addWidget(area)
    closest = [result("Exposure time sets how long the sensor collects light.", []), result("Gain", [])]
    request = SearchRequest("曝光时间是什么意思")
    response = SearchResponse(request.query, "hybrid", [], ResponseStatus.NOTHING_RELEVANT, closest=closest)
    area.show_response(request, response, model_state=ModelState.READY, scope=None, keep=None)
    assert area.stack.currentWidget() is area.message_page
    assert area.message_page.action.text() == "Show the closest passages anyway"
    area.message_page.action.click()
    assert area.stack.currentWidget() is area.results_view
    assert area.results_view.results_model.results() == closest
    assert area.results_view.current_result() == closest[0]
    assert area.info.text().startswith("Nothing was judged relevant to this question.")
    assert area.response is response and response.results == []  # nothing is passed off as an answer


def test_keyword_only_says_why(qtbot) -> None:  # type: ignore[no-untyped-def]
    area = ResultsArea()
    qtbot.addWidget(area)
    response = nothing("pump", ResponseStatus.KEYWORD_ONLY)
    area.show_response(SearchRequest("pump"), response, model_state=ModelState.LOADING, scope=None, keep=None)
    assert area.info.text() == "Keyword matches only: the semantic model is still loading."
    area.show_response(
        SearchRequest("pump"), response, model_state=ModelState.UNAVAILABLE, scope=None, keep=None
    )
    assert area.info.text() == "Keyword matches only: semantic search is not available."
    problem = "model.onnx: sha256 does not match manifest.json (corrupt or modified)"
    area.show_response(
        SearchRequest("pump"),
        response,
        model_state=ModelState.UNAVAILABLE,
        model_problem=problem,
        scope=None,
        keep=None,
    )
    assert area.info.text() == f"Keyword matches only: semantic search is not available ({problem})."
    area.clear()
    assert area.response is None and area.info.isHidden()


def test_with_no_query_the_page_fits_the_library(qtbot) -> None:  # type: ignore[no-untyped-def]
    area = ResultsArea()
    qtbot.addWidget(area)
    assert area.message_page.title.text() == "Opening the library…"
    area.show_idle(has_documents=False, importing=False)
    assert area.stack.currentWidget() is area.welcome
    area.show_idle(has_documents=False, importing=True)
    assert area.stack.currentWidget() is area.message_page
    assert area.message_page.title.text() == "Importing your documents…"
    area.show_idle(has_documents=True, importing=True)
    assert area.message_page.title.text() == "Search your library"


def test_a_read_only_library_offers_no_import(qtbot) -> None:  # type: ignore[no-untyped-def]
    area = ResultsArea()
    qtbot.addWidget(area)
    area.set_writable(False)
    buttons = (area.welcome.sample_button, area.welcome.files_button, area.welcome.folder_button)
    assert not any(b.isEnabled() for b in buttons)
    area.set_writable(True)
    assert all(b.isEnabled() for b in buttons)
