"""An OCR'd page as library text: paragraphs of lines, and the line boxes kept for highlighting.

Lines closer than about a line height are one paragraph (one TEXT block, lines joined by
newlines), so the chunker cuts where the scan shows a gap; heading lines (``kbapp.ocr.headings``)
are HEADING blocks of their own, so passages carry their section as text-layer pages do. Each
line's box and character edges are stored against its offset in the page text, in the page's own
units (PDF points, or pixels for image files), which is what the preview needs to box a matched
word on the scan (``kbapp.gui.preview.scan_marks`` reads them).
"""

from __future__ import annotations

import json

from kbapp.ingest.builder import BLOCK_SEPARATOR
from kbapp.ingest.document import Block, BlockKind, Page
from kbapp.ocr.engine import Line, OcrPage
from kbapp.ocr.headings import heading_levels

_PARAGRAPH_GAP = 0.8  # a vertical gap larger than this many line heights starts a paragraph


def page_from_lines(number: int, page: OcrPage, scale: float = 1.0) -> tuple[Page, str]:
    """The page (text and blocks) and its line boxes as JSON, boxes multiplied by ``scale``."""
    levels = heading_levels(page)
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
        if previous is None:
            separator = ""
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


def _starts_block(previous: Line, line: Line, previous_level: int | None, level: int | None) -> bool:
    """A gap of more than a line height, or a change between heading and text (a heading that
    wraps stays one block)."""
    return previous_level != level or line.box.y0 - previous.box.y1 > _PARAGRAPH_GAP * previous.box.height


def _block(level: int | None, start: int, end: int) -> Block:
    if level is None:
        return Block(BlockKind.TEXT, start, end)
    return Block(BlockKind.HEADING, start, end, level)
