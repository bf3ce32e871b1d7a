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
_LEADER = re.compile(r"\s*(?:[.·…]\s*){4,}")
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
    """A printed line: fragments on one baseline, left to right."""

    fragments: list[Fragment]
    text: str

    @property
    def first(self) -> Fragment:
        return self.fragments[0]

    @property
    def x0(self) -> float:
        return min(fragment.x0 for fragment in self.fragments)

    @property
    def x1(self) -> float:
        return max(fragment.x1 for fragment in self.fragments)

    @property
    def y0(self) -> float:
        return min(fragment.y0 for fragment in self.fragments)

    @property
    def y1(self) -> float:
        return max(fragment.y1 for fragment in self.fragments)

    @property
    def size(self) -> float:
        weights: dict[float, int] = {}
        for fragment in self.fragments:
            weights[fragment.size] = weights.get(fragment.size, 0) + len(fragment.text)
        return max(weights, key=weights.__getitem__)

    @property
    def bold(self) -> bool:
        return all(fragment.bold for fragment in self.fragments)

    @property
    def mono(self) -> bool:
        return all(fragment.mono for fragment in self.fragments)

    @property
    def block(self) -> int:
        return self.first.block


def extract_fragments(page_dict: dict[str, Any]) -> list[Fragment]:
    """Fragments of a ``TextPage.extractDICT()`` result, skipping image blocks and blank lines."""
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
    spans = [span for span in line.get("spans", ()) if span.get("text")]
    text = "".join(span["text"] for span in spans).strip()
    if not text:
        return None
    weighted = [(span, len(span["text"].strip())) for span in spans if span["text"].strip()]
    size = max(weighted, key=lambda pair: pair[1])[0]["size"]
    x0, y0, x1, y1 = line["bbox"]
    return Fragment(
        x0=x0,
        y0=y0,
        x1=x1,
        y1=y1,
        text=text,
        size=round(size * 2) / 2,
        bold=all(_is_bold(span) for span, _ in weighted),
        mono=all(_is_mono(span) for span, _ in weighted),
        block=block,
    )


def _is_bold(span: dict[str, Any]) -> bool:
    return bool(span.get("flags", 0) & _BOLD_FLAG) or _font_traits(span.get("font", ""))[0]


def _is_mono(span: dict[str, Any]) -> bool:
    return bool(span.get("flags", 0) & _MONO_FLAG) or _font_traits(span.get("font", ""))[1]


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
            line.fragments.append(fragment)
            line.text = join_on_line(line.text, fragment.text)
        else:
            lines.append(Line([fragment], fragment.text))
    for line in lines:
        if sum(map(line.text.count, ".·…")) >= 4:
            line.text = _LEADER.sub(LEADER_MARK, line.text).strip()
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
