"""The results column, and the words for every state that stands in for results (welcome,
importing, how to search, nothing found, failed), so the window only says what happened."""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QLabel, QStackedWidget, QVBoxLayout, QWidget

from kbapp.contract import ModelState, ResponseStatus, SearchResponse, SearchResult
from kbapp.gui.empty_states import MessagePage, WelcomePage
from kbapp.gui.formatting import passage_with_citation, results_as_context
from kbapp.gui.qt_compat import emit
from kbapp.gui.results_view import ResultsView
from kbapp.gui.search_runner import SearchRequest

CONTEXT_RESULTS = 5  # passages copied as context: enough to answer, few enough to read
_SPELLED_OUT = 2  # unknown words shown with what else they were looked for as, at most


class Offer(Enum):
    """What the button on a message page does. A value, not a stored callback: a bound method kept
    on the widget would tie its Python wrapper into a cycle that the garbage collector may free
    after Qt has deleted the widget (seen as a crash in the tests)."""

    NOTHING = "nothing"
    SEARCH_EVERYTHING = "search everything"
    CLOSEST = "show the closest passages"


class ResultsArea(QWidget):
    """The info line over the page stack; ``response`` is the search response on screen."""

    status = Signal(str, int)  # a message for the status bar, and how long it stays (ms)
    searchEverything = Signal()  # nothing found among the selected documents: search them all

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.response: SearchResponse | None = None
        self.info = QLabel()
        self.info.setWordWrap(True)
        self.info.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.info.setTextFormat(Qt.TextFormat.PlainText)
        self.info.hide()
        self.welcome = WelcomePage()
        self.message_page = MessagePage()
        self.message_page.actionRequested.connect(self._act)
        self._offer = Offer.NOTHING  # what the message page's button does
        self.results_view = ResultsView()
        self.results_view.copyRequested.connect(self.copy_passage)
        self.stack = QStackedWidget()
        for page in (self.message_page, self.welcome, self.results_view):
            self.stack.addWidget(page)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.info)
        column.addWidget(self.stack, 1)
        self._show_message(self.tr("Opening the library…"), "")  # until the library is listed

    def _show_message(self, title: str, body: str, action: str = "", offer: Offer = Offer.NOTHING) -> None:
        """``action``: the label of the page's button, which does what ``offer`` says."""
        self._offer = offer
        self.message_page.show_message(title, body, action)
        self.stack.setCurrentWidget(self.message_page)

    def _act(self) -> None:
        if self._offer is Offer.SEARCH_EVERYTHING:
            emit(self.searchEverything)
        elif self._offer is Offer.CLOSEST:
            self._show_closest()

    def _show_closest(self) -> None:
        """The search judged nothing relevant and the user asked to see what came nearest: show it,
        saying above it that these passages were judged not to answer the question."""
        assert self.response is not None
        self.info.setText(
            self.tr(
                "Nothing was judged relevant to this question. These are the closest passages "
                "in the library; check them before relying on them."
            )
        )
        self.info.show()
        self.results_view.set_results(self.response.closest)
        self.stack.setCurrentWidget(self.results_view)

    def set_writable(self, writable: bool) -> None:
        """A read-only library can be searched, so the welcome page offers no import."""
        for button in (self.welcome.sample_button, self.welcome.files_button, self.welcome.folder_button):
            button.setEnabled(writable)

    def show_idle(self, has_documents: bool, importing: bool) -> None:
        """No query typed: welcome an empty library, say an import is under way, or say how to search."""
        if not has_documents and not importing:
            self.stack.setCurrentWidget(self.welcome)
        elif not has_documents:
            self._show_message(
                self.tr("Importing your documents…"),
                self.tr("Each file can be searched as soon as it has been read."),
            )
        else:
            self._show_message(
                self.tr("Search your library"),
                self.tr(
                    "Type a question, a word, an error code or a part number, in Chinese or English. "
                    "Each result shows its document, page and heading; the page itself appears on the right."
                ),
            )

    def clear(self) -> None:
        """The query was erased: no response is on screen any more."""
        self.response = None
        self.results_view.set_results([])
        self.info.hide()

    def show_response(
        self,
        request: SearchRequest,
        response: SearchResponse,
        *,
        model_state: str,
        scope: Sequence[int] | None,
        keep: SearchResult | None,
        model_problem: str = "",
    ) -> None:
        """Show the results, keeping ``keep`` selected if it is among them, or say why there are none.

        ``model_state``, ``model_problem`` (why no model, when none could load) and ``scope`` (the
        documents searched, None for all) explain the response.
        """
        self.response = response
        self._show_info(response, model_state, model_problem, scope)
        if response.results:
            self.results_view.set_results(response.results, keep)
            self.stack.setCurrentWidget(self.results_view)
        else:
            self.results_view.set_results([])
            self._show_nothing_found(request, response, model_state)

    def _show_info(
        self, response: SearchResponse, model_state: str, model_problem: str, scope: Sequence[int] | None
    ) -> None:
        """One muted line above the results: how the search was done, when it matters. Without a
        model it says why (a damaged pack is not fixed by waiting)."""
        text = ""
        if response.status is ResponseStatus.KEYWORD_ONLY:
            if model_state == ModelState.LOADING:
                text = self.tr("Keyword matches only: the semantic model is still loading.")
            elif model_state == ModelState.UNAVAILABLE and model_problem:
                why = self.tr("Keyword matches only: semantic search is not available (%1).")
                text = why.replace("%1", model_problem)
            elif model_state == ModelState.UNAVAILABLE:
                text = self.tr("Keyword matches only: semantic search is not available.")
            else:
                text = response.message or ""
        if response.results and response.unknown_words:
            # Answered on the rest of the question: say which of its words no passage holds, so a
            # result is not taken for an answer about them ("cable shield grounded" answered by a
            # passage on cables).
            missing = self.tr("No document mentions %1: the results match the rest of the question.")
            text = " ".join([text, missing.replace("%1", self._missing_words(response))]).strip()
        if scope is not None:
            text = " ".join([text, self.tr("Searching only %n selected documents.", "", len(scope))]).strip()
        self.info.setText(text)
        self.info.setVisible(bool(text))

    def _show_nothing_found(self, request: SearchRequest, response: SearchResponse, model_state: str) -> None:
        """Say plainly that nothing matched, why if the library knows, and what to try instead."""
        if response.status is ResponseStatus.NOTHING_RELEVANT:
            lines = [self.tr("No passage in the library is close to this question.")]
            if response.unknown_words:
                lines.append(self.tr("No document mentions: %1").replace("%1", self._missing_words(response)))
        else:
            lines = [self.tr("No passage in the library contains these words.")]
            if model_state == ModelState.LOADING:
                lines.append(self.tr("Matching by meaning starts once the semantic model has loaded."))
        action, offer = "", Offer.NOTHING
        if request.document_ids is not None:
            lines.append(self.tr("Only the documents selected in the library were searched."))
            action, offer = self.tr("Search all documents"), Offer.SEARCH_EVERYTHING
        else:
            lines.append(self.tr("Try other or fewer words, a synonym, or the other language."))
            if response.closest:
                action, offer = self.tr("Show the closest passages anyway"), Offer.CLOSEST
        self._show_message(
            self.tr("Nothing found for “%1”").replace("%1", request.query),
            "\n".join(lines),
            action,
            offer,
        )

    def _missing_words(self, response: SearchResponse) -> str:
        """The question's words no passage holds. One or two may be the dictionary's gap, worth
        spelling out; a question missing more is about something else, and the list would be a wall."""
        spell_out = len(response.unknown_words) <= _SPELLED_OUT
        return ", ".join(
            self._unknown_word(response, word) if spell_out else word for word in response.unknown_words
        )

    def _unknown_word(self, response: SearchResponse, word: str) -> str:
        """The word, and the other language's words it was also looked for as: the library may
        use one the dictionary does not give."""
        tried = response.unknown_translations.get(word)
        if not tried:
            return word
        return self.tr("%1 (also looked for: %2)").replace("%1", word).replace("%2", ", ".join(tried))

    def show_failure(self, message: str) -> None:
        """The search raised: show its message where the results would be."""
        self._show_message(self.tr("The search failed"), message)

    def copy_passage(self, result: SearchResult | None = None) -> None:
        """Copy ``result`` (by default the selected one) with its citation, to paste elsewhere."""
        result = result or self.results_view.current_result()
        if result is None:
            return
        QGuiApplication.clipboard().setText(passage_with_citation(result))
        emit(
            self.status,
            self.tr("Copied passage [%1] with its source.").replace("%1", str(result.citation)),
            5000,
        )

    def copy_context(self) -> None:
        """Copy the top passages with their sources, as context for an assistant."""
        if not self.response or not self.response.results:
            return
        top = self.response.results[:CONTEXT_RESULTS]
        QGuiApplication.clipboard().setText(results_as_context(self.response.query, top))
        emit(self.status, self.tr("Copied %n passages as context for an assistant.", "", len(top)), 5000)
