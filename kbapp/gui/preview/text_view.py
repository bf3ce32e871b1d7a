"""A document's extracted text, read-only, with the cited passage marked and scrolled to.

Plain text on purpose: nothing in a document is interpreted as markup, so links and scripts
in an imported HTML page are inert text here and are never followed.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QColor, QFont, QPalette, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QWidget

from kbapp.gui.passages import PassageSpan

_ASTRAL_RE = re.compile("[\U00010000-\U0010ffff]")
TERM_BACKGROUND = QColor(255, 190, 0, 110)


class Utf16Offsets:
    """Code-point offsets (Python, the library) → UTF-16 offsets (Qt text cursors).

    They differ after every character outside the BMP (emoji, CJK Extension B…), one per
    such character; without this the marks would drift right by one each time.
    """

    def __init__(self, text: str) -> None:
        self._astral = [m.start() for m in _ASTRAL_RE.finditer(text)]

    def __call__(self, offset: int) -> int:
        return offset + bisect.bisect_left(self._astral, offset)


def _joined(pages: Sequence[tuple[int | None, str]]) -> tuple[str, list[int]]:
    """All pages as one text, and where each page starts in it."""
    if len(pages) == 1:
        return pages[0][1], [0]
    parts: list[str] = []
    starts: list[int] = []
    length = 0
    for number, text in pages:
        if parts:
            label = QCoreApplication.translate("TextView", "page %1").replace("%1", str(number))
            sep = f"\n\n── {label} ──\n\n" if number is not None else "\n\n"
            parts.append(sep)
            length += len(sep)
        starts.append(length)
        parts.append(text)
        length += len(text)
    return "".join(parts), starts


class TextView(QPlainTextEdit):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setAcceptDrops(False)
        self.setCenterOnScroll(True)
        self.passage_range: tuple[int, int] | None = None  # UTF-16 positions of the mark
        self.term_ranges: list[tuple[int, int]] = []

    def show_text(self, pages: Sequence[tuple[int | None, str]], span: PassageSpan | None) -> None:
        """Show every page, mark ``span`` (passage + matched words) and scroll to its focus."""
        text, starts = _joined(pages) if pages else ("", [0])
        self.setPlainText(text)
        self.passage_range, self.term_ranges = None, []
        if span is None:
            self.setExtraSelections([])
            return
        to_qt = Utf16Offsets(text)
        pieces = [(to_qt(starts[p] + s), to_qt(starts[p] + e)) for p, s, e in span.pieces]
        self.passage_range = (pieces[0][0], pieces[-1][1])
        self.term_ranges = [(to_qt(starts[p] + s), to_qt(starts[p] + e)) for p, s, e in span.highlights]
        passage_format = QTextCharFormat()
        tint = QColor(self.palette().color(QPalette.ColorRole.Highlight))
        tint.setAlpha(55)
        passage_format.setBackground(tint)
        term_format = QTextCharFormat()
        term_format.setBackground(TERM_BACKGROUND)
        term_format.setFontWeight(QFont.Weight.Bold)
        selections = [self._selection(a, b, passage_format) for a, b in pieces]
        selections += [self._selection(a, b, term_format) for a, b in self.term_ranges]
        self.setExtraSelections(selections)
        # The whole passage when it fits, its start on top; else centred where it matches best.
        page, offset = span.focus
        for position in (self.passage_range[1], self.passage_range[0], to_qt(starts[page] + offset)):
            cursor = self.textCursor()
            cursor.setPosition(position)
            self.setTextCursor(cursor)
            self.ensureCursorVisible()

    def _selection(self, start: int, end: int, fmt: QTextCharFormat) -> QTextEdit.ExtraSelection:
        selection = QTextEdit.ExtraSelection()
        cursor = QTextCursor(self.document())
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        selection.cursor = cursor
        selection.format = fmt
        return selection

    def marked_text(self) -> str:
        """The text under the passage mark (for tests)."""
        if self.passage_range is None:
            return ""
        cursor = QTextCursor(self.document())
        cursor.setPosition(self.passage_range[0])
        cursor.setPosition(self.passage_range[1], QTextCursor.MoveMode.KeepAnchor)
        return cursor.selectedText().replace("\u2029", "\n")
