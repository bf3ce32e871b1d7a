"""Ruled tables on PDF pages, found from the page's vector lines.

PyMuPDF's ``find_tables()`` costs 0.1-0.6 s per page (it rebuilds a character list in Python and,
with pymupdf_layout installed, runs a neural layout model), which alone would blow the import
budget for a 134-page manual, and its cell text loses inter-word spaces in TeX output. This module
does the cheap part that matters for manuals: horizontal and vertical rules, which MuPDF reports
as vector blocks of the same TextPage (``TEXT_COLLECT_VECTORS``, so the page is interpreted only
once), are grouped into connected grids, and MuPDF's words are dropped into the grid's cells.
Pages without at least a 2x2 grid of rules never extract words.

Tables drawn without rules (whitespace-aligned) are not detected; their text stays in the page
flow in row order.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kbapp.ingest.pdf_layout import join_on_line
from kbapp.ingest.pdf_order import group_rows
from kbapp.ingest.textnorm import join_wrapped

_THIN = 3.0  # rectangles thinner than this are rules (a stroked line is as thick as its stroke)
_MIN_RULE = 5.0
_SNAP = 3.0
_TOUCH = 3.0
_MAX_RULES = 1000  # after merging; beyond this the page is a drawing, not a table
_MIN_FILLED = 0.3


@dataclass(slots=True)
class Rule:
    """An axis-aligned segment: ``pos`` is y for horizontal rules and x for vertical ones."""

    pos: float
    start: float
    end: float


@dataclass(slots=True)
class Word:
    x0: float
    y0: float
    x1: float
    y1: float
    text: str


@dataclass(slots=True)
class Table:
    x0: float
    y0: float
    x1: float
    y1: float
    rows: list[list[str]]

    def contains(self, x: float, y: float) -> bool:
        return self.x0 - 1 <= x <= self.x1 + 1 and self.y0 - 1 <= y <= self.y1 + 1


@dataclass(slots=True)
class _Grid:
    xs: list[float]
    ys: list[float]


def rules_of(vectors: Sequence[dict[str, Any]]) -> tuple[list[Rule], list[Rule]]:
    """Horizontal and vertical rules from MuPDF vector blocks (``type`` 3 in ``extractDICT()``).

    MuPDF reports every sub-path as its own block; straight lines arrive as rectangles as thin as
    the stroke, rectangles as rectangles. Curves, diagonals and polylines (``isrect`` false) are
    not table rules and are skipped.
    """
    horizontal: list[Rule] = []
    vertical: list[Rule] = []
    for vector in vectors:
        if vector.get("type") == 3 and vector.get("isrect"):
            _add_rect(vector["bbox"], horizontal, vertical)
    return horizontal, vertical


def find_tables(
    vectors: Sequence[dict[str, Any]], load_words: Callable[[], Sequence[Sequence[Any]]]
) -> list[Table]:
    """Tables on a page from its vector blocks; ``load_words`` returns ``TextPage.extractWORDS()``.

    Words are only extracted when the rules form a grid, which most pages never do.
    """
    horizontal, vertical = (_merge_collinear(rules) for rules in rules_of(vectors))
    if len(horizontal) < 3 or len(vertical) < 3 or len(horizontal) + len(vertical) > _MAX_RULES:
        return []
    grids = _grids(horizontal, vertical)
    if not grids:
        return []
    page_words = [Word(w[0], w[1], w[2], w[3], w[4]) for w in load_words() if str(w[4]).strip()]
    tables = []
    for grid in grids:
        table = _fill(grid, page_words)
        if table is not None:
            tables.append(table)
    return tables


def _add_rect(rect: Sequence[float], horizontal: list[Rule], vertical: list[Rule]) -> None:
    x0, y0, x1, y1 = rect
    width, height = x1 - x0, y1 - y0
    if height <= _THIN and width >= _MIN_RULE:
        horizontal.append(Rule((y0 + y1) / 2, x0, x1))
    elif width <= _THIN and height >= _MIN_RULE:
        vertical.append(Rule((x0 + x1) / 2, y0, y1))
    elif width >= _MIN_RULE and height >= _MIN_RULE:
        horizontal.extend((Rule(y0, x0, x1), Rule(y1, x0, x1)))
        vertical.extend((Rule(x0, y0, y1), Rule(x1, y0, y1)))


def _merge_collinear(rules: list[Rule]) -> list[Rule]:
    """Fuse rules on the same line that touch: cell-by-cell rectangles share their borders."""
    merged: list[Rule] = []
    for rule in sorted(rules, key=lambda rule: (round(rule.pos / _SNAP), rule.start)):
        last = merged[-1] if merged else None
        if last and abs(rule.pos - last.pos) <= _SNAP and rule.start <= last.end + _TOUCH:
            last.end = max(last.end, rule.end)
        else:
            merged.append(Rule(rule.pos, rule.start, rule.end))
    return merged


def _grids(horizontal: list[Rule], vertical: list[Rule]) -> list[_Grid]:
    """Connected groups of crossing rules with at least 3 distinct x and 3 distinct y positions."""
    parent = list(range(len(horizontal) + len(vertical)))

    def find(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    offset = len(horizontal)
    for h_index, h in enumerate(horizontal):
        for v_index, v in enumerate(vertical):
            if h.start - _TOUCH <= v.pos <= h.end + _TOUCH and v.start - _TOUCH <= h.pos <= v.end + _TOUCH:
                parent[find(h_index)] = find(offset + v_index)
    groups: dict[int, tuple[list[float], list[float]]] = {}
    for index, h in enumerate(horizontal):
        groups.setdefault(find(index), ([], []))[1].append(h.pos)
    for index, v in enumerate(vertical):
        groups.setdefault(find(offset + index), ([], []))[0].append(v.pos)
    grids = []
    for xs, ys in groups.values():
        grid = _Grid(_snap(xs), _snap(ys))
        if len(grid.xs) >= 3 and len(grid.ys) >= 3:
            grids.append(grid)
    return grids


def _snap(values: list[float]) -> list[float]:
    snapped: list[float] = []
    for value in sorted(values):
        if not snapped or value - snapped[-1] > _SNAP:
            snapped.append(value)
    return snapped


def _fill(grid: _Grid, words: list[Word]) -> Table | None:
    """Put words into the grid's cells; None if too few cells have text to be a real table."""
    n_cols, n_rows = len(grid.xs) - 1, len(grid.ys) - 1
    cells: list[list[list[Word]]] = [[[] for _ in range(n_cols)] for _ in range(n_rows)]
    for word in words:
        cx, cy = (word.x0 + word.x1) / 2, (word.y0 + word.y1) / 2
        if not (grid.xs[0] <= cx <= grid.xs[-1] and grid.ys[0] <= cy <= grid.ys[-1]):
            continue
        col = min(max(bisect_right(grid.xs, cx) - 1, 0), n_cols - 1)
        row = min(max(bisect_right(grid.ys, cy) - 1, 0), n_rows - 1)
        cells[row][col].append(word)
    filled = sum(1 for row in cells for cell in row if cell)
    if filled < 2 or filled < _MIN_FILLED * n_rows * n_cols:
        return None
    rows: list[list[str]] = []
    for row in cells:
        rows.extend(_split_row(row))
    return Table(grid.xs[0], grid.ys[0], grid.xs[-1], grid.ys[-1], rows)


def _split_row(cells: list[list[Word]]) -> list[list[str]]:
    """Text rows of one ruled row.

    Tables often rule only the header, so one ruled row can hold several records. If every text
    line in it has words in at least two columns, each text line is its own row; otherwise the
    lines are wrapped text inside cells and are joined.
    """
    column_of = {id(word): column for column, cell in enumerate(cells) for word in cell}
    lines = group_rows([word for cell in cells for word in cell])
    if len(lines) < 2 or any(len({column_of[id(word)] for word in line}) < 2 for line in lines):
        return [[_cell_text(cell) for cell in cells]]
    rows = []
    for line in lines:
        per_column: list[list[Word]] = [[] for _ in cells]
        for word in line:
            per_column[column_of[id(word)]].append(word)
        rows.append([_cell_text(cell) for cell in per_column])
    return rows


def _cell_text(words: list[Word]) -> str:
    text = ""
    for line in group_rows(words):
        line_text = ""
        for word in sorted(line, key=lambda word: word.x0):
            line_text = join_on_line(line_text, word.text) if line_text else word.text
        text = join_wrapped(text, line_text) if text else line_text
    return text
