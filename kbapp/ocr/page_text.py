"""An OCR'd page as library text: paragraphs of lines, and the line boxes kept for highlighting.

Lines closer than about a line height are one paragraph (one TEXT block, lines joined by
newlines), so the chunker cuts where the scan shows a gap; heading lines (``kbapp.ocr.headings``)
are HEADING blocks of their own, so passages carry their section as text-layer pages do, and a
table's cells (``kbapp.ocr.tables``) are one TABLE block, a row per line with its cells joined as
the text-layer reader joins them and its header row marked for the chunker to repeat. Each
line's box and character edges are stored against its offset in the page text, in the page's own
units (PDF points, or pixels for image files), which is what the preview needs to box a matched
word on the scan (``kbapp.gui.preview.scan_marks`` reads them).

A table-of-contents entry's page number is boxed apart from its title, and OCR keeps few of the
dot leaders between them; the two are joined on one line with the leader mark the text-layer
reader puts there ("The PIC16 port … 80"), so the entry is recognised as a pointer
(``kbapp.search.pointers``) as it is on a text-layer page, instead of ranking as content. Only
titles (mostly letters) in a run of rows whose numbers never go down their column are joined: a
table of values beside their labels ("Rated voltage 24", "Current 2") or a listing numbered down
its right edge is content, and must not read as a contents page.
"""

from __future__ import annotations

import itertools
import json
import re

from kbapp.ingest.builder import BLOCK_SEPARATOR, CELL_SEPARATOR
from kbapp.ingest.document import Block, BlockKind, Page
from kbapp.ingest.pdf_layout import LEADER_MARK
from kbapp.ocr.engine import Line, OcrPage
from kbapp.ocr.headings import heading_levels, mostly_letters, page_number_of
from kbapp.ocr.tables import Table, find_tables
from kbapp.text.numbering import chapter_label

_PARAGRAPH_GAP = 0.8  # a vertical gap larger than this many line heights starts a paragraph
_TRAILING_LEADERS = re.compile(r"[\s.·…]+$")
# Rows in a run of rising page numbers that make a contents listing: as many entries as
# ``kbapp.search.pointers`` wants of a pointer passage, since fewer could not make one.
_MIN_ENTRIES = 5


def page_from_lines(number: int, page: OcrPage, scale: float = 1.0) -> tuple[Page, str]:
    """The page (text and blocks) and its line boxes as JSON, boxes multiplied by ``scale``."""
    lines = page.lines
    levels = heading_levels(page)
    entries = _contents_entries(lines)
    page_numbers = set(entries.values())
    tables = find_tables(lines, {*levels, *entries, *page_numbers}, _PARAGRAPH_GAP)
    writer = _Writer(page, scale)
    previous: int | None = None  # the last line written, while its block is open
    index = 0
    while index < len(lines):
        table = tables.get(index)
        if table is not None:
            writer.close()
            writer.table(table)
            previous = None
            index = table.lines.stop
            continue
        line = lines[index]
        content = line.text.strip()
        if content:
            if index in entries:
                content = _TRAILING_LEADERS.sub("", content) or content
            if previous is not None and index in page_numbers:
                writer.text += LEADER_MARK
            elif previous is not None and not _starts_block(
                lines[previous], line, levels.get(previous), levels.get(index)
            ):
                writer.text += "\n"
            else:
                writer.close()
                writer.open(levels.get(index))
            writer.line(line, content)
            previous = index
        index += 1
    writer.close()
    return Page(number, writer.text, writer.blocks), json.dumps(writer.stored, separators=(",", ":"))


class _Writer:
    """The page text as it is written, the blocks closed so far, and each written line's box."""

    def __init__(self, page: OcrPage, scale: float) -> None:
        self.text = ""
        self.blocks: list[Block] = []
        self.stored: list[list[object]] = []
        self._page = page
        self._scale = scale
        self._open: tuple[int, int | None] | None = None  # start and heading level of the open block

    def open(self, level: int | None) -> None:
        """Start a heading (``level``) or text block, a blank line after the last."""
        self._separate()
        self._open = (len(self.text), level)

    def close(self) -> None:
        if self._open is not None:
            start, level = self._open
            kind = BlockKind.TEXT if level is None else BlockKind.HEADING
            self.blocks.append(Block(kind, start, len(self.text), level or 0))
            self._open = None

    def table(self, table: Table) -> None:
        """One line per row, cells joined as the text-layer reader joins them, the header row
        marked for the chunker to repeat."""
        self._separate()
        start = len(self.text)
        header_end = None
        for number, row in enumerate(table.rows):
            if number:
                self.text += "\n"
            for column, cell in enumerate(row):
                if column:
                    self.text += CELL_SEPARATOR
                for position, index in enumerate(cell):
                    if position:
                        self.text += " "
                    self.line(self._page.lines[index], self._page.lines[index].text.strip())
            self.text = self.text.rstrip(" ")
            header_end = header_end or len(self.text)
        self.blocks.append(Block(BlockKind.TABLE, start, len(self.text), header_end=header_end))

    def line(self, line: Line, content: str) -> None:
        lead = len(line.text) - len(line.text.lstrip())
        edges = line.edges[lead : lead + len(content) + 1] if self._page.rotation == 0 else ()
        box = line.box.scaled(self._scale)
        self.stored.append(
            [len(self.text), len(content), *(round(v, 1) for v in (box.x0, box.y0, box.x1, box.y1))]
        )
        self.stored[-1].append([round(edge * self._scale, 1) for edge in edges])
        self.text += content

    def _separate(self) -> None:
        if self.text:
            self.text += BLOCK_SEPARATOR


def _contents_entries(lines: list[Line]) -> dict[int, int]:
    """Index of each contents entry's title line → index of its page number's line. Page numbers
    are followed down their own column, since a two-column contents page is read across."""
    kept = [index for index, line in enumerate(lines) if line.text.strip()]
    columns: list[list[tuple[int, int]]] = []
    for title, number in itertools.pairwise(kept):
        if not (
            page_number_of(lines[title], lines[number])
            and mostly_letters(_TRAILING_LEADERS.sub("", lines[title].text))
        ):
            continue
        box = lines[number].box
        column = next((c for c in columns if lines[c[-1][1]].box.shares_columns_with(box)), None)
        if column is None:
            columns.append([(title, number)])
        else:
            column.append((title, number))
    entries: dict[int, int] = {}
    for column in columns:
        runs: list[list[tuple[int, int]]] = [[]]
        for title, number in column:
            if runs[-1] and int(lines[number].text) < int(lines[runs[-1][-1][1]].text):
                runs.append([])
            runs[-1].append((title, number))
        entries.update(pair for run in runs if len(run) >= _MIN_ENTRIES for pair in run)
    return entries


def _starts_block(previous: Line, line: Line, previous_level: int | None, level: int | None) -> bool:
    """A gap of more than a line height, or a change between heading and text (a heading that
    wraps stays one block, and so does a chapter's number above its title)."""
    if previous_level != level:
        return True
    if level is not None and chapter_label(previous.text):
        return False
    return line.box.y0 - previous.box.y1 > _PARAGRAPH_GAP * previous.box.height
