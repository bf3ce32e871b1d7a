"""Where matched characters are on a scanned page, from the line boxes the OCR stage stored with it.

A scan has no text layer for ``page.search_for``; the library keeps each OCR'd line's box and
character edges against its offset in the page text (``kbapp.ocr.page_text`` writes the JSON),
so a highlight's offsets map straight to rectangles on the page.
"""

from __future__ import annotations

import json


def word_boxes(lines_json: str, start: int, end: int) -> list[tuple[float, float, float, float]]:
    """Boxes (x0, y0, x1, y1) covering ``page.text[start:end]`` on the scan, one per line it touches.

    Lines of a page read turned (a scan on its side) have no character edges: the whole line is boxed.
    """
    boxes = []
    for offset, length, x0, y0, x1, y1, edges in json.loads(lines_json):
        lo, hi = max(start, offset), min(end, offset + length)
        if lo < hi:
            boxes.append((edges[lo - offset], y0, edges[hi - offset], y1) if edges else (x0, y0, x1, y1))
    return boxes
