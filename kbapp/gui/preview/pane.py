"""The preview pane: header, page and zoom controls, "Open original", and the page or text.

The document's pages are read from the library on a worker thread (a manual can have
hundreds); a newer request supersedes an older one that is still loading.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QIcon, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QStackedWidget,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from kbapp.contract import SearchResult
from kbapp.gui import desktop
from kbapp.gui.formatting import location
from kbapp.gui.operations import run_in_background
from kbapp.gui.passages import PassageSpan, locate
from kbapp.gui.preview.pdf_view import ZOOM_STEP, PageMarks, PdfView
from kbapp.gui.preview.scan_marks import word_boxes
from kbapp.gui.preview.text_view import TextView
from kbapp.gui.qt_compat import emit

if TYPE_CHECKING:
    from kbapp.library import KnowledgeBase

Pages = list[tuple[int | None, str]]


def _pdf_marks(
    pages: Pages, result: SearchResult, span: PassageSpan | None, ocr_lines: dict[int, str]
) -> dict[int, PageMarks]:
    """Marks by page number: matched words, restricted to the passage's text on each page; on a
    page read by OCR, the boxes OCR recorded for the highlighted characters."""
    terms = tuple(result.why.get("matched_terms") or ())
    if span is None:
        return {result.page: PageMarks(terms)} if result.page is not None else {}
    marks = {}
    for index, start, end in span.pieces:
        number = pages[index][0]
        if number is None:
            continue
        boxes: tuple[tuple[float, float, float, float], ...] = ()
        if number in ocr_lines:
            boxes = tuple(
                box
                for p, s, e in span.highlights
                if p == index
                for box in word_boxes(ocr_lines[number], s, e)
            )
        marks[number] = PageMarks(terms, pages[index][1][start:end], boxes)
    return marks


class PreviewPane(QWidget):
    """Shows a ``SearchResult`` in its document; ``ready`` fires once it is on screen."""

    ready = Signal()
    status = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._kb: KnowledgeBase | None = None
        self._result: SearchResult | None = None
        self.shown_doc: int | None = None  # whose text or page is on screen
        self._generation = 0
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setStyleSheet("font-weight: bold")
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.where = QLabel()
        self.where.setTextFormat(Qt.TextFormat.PlainText)
        self.where.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.where.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.where.setWordWrap(True)

        controls = self._build_controls()

        self.placeholder = QLabel()
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.pdf_view = PdfView()
        self.pdf_view.pageChanged.connect(self._page_changed)
        self.text_view = TextView()
        self.stack = QStackedWidget()
        for widget in (self.placeholder, self.pdf_view, self.text_view):
            self.stack.addWidget(widget)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.title)
        layout.addWidget(self.where)
        layout.addLayout(controls)
        layout.addWidget(self.stack, 1)
        self.clear()

    def _build_controls(self) -> QHBoxLayout:
        """The row of page, zoom and open buttons above the page."""
        style = self.style()
        self.prev_button = self._button(
            self.tr("Previous page"), None, icon=style.standardIcon(QStyle.StandardPixmap.SP_ArrowBack)
        )
        self.next_button = self._button(
            self.tr("Next page"), None, icon=style.standardIcon(QStyle.StandardPixmap.SP_ArrowForward)
        )
        self.page_label = QLabel()
        self.zoom_out_button = self._button(self.tr("Zoom out"), QKeySequence.StandardKey.ZoomOut, text="−")
        self.zoom_in_button = self._button(self.tr("Zoom in"), QKeySequence.StandardKey.ZoomIn, text="+")
        self.fit_button = self._button(self.tr("Fit width"), None, text=self.tr("Fit"))
        self.open_button = self._button(
            self.tr("Open the original file with its usual application"),
            None,
            text=self.tr("Open original"),
            icon=style.standardIcon(QStyle.StandardPixmap.SP_DialogOpenButton),
        )
        self.open_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.prev_button.clicked.connect(lambda: self.pdf_view.go(-1))
        self.next_button.clicked.connect(lambda: self.pdf_view.go(1))
        self.zoom_in_button.clicked.connect(lambda: self._zoom(ZOOM_STEP))
        self.zoom_out_button.clicked.connect(lambda: self._zoom(1 / ZOOM_STEP))
        self.fit_button.clicked.connect(lambda: self.pdf_view.fit_width())
        self.open_button.clicked.connect(self._open_original)
        controls = QHBoxLayout()
        controls.setContentsMargins(0, 0, 0, 0)
        for widget in (self.prev_button, self.page_label, self.next_button):
            controls.addWidget(widget)
        controls.addSpacing(12)
        for widget in (self.zoom_out_button, self.zoom_in_button, self.fit_button):
            controls.addWidget(widget)
        controls.addStretch(1)
        controls.addWidget(self.open_button)
        return controls

    def _button(
        self,
        tip: str,
        shortcut: QKeySequence.StandardKey | None,
        *,
        text: str = "",
        icon: QIcon | None = None,
    ) -> QToolButton:
        button = QToolButton()
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        button.setText(text)
        if icon is not None:
            button.setIcon(icon)
        if shortcut is not None:
            button.setShortcut(QKeySequence(shortcut))
        button.setAutoRaise(True)
        return button

    def attach(self, kb: KnowledgeBase) -> None:
        self._kb = kb

    @property
    def result(self) -> SearchResult | None:
        return self._result

    def clear(self) -> None:
        self._generation += 1
        self._result = None
        self.title.setText("")
        self.where.setText("")
        self.shown_doc = None
        self.pdf_view.close_document()
        self.placeholder.setText(self.tr("Select a result to see the passage in its document."))
        self.stack.setCurrentWidget(self.placeholder)
        self._update_controls()

    def show_result(self, result: SearchResult) -> None:
        kb = self._kb
        assert kb is not None, "attach() the library first"
        self._generation += 1
        generation = self._generation
        self._result = result
        self.title.setText(f"[{result.citation}] {result.title}")
        parts = [Path(result.path).name, location(result), result.heading or ""]
        self.where.setText(" · ".join(p for p in parts if p))
        if result.doc_id != self.shown_doc:  # never show one document under another's title
            self.shown_doc = None
            self.placeholder.setText(self.tr("Opening the document…"))
            self.stack.setCurrentWidget(self.placeholder)
            self._update_controls()
        run_in_background(
            lambda _ctx: (kb.pages(result.doc_id), kb.ocr_lines(result.doc_id)),
            on_success=lambda loaded: self._pages_loaded(generation, result, *loaded),
            on_failure=lambda err: self._failed(generation, err),
        )

    def _pages_loaded(
        self, generation: int, result: SearchResult, pages: Pages, ocr_lines: dict[int, str]
    ) -> None:
        if generation != self._generation:
            return
        span = locate(pages, result)
        if (
            result.page is not None
            and Path(result.path).suffix.lower() == ".pdf"
            and self.pdf_view.open(result.path)
        ):
            self.stack.setCurrentWidget(self.pdf_view)
            self.pdf_view.show_page(result.page, _pdf_marks(pages, result, span, ocr_lines))
        else:
            if result.page is not None:
                emit(
                    self.status, self.tr("The original PDF could not be opened; showing its extracted text.")
                )
            self.pdf_view.close_document()
            self.stack.setCurrentWidget(self.text_view)
            self.text_view.show_text(pages, span)
        self.shown_doc = result.doc_id
        self._update_controls()
        emit(self.ready)

    def _failed(self, generation: int, err: BaseException) -> None:
        if generation == self._generation:
            emit(self.status, self.tr("Could not show the document: %1").replace("%1", str(err)))
            emit(self.ready)

    def _page_changed(self, number: int, count: int) -> None:
        self.page_label.setText(self.tr("%1 / %2").replace("%1", str(number)).replace("%2", str(count)))
        self._update_controls()

    def _showing_pdf(self) -> bool:
        return self.stack.currentWidget() is self.pdf_view

    def _update_controls(self) -> None:
        pdf = self._showing_pdf()
        for widget in (self.prev_button, self.next_button, self.page_label, self.fit_button):
            widget.setVisible(pdf)
        self.prev_button.setEnabled(pdf and self.pdf_view.page_number > 1)
        self.next_button.setEnabled(pdf and self.pdf_view.page_number < self.pdf_view.page_count)
        showing = self._result is not None
        for widget in (self.zoom_in_button, self.zoom_out_button, self.open_button):
            widget.setVisible(showing)

    def _zoom(self, factor: float) -> None:
        if self._showing_pdf():
            self.pdf_view.zoom(factor)
        elif factor > 1:
            self.text_view.zoomIn(1)
        else:
            self.text_view.zoomOut(1)

    def _open_original(self) -> None:
        result = self._result
        if result is None:
            return
        name = Path(result.path).name
        if not desktop.open_original(result.path):
            emit(
                self.status,
                self.tr("Could not open %1: the file is missing or has no application.").replace("%1", name),
            )
        elif self._showing_pdf():
            emit(
                self.status,
                self.tr("Opened %1; the passage is on page %2.")
                .replace("%1", name)
                .replace("%2", str(self.pdf_view.page_number)),
            )
