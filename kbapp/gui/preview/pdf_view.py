"""A PDF page rendered with PyMuPDF at screen resolution, with the matched words marked.

Rendering happens on the GUI thread on purpose: one page at screen resolution takes tens of
milliseconds, and PyMuPDF holds the GIL while it works, so a worker thread would stall the
event loop just the same while adding a race with the next page request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QImage, QKeyEvent, QPainter, QPalette, QPixmap, QResizeEvent
from PySide6.QtWidgets import QLabel, QScrollArea, QWidget

from kbapp.gui.preview.pdf_marks import term_rects
from kbapp.gui.qt_compat import emit

if TYPE_CHECKING:
    from kbapp.library.pdf import pymupdf

ZOOM_STEP = 1.25
MIN_SCALE, MAX_SCALE = 0.25, 6.0
_MARGIN = 12
# Marks on paper, which stays white in a dark theme: translucent amber over the words.
MARK_FILL = QColor(255, 190, 0, 105)
MARK_EDGE = QColor(230, 140, 0, 200)


@dataclass(frozen=True, slots=True)
class PageMarks:
    """What to mark on one page: the matched words, and the passage text to restrict them to."""

    terms: tuple[str, ...]
    passage: str | None = None
    # On a scanned page (no text layer to search): the matched words' boxes from OCR, in PDF points.
    boxes: tuple[tuple[float, float, float, float], ...] = ()


class PdfView(QScrollArea):
    """Shows one page of one PDF; ``pageChanged(number, count)`` after every render."""

    pageChanged = Signal(int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._label = QLabel()
        self._label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWidget(self._label)
        self.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.setBackgroundRole(QPalette.ColorRole.Dark)
        self._doc: pymupdf.Document | None = None
        self._path: str | None = None
        self._marks: dict[int, PageMarks] = {}
        self.page_number = 0
        self._scale: float | None = None  # logical pixels per PDF point; None = fit the width
        self.highlight_rects: list[pymupdf.Rect] = []
        self._refit = QTimer(self)
        self._refit.setSingleShot(True)
        self._refit.setInterval(80)
        self._refit.timeout.connect(self.render)

    @property
    def page_count(self) -> int:
        return self._doc.page_count if self._doc is not None else 0

    def open(self, path: str) -> bool:
        """Open ``path`` (kept open while its pages are browsed); False if it cannot be read."""
        if self._path == path and self._doc is not None:
            return True
        self.close_document()
        from kbapp.library.pdf import pymupdf  # PyMuPDF loads with the first PDF shown

        try:
            doc = pymupdf.open(path)
        except Exception:  # missing, moved, corrupt or not a PDF any more: the caller falls back
            return False
        if doc.needs_pass or doc.page_count == 0:
            doc.close()
            return False
        self._doc, self._path = doc, path
        return True

    def close_document(self) -> None:
        if self._doc is not None:
            self._doc.close()
        self._doc, self._path = None, None
        self._label.clear()
        self.highlight_rects = []

    def show_page(self, number: int, marks: dict[int, PageMarks] | None = None) -> None:
        """Render 1-based page ``number``; ``marks`` (by page number) replace the current ones."""
        if marks is not None:
            self._marks = marks
        self.page_number = max(1, min(number, self.page_count))
        self.render()
        self._scroll_to_marks()

    def go(self, delta: int) -> None:
        if self._doc is not None and 1 <= self.page_number + delta <= self.page_count:
            self.show_page(self.page_number + delta)

    def zoom(self, factor: float) -> None:
        self._scale = max(MIN_SCALE, min(MAX_SCALE, self._current_scale() * factor))
        self.render()

    def fit_width(self) -> None:
        self._scale = None
        self.render()

    def zoom_percent(self) -> int:
        """The zoom as a user reads it: 100 % is the page's printed size on a 96-dpi screen."""
        return round(self._current_scale() * 72 / self.logicalDpiX() * 100) if self._doc else 100

    def _current_scale(self) -> float:
        if self._scale is not None:
            return self._scale
        if self._doc is None:
            return 1.0
        width = self._doc[self.page_number - 1].rect.width or 1.0
        return max(MIN_SCALE, (self.viewport().width() - 2 * _MARGIN) / width)

    def render(self) -> None:
        if self._doc is None or not self.page_number:
            return
        from kbapp.library.pdf import pymupdf

        page = self._doc[self.page_number - 1]
        marks = self._marks.get(self.page_number)
        if marks is not None and marks.boxes:
            self.highlight_rects = [pymupdf.Rect(*box) for box in marks.boxes]
        else:
            self.highlight_rects = term_rects(page, marks.terms, marks.passage) if marks else []
        ratio = self.devicePixelRatioF()
        scale = self._current_scale() * ratio
        pix = page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), alpha=False)
        image = QImage(pix.samples, pix.width, pix.height, pix.stride, QImage.Format.Format_RGB888).copy()
        painter = QPainter(image)
        painter.setPen(MARK_EDGE)
        painter.setBrush(MARK_FILL)
        to_view = page.rotation_matrix * pymupdf.Matrix(scale, scale)
        for rect in self.highlight_rects:
            r = rect * to_view
            painter.drawRect(QRectF(r.x0, r.y0, r.width, r.height).adjusted(-1, -1, 1, 1))
        painter.end()
        image.setDevicePixelRatio(ratio)
        self._label.setPixmap(QPixmap.fromImage(image))
        self._label.resize(self._label.sizeHint())
        emit(self.pageChanged, self.page_number, self.page_count)

    def _scroll_to_marks(self) -> None:
        if not self.highlight_rects or self._doc is None:
            self.verticalScrollBar().setValue(0)
            return
        page = self._doc[self.page_number - 1]
        first = min(self.highlight_rects, key=lambda r: r.y0) * page.rotation_matrix
        scale = self._current_scale()
        self.ensureVisible(
            int(first.x0 * scale), int(first.y0 * scale), 40, int(self.viewport().height() / 3)
        )

    def rendered_image(self) -> QImage | None:
        """The page as shown, marks included (for tests and screenshots)."""
        pixmap = self._label.pixmap()
        return None if pixmap is None or pixmap.isNull() else pixmap.toImage()

    def page_scale(self) -> float:
        """Device pixels per PDF point of the image currently shown."""
        return self._current_scale() * self.devicePixelRatioF()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Page Down at the bottom of a page turns to the next one, Page Up at the top to the
        previous one, as in a PDF reader."""
        bar = self.verticalScrollBar()
        if (
            event.key() == Qt.Key.Key_PageDown
            and bar.value() >= bar.maximum()
            and self.page_number < self.page_count
        ):
            self.go(1)
            bar.setValue(0)
            return
        if event.key() == Qt.Key.Key_PageUp and bar.value() <= bar.minimum() and self.page_number > 1:
            self.go(-1)
            bar.setValue(bar.maximum())
            return
        super().keyPressEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._scale is None and self._doc is not None:
            self._refit.start()
