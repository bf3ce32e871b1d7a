"""An OCR'd page as library text: paragraphs of lines, and the line boxes kept for highlighting.

Lines closer than about a line height are one paragraph (one TEXT block, lines joined by
newlines), so the chunker cuts where the scan shows a gap. Each line's box and character edges
are stored against its offset in the page text, in the page's own units (PDF points, or pixels
for image files), which is what the preview needs to box a matched word on the scan
(``kbapp.gui.preview.scan_marks`` reads them).
"""

from __future__ import annotations

import json

from kbapp.ingest.builder import BLOCK_SEPARATOR
from kbapp.ingest.document import Block, BlockKind, Page
from kbapp.ocr.engine import Line, OcrPage

_PARAGRAPH_GAP = 0.8  # a vertical gap larger than this many line heights starts a paragraph


def page_from_lines(number: int, page: OcrPage, scale: float = 1.0) -> tuple[Page, str]:
    """The page (text and blocks) and its line boxes as JSON, boxes multiplied by ``scale``."""
    text = ""
    blocks: list[Block] = []
    stored: list[list[object]] = []
    block_start = 0
    previous: Line | None = None
    for line in page.lines:
        content = line.text.strip()
        if not content:
            continue
        lead = len(line.text) - len(line.text.lstrip())
        if previous is None:
            separator = ""
        elif line.box.y0 - previous.box.y1 > _PARAGRAPH_GAP * previous.box.height:
            separator = BLOCK_SEPARATOR
            blocks.append(Block(BlockKind.TEXT, block_start, len(text)))
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
        previous = line
    if text:
        blocks.append(Block(BlockKind.TEXT, block_start, len(text)))
    return Page(number, text, blocks), json.dumps(stored, separators=(",", ":"))
