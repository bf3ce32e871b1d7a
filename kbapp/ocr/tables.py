"""Which OCR'd lines form a table, read as rows of cells under a header row.

The detector boxes each cell of a scanned table as a line of its own and orders them row by row,
so without this a table reads as one cell per line ("Interrupt #", "Description", "0",
"External 0", "0x0003" …) and loses what a text-layer table keeps: which value sits in which
row, and the header that says what the columns are. A question about the table then matches
neither its rows nor its header, and the page drops out of reach (a vector table on a scanned
manual's p. 50 did, for a question its text layer answers first).

A table starts at a header row of at least two labels (each mostly letters, as a title is, not a
sentence, a line of code or an index entry "term, 37", and narrower than ``HEADER_CELL_WIDTH`` of
the page's text width, as no line of two-column running text is) and continues while rows keep
to its columns:

* each line of a row lies under exactly one header cell; one that spans two, or none, ends it;
* a row without a cell in the first column continues the row above (a cell wrapped onto a
  second line);
* a gap of more than a paragraph's between rows, a heading, or a contents entry ends it.

At least ``MIN_ROWS`` rows of two or more cells, header included, make a table: fewer is a
label beside its value.

Nothing here was fitted. Checked on the OCR lines stored for the scanned development manual
sdccman.pdf (134 pages): tables are found on 23 of the 26 pages whose text layer holds one, and
on 8 more: a key-binding table and a linker script the text-layer reader does not take for tables,
and 5 pages of assembler listing, whose mnemonics and operands line up as two columns ("mov |
a,_tail"; every word is kept, only the block's kind differs from a text layer's CODE).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from kbapp.ocr.engine import Line
from kbapp.ocr.geometry import Box
from kbapp.ocr.headings import SENTENCE_END, mostly_letters, same_row

# Under half the text width: a line of two-column text spans nearly half, a table's label less.
HEADER_CELL_WIDTH = 0.4
MIN_ROWS = 3  # a header and two rows: a pair of lines side by side is a label and its value
_INDEX_ENTRY = re.compile(r",\s*\d[\d\s,–-]*$")  # "--model-large, 37, 38": a back-of-book index's column


@dataclass(frozen=True)
class Table:
    """Line indices by row, then by column (a cell holds the lines wrapped into it); row 0 is the header."""

    rows: list[list[list[int]]]

    @property
    def lines(self) -> range:
        """The table's lines are consecutive in reading order."""
        indices = [index for row in self.rows for cell in row for index in cell]
        return range(min(indices), max(indices) + 1)


def find_tables(lines: Sequence[Line], excluded: Collection[int], paragraph_gap: float) -> dict[int, Table]:
    """First line index of each table -> the table. ``excluded`` lines (headings, contents entries)
    are never part of one; rows further apart than ``paragraph_gap`` line heights are not one table."""
    rows = _rows(lines)
    width = _text_width(lines)
    tables: dict[int, Table] = {}
    start = 0
    while start < len(rows):
        table, used = _table_at(lines, rows, start, excluded, width, paragraph_gap)
        if table is None:
            start += 1
            continue
        tables[rows[start][0]] = table
        start += used
    return tables


def _rows(lines: Sequence[Line]) -> list[list[int]]:
    """Consecutive non-blank lines on one row, left to right (the detector's order)."""
    rows: list[list[int]] = []
    for index, line in enumerate(lines):
        if not line.text.strip():
            continue
        if rows and same_row(lines[rows[-1][-1]], line):
            rows[-1].append(index)
        else:
            rows.append([index])
    return rows


def _text_width(lines: Sequence[Line]) -> float:
    boxes = [line.box for line in lines if line.text.strip()]
    return max(box.x1 for box in boxes) - min(box.x0 for box in boxes) if boxes else 0.0


def _table_at(
    lines: Sequence[Line],
    rows: list[list[int]],
    start: int,
    excluded: Collection[int],
    width: float,
    paragraph_gap: float,
) -> tuple[Table | None, int]:
    """The table whose header is ``rows[start]``, and how many rows it takes, if one starts there."""
    header = rows[start]
    if len(header) < 2 or any(
        index in excluded
        or not _is_label(lines[index].text.strip())
        or lines[index].box.width > HEADER_CELL_WIDTH * width
        for index in header
    ):
        return None, 0
    columns = [lines[index].box for index in header]
    table: list[list[list[int]]] = [[[index] for index in header]]
    taken = 1
    for row in rows[start + 1 :]:
        cells = _cells(lines, row, columns)
        above = rows[start + taken - 1]
        if (
            cells is None
            or any(index in excluded for index in row)
            or _gap(lines, above, row) > paragraph_gap
        ):
            break
        if cells[0]:
            table.append(cells)
        else:
            for column, cell in enumerate(cells):
                table[-1][column].extend(cell)
        taken += 1
    if sum(1 for row in table if sum(1 for cell in row if cell) >= 2) < MIN_ROWS:
        return None, 0
    return Table(table), taken


def _is_label(text: str) -> bool:
    """What a column's header says: mostly letters, and not a sentence, a line of code ("{", ";")
    or an index entry with its pages."""
    return mostly_letters(text) and not text.endswith((*SENTENCE_END, "{")) and not _INDEX_ENTRY.search(text)


def _cells(lines: Sequence[Line], row: list[int], columns: list[Box]) -> list[list[int]] | None:
    """The row's lines by the column each lies under, or None when one lies under two or none."""
    cells: list[list[int]] = [[] for _ in columns]
    for index in row:
        under = [column for column, box in enumerate(columns) if box.shares_columns_with(lines[index].box)]
        if len(under) != 1:
            return None
        cells[under[0]].append(index)
    return cells


def _gap(lines: Sequence[Line], above: list[int], below: list[int]) -> float:
    """The space between two rows in line heights of the row above."""
    top = min(lines[index].box.y0 for index in below)
    bottom = max(lines[index].box.y1 for index in above)
    height = max(lines[index].box.height for index in above)
    return (top - bottom) / height if height > 0 else 0.0
