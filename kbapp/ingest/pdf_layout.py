"""PDF text geometry: MuPDF's line fragments with their style, and visual lines rebuilt from them.

MuPDF splits one printed line into several "lines" wherever there is a wide gap (justified TeX
output, table cells, tab stops), so the fragments are kept as positioned pieces first; reading
order is decided on them (``pdf_order``) and only then are they glued into visual lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from kbapp.ingest.textnorm import is_cjk

_BOLD_FLAG = 16
_MONO_FLAG = 8
_BOLD_FONT = re.compile(r"bold|black|heavy|demi|-medi|\bmedium", re.I)
LEADER_RE = re.compile(r"\s*(?:[.·…]\s*){4,}")
MONO_ADVANCE = 0.6  # advance width of a Courier-style glyph, in font sizes
LEADER_MARK = " … "  # what dot leaders ("Title . . . . . 12") are shortened to
_MONO_FONT = re.compile(r"mono|nimbusmon|courier|consol|typewriter|cmtt|lmtt|menlo|inconsolata", re.I)


@dataclass(slots=True)
class Fragment:
    """One MuPDF text line: a run of text with one position and a dominant style."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    size: float
    bold: bool
    mono: bool
    block: int

    @property
    def height(self) -> float:
        return self.y1 - self.y0


@dataclass(slots=True)
class Line:
    """A printed line: fragments on one baseline, left to right, with their combined geometry."""

    fragments: list[Fragment]
    text: str
    x0: float = 0.0
    y0: float = 0.0
    x1: float = 0.0
    y1: float = 0.0
    size: float = 0.0  # the size carrying most characters
    bold: bool = False
    mono: bool = False

    @property
    def block(self) -> int:
        return self.fragments[0].block

    def seal(self) -> None:
        """Compute the combined geometry and style once the line is complete."""
        fragments = self.fragments
        self.x0 = min(fragment.x0 for fragment in fragments)
        self.y0 = min(fragment.y0 for fragment in fragments)
        self.x1 = max(fragment.x1 for fragment in fragments)
        self.y1 = max(fragment.y1 for fragment in fragments)
        weights: dict[float, int] = {}
        for fragment in fragments:
            weights[fragment.size] = weights.get(fragment.size, 0) + len(fragment.text)
        self.size = max(weights, key=weights.__getitem__)
        self.bold = all(fragment.bold for fragment in fragments)
        self.mono = all(fragment.mono for fragment in fragments)


def extract_fragments(page_dict: dict[str, Any]) -> list[Fragment]:
    """Fragments of a ``TextPage.extractDICT()`` result, skipping image/vector blocks and blank lines."""
    fragments = []
    for number, block in enumerate(page_dict.get("blocks", ())):
        if block.get("type") != 0:
            continue
        for line in block.get("lines", ()):
            fragment = _fragment(line, number)
            if fragment is not None:
                fragments.append(fragment)
    return fragments


def _fragment(line: dict[str, Any], block: int) -> Fragment | None:
    """One fragment per MuPDF line; its style is that of the span with most characters."""
    texts = []
    size = 0.0
    heaviest = 0
    bold = mono = True
    for span in line.get("spans", ()):
        text = span.get("text", "")
        texts.append(text)
        weight = len(text.strip())
        if not weight:
            continue
        if weight > heaviest:
            heaviest, size = weight, span["size"]
        flags = span.get("flags", 0)
        font_bold, font_mono = _font_traits(span.get("font", ""))
        bold = bold and (bool(flags & _BOLD_FLAG) or font_bold)
        mono = mono and (bool(flags & _MONO_FLAG) or font_mono)
    if not heaviest:
        return None
    x0, y0, x1, y1 = line["bbox"]
    text = "".join(texts).strip()
    return Fragment(x0, y0, x1, y1, text, round(size * 2) / 2, bold, mono, block)


@lru_cache(maxsize=512)
def _font_traits(font: str) -> tuple[bool, bool]:
    """(bold, monospaced) from the font name, for fonts whose descriptor flags say neither."""
    return bool(_BOLD_FONT.search(font)), bool(_MONO_FONT.search(font))


def build_lines(fragments: Iterable[Fragment]) -> list[Line]:
    """Glue consecutive fragments (already in reading order) that share a baseline.

    Dot leaders are shortened: they carry no words and would fill chunks with punctuation.
    """
    lines: list[Line] = []
    for fragment in fragments:
        if lines and _same_line(lines[-1], fragment):
            line = lines[-1]
            last = line.fragments[-1]
            if last.mono and fragment.mono:  # keep the column alignment of code
                gap = round((fragment.x0 - last.x1) / (MONO_ADVANCE * fragment.size))
                line.text = f"{line.text}{' ' * max(gap, 1)}{fragment.text}"
            else:
                line.text = join_on_line(line.text, fragment.text)
            line.fragments.append(fragment)
        else:
            lines.append(Line([fragment], fragment.text))
    for line in lines:
        line.seal()
        if sum(map(line.text.count, ".·…")) >= 4:
            line.text = LEADER_RE.sub(LEADER_MARK, line.text).strip()
    return lines


def join_on_line(left: str, right: str) -> str:
    """Fragments of one line were separated by a visible gap: a space, except between CJK."""
    if is_cjk(left[-1]) or is_cjk(right[0]):
        return left + right
    return f"{left} {right}"


def _same_line(line: Line, fragment: Fragment) -> bool:
    last = line.fragments[-1]
    overlap = min(last.y1, fragment.y1) - max(last.y0, fragment.y0)
    return fragment.x0 >= last.x1 - 1 and overlap >= 0.5 * min(last.height, fragment.height)
