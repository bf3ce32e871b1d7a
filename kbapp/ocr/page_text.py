"""An OCR'd page as library text: paragraphs of lines, and the line boxes kept for highlighting.

Lines closer than about a line height are one paragraph (one TEXT block, lines joined by
newlines), so the chunker cuts where the scan shows a gap; heading lines (``kbapp.ocr.headings``)
are HEADING blocks of their own, so passages carry their section as text-layer pages do. Each
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

from kbapp.ingest.builder import BLOCK_SEPARATOR
from kbapp.ingest.document import Block, BlockKind, Page
from kbapp.ingest.pdf_layout import LEADER_MARK
from kbapp.ocr.engine import Line, OcrPage
from kbapp.ocr.geometry import Box
from kbapp.ocr.headings import heading_levels, mostly_letters, page_number_of

_PARAGRAPH_GAP = 0.8  # a vertical gap larger than this many line heights starts a paragraph
_TRAILING_LEADERS = re.compile(r"[\s.·…]+$")
# Rows in a run of rising page numbers that make a contents listing: as many entries as
# ``kbapp.search.pointers`` wants of a pointer passage, since fewer could not make one.
_MIN_ENTRIES = 5


def page_from_lines(number: int, page: OcrPage, scale: float = 1.0) -> tuple[Page, str]:
    """The page (text and blocks) and its line boxes as JSON, boxes multiplied by ``scale``."""
    levels = heading_levels(page)
    entries = _contents_entries(page.lines)
    page_numbers = set(entries.values())
    text = ""
    blocks: list[Block] = []
    stored: list[list[object]] = []
    block_start = 0
    previous: int | None = None
    for index, line in enumerate(page.lines):
        content = line.text.strip()
        if not content:
            continue
        lead = len(line.text) - len(line.text.lstrip())
        if index in entries:
            content = _TRAILING_LEADERS.sub("", content) or content
        if previous is None:
            separator = ""
        elif index in page_numbers:
            separator = LEADER_MARK
        elif _starts_block(page.lines[previous], line, levels.get(previous), levels.get(index)):
            separator = BLOCK_SEPARATOR
            blocks.append(_block(levels.get(previous), block_start, len(text)))
        else:
            separator = "\n"
        text += separator
        if separator != "\n":
            block_start = len(text)
        edges = line.edges[lead : lead + len(content) + 1] if page.rotation == 0 else ()
        box = line.box.scaled(scale)
        stored.append([len(text), len(content), *(round(v, 1) for v in (box.x0, box.y0, box.x1, box.y1))])
        stored[-1].append([round(edge * scale, 1) for edge in edges])
        text += content
        previous = index
    if previous is not None:
        blocks.append(_block(levels.get(previous), block_start, len(text)))
    return Page(number, text, blocks), json.dumps(stored, separators=(",", ":"))


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
        column = next((c for c in columns if _overlap(lines[c[-1][1]].box, box) > 0), None)
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


def _overlap(a: Box, b: Box) -> float:
    return min(a.x1, b.x1) - max(a.x0, b.x0)


def _starts_block(previous: Line, line: Line, previous_level: int | None, level: int | None) -> bool:
    """A gap of more than a line height, or a change between heading and text (a heading that
    wraps stays one block)."""
    return previous_level != level or line.box.y0 - previous.box.y1 > _PARAGRAPH_GAP * previous.box.height


def _block(level: int | None, start: int, end: int) -> Block:
    if level is None:
        return Block(BlockKind.TEXT, start, end)
    return Block(BlockKind.HEADING, start, end, level)
