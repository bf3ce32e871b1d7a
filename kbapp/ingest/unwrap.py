"""Undoing the hard wrapping of plain text and Markdown paragraphs.

Text saved from a PDF, an e-mail or an editor that wraps at 72 or 80 columns breaks each paragraph
into lines. Kept as line breaks, they split a Chinese word across two lines (接 / 地), and the
keyword index, which reads a run of Chinese characters as overlapping pairs, never sees 接地: a
search for it finds nothing. They also make the preview and the results ragged. So a break that
only wrapped the text is joined as the PDF reader joins wrapped lines (``join_wrapped``: a space
between words, nothing between Chinese characters), and any other break stays.

A break wrapped the text when the next line's first word (a Chinese line's first character) would
not have fitted on the line within the document's wrap width, taken as its widest line in a
paragraph of several lines when others come near it: the usual rule of tools that reflow text.
Text wrapped at a page's width (a PDF saved as text) fills its lines unevenly in columns, its
Latin letters being narrower, so a nearly full line (``FULL_LINE``) that ends in the middle of a
Chinese sentence was wrapped too. A line that starts a list item stays on its own, and a document
whose widest such line is under ``MIN_WRAP_COLUMNS`` is not one that was wrapped (a list of short
lines, an address, a poem). Not fitted: rules of layout, the two numbers round.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from heapq import nlargest
from itertools import pairwise

from kbapp.ingest.textnorm import CJK_CLASS, LIST_ITEM, is_cjk, join_wrapped

MIN_WRAP_COLUMNS = 40
FULL_LINE = 0.8  # share of the wrap width a line ending mid-sentence in Chinese must fill
_CJK_STOPS = "。！？：；"  # where a Chinese line may end by the author's choice
_CJK_CHAR = re.compile(f"[{CJK_CLASS}]")


def columns(text: str) -> int:
    """Columns ``text`` takes: Chinese characters count two (one regex pass: a Python loop per
    character was a third of the time to read a short text file)."""
    return len(text) + len(_CJK_CHAR.findall(text))


def wrap_width(paragraphs: Iterable[str]) -> int:
    """The columns the document was wrapped at: its widest line that another line of the same
    paragraph follows, if at least one more such line comes near it (``FULL_LINE``); else 0, as
    for a document whose widest is under ``MIN_WRAP_COLUMNS``. A lone long line followed by a short
    one (a name above a phone number) is no sign of wrapping."""
    widths = nlargest(2, (columns(line.rstrip()) for p in paragraphs for line in p.strip().split("\n")[:-1]))
    if len(widths) < 2 or widths[0] < MIN_WRAP_COLUMNS or widths[1] < FULL_LINE * widths[0]:
        return 0
    return widths[0]


def unwrap(paragraph: str, width: int) -> str:
    """``paragraph`` with the line breaks that only wrapped it at ``width`` columns joined."""
    if not width or "\n" not in paragraph:
        return paragraph
    lines = paragraph.split("\n")
    settled: list[str] = []  # the text before the line being joined to, joined once at the end
    current = lines[0]
    for previous, line in pairwise(lines):
        if _wrapped(previous, line, width):
            # ``join_wrapped`` changes only where the two meet and ends with the new line's text:
            # the rest is settled, so a paragraph of many lines is not copied again at each one.
            joined = join_wrapped(current, line)
            cut = len(joined) - len(line.lstrip())
            settled.append(joined[:cut])
            current = joined[cut:]
        else:
            settled.append(current + "\n")
            current = line
    return "".join(settled) + current


def _wrapped(line: str, following: str, width: int) -> bool:
    line, following = line.rstrip(), following.strip()
    if not line or not following or LIST_ITEM.match(following):
        return False
    first = following[0] if is_cjk(following[0]) else following.split(maxsplit=1)[0]
    gap = 0 if is_cjk(line[-1]) or is_cjk(first[0]) else 1
    if columns(line) + gap + columns(first) > width:
        return True
    # Chinese is not broken mid-sentence by hand; a line ending in one, nearly full, was wrapped
    # by the width of a page whose Latin letters and digits are narrower than two columns.
    return is_cjk(line[-1]) and line[-1] not in _CJK_STOPS and columns(line) >= FULL_LINE * width
