"""The text preview of a passage longer than the window: it opens where the passage matches."""

from __future__ import annotations

from PySide6.QtCore import QPoint

from kbapp.gui.passages import PassageSpan
from kbapp.gui.preview.text_view import TextView


def visible_range(view: TextView) -> tuple[int, int]:
    corner = view.viewport().rect().bottomRight()
    return view.cursorForPosition(QPoint(0, 0)).position(), view.cursorForPosition(corner).position()


def test_a_long_passage_opens_where_it_matches_and_a_short_one_at_its_start(qtbot) -> None:  # type: ignore[no-untyped-def]
    # Neighbouring chunks that all match are shown as one passage: on a man page, 2,600 characters
    # from "ACTIONS" down to the date formats the question asked about.
    lines = [f"line {i}: options and actions of the command" for i in range(200)]
    lines[160] = "line 160: the date and time formats"
    text = "\n".join(lines)
    view = TextView()
    qtbot.addWidget(view)
    view.resize(500, 200)
    view.show()
    start, at = text.index("line 20:"), text.index("date and time")
    view.show_text([(None, text)], PassageSpan([(0, start, len(text))], [(0, at, at + 4)], (0, at)))
    top, bottom = visible_range(view)
    assert top <= at < bottom and not top <= start < bottom

    near = text.index("line 24:")
    view.show_text([(None, text)], PassageSpan([(0, start, near)], [(0, near - 5, near)], (0, near - 5)))
    top, bottom = visible_range(view)
    assert top <= start and near <= bottom  # it fits: all of it, from its first line
