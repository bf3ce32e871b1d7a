"""Is a PDF page's text layer worth indexing, or does the page need OCR?

Scanned pages have no text (or a stray page number) over a page-sized image. Fonts without a
Unicode map come out as glyph ids read as code points: control characters, private-use
characters, U+FFFD, or letters scattered over unrelated scripts (Arabic next to Ethiopic next to
Han). Indexing either would only produce garbage hits, so such pages are reported instead.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from enum import Enum

from kbapp.ingest.pdf_engine import pymupdf
from kbapp.ingest.pdf_layout import Fragment
from kbapp.ingest.textnorm import CJK_CLASS

_MAX_GARBAGE = 0.1
_MIN_ALNUM = 0.4
_MIN_TEXT_CHARS = 20
_IMAGE_COVER = 0.3
# Whitespace, leaders and rules: evidence neither of text nor of garbage.
_FILLERS = str.maketrans("", "", " \t\n.·…_-–—=*•|")
# Controls, private use (BMP and planes 15-16), U+FFFD.
_GARBAGE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ue000-\uf8ff\ufffd\U000f0000-\U0010ffff]")
_SAMPLE_CHARS = 4000
_LATIN_LETTER = re.compile(r"[A-Za-z\u00c0-\u024f]")
_CJK = re.compile(f"[{CJK_CLASS}]")
_OTHER = re.compile(f"[^\\x00-\\u024f{CJK_CLASS}]")
_MIN_MAIN_SCRIPTS = 0.8


class PageStatus(Enum):
    OK = "ok"
    BLANK = "blank"
    NEEDS_OCR = "needs OCR"
    GARBLED = "garbled"


def text_status(fragments: list[Fragment], page: pymupdf.Page) -> PageStatus:
    """Classify a page from its text fragments; the image check only runs on near-empty pages."""
    sample = "".join(fragment.text for fragment in fragments).translate(_FILLERS)[:_SAMPLE_CHARS]
    if sample:
        if len(_GARBAGE.findall(sample)) > _MAX_GARBAGE * len(sample) or _scattered_scripts(sample):
            return PageStatus.GARBLED
        alnum = sum(map(str.isalnum, sample))
        if len(sample) >= _MIN_TEXT_CHARS and alnum < _MIN_ALNUM * len(sample):
            return PageStatus.GARBLED
        if alnum >= _MIN_TEXT_CHARS:
            return PageStatus.OK
    if _image_cover(page) >= _IMAGE_COVER:
        return PageStatus.NEEDS_OCR
    return PageStatus.OK if sample else PageStatus.BLANK


def _scattered_scripts(sample: str) -> bool:
    """Real text is written in one or two scripts (Chinese + Latin); glyph-id soup is not."""
    scripts: Counter[str] = Counter(
        {"LATIN": len(_LATIN_LETTER.findall(sample)), "CJK": len(_CJK.findall(sample))}
    )
    scripts.update(
        unicodedata.name(char, "?").split(" ", 1)[0] for char in _OTHER.findall(sample) if char.isalpha()
    )
    total = scripts.total()
    if total < _MIN_TEXT_CHARS:
        return False
    return sum(count for _, count in scripts.most_common(2)) < _MIN_MAIN_SCRIPTS * total


def _image_cover(page: pymupdf.Page) -> float:
    """Share of the page covered by images (overlaps counted twice; only a rough test)."""
    area = abs(page.rect)
    if not area:
        return 0.0
    covered = 0.0
    for info in page.get_image_info():
        covered += abs(pymupdf.Rect(info["bbox"]) & page.rect)
    return covered / area
