"""Result rows are laid out as tall as their wrapped text, also after a scroll bar narrows the list."""

from __future__ import annotations

from PySide6.QtWidgets import QStyleOptionViewItem

from kbapp.gui.results_view import ResultsView
from tests.gui.test_formatting import result

LONG = (
    "The exposure time is how long the sensor collects light for one frame, from 20 µs to 1 s. "
    "Raise it when the image is too dark; lower it when moving parts look smeared. "
)


def test_rows_do_not_overlap_when_a_scroll_bar_appears(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = ResultsView()
    qtbot.addWidget(view)
    view.resize(420, 300)
    view.show()
    qtbot.waitExposed(view)
    results = [result(LONG * (1 + n % 2), [], rank=n + 1, citation=n + 1) for n in range(8)]
    view.set_results(results)
    qtbot.waitUntil(lambda: view.verticalScrollBar().isVisible())
    qtbot.wait(100)  # any layout Qt has scheduled runs
    option = QStyleOptionViewItem()
    view.initViewItemOption(option)
    tops = [view.visualRect(view.model().index(row, 0)).top() for row in range(len(results))]
    needed = [view.itemDelegate().sizeHint(option, view.model().index(row, 0)).height() for row in range(8)]
    assert all(tops[row + 1] - tops[row] >= needed[row] for row in range(len(results) - 1)), (tops, needed)
