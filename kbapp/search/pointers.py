"""Pointer passages: a table of contents or a back-of-book index ("tcl_port, 34", "3.2 Compiling …
17") holds every term of a question and the page numbers of its answer, but not the answer. They
are recognised by their structure — entries that end in a page number after a comma, an
ellipsis or dot leaders, at least ``MIN_ENTRIES`` of them and one every ``1 / DENSITY``
characters — and ranked after every content passage, so they can still answer a question
nothing else matches.

The thresholds were set on the passages of both ``manuals_mixed_dev`` manuals: their index and
contents passages have 2.0 to 7.9 entries per 100 characters, their content passages at most 0.7
(one partly filled contents page has 1.0 and is ranked like content).
"""

from __future__ import annotations

import re

# An entry: a word (or a closing bracket), then a comma, an ellipsis or dot leaders, then a page
# number or range. Counting entries, not numbers, keeps a plain list of numbers out.
_ENTRY_RE = re.compile(
    r"(?:(?<=[^\W\d_])|(?<=[)\]]))\s*(?:,|…|\.{2,}|(?:\. ){2,})\s*\d{1,4}(?:\s*[–-]\s*\d{1,4})?(?![\w.])"
)
MIN_ENTRIES = 5
DENSITY = 1.5 / 100  # entries per character


def is_pointer(text: str) -> bool:
    # Every entry holds its own separator, so too few separators settle it without the pattern,
    # which costs a search about 2 ms over the candidates of a large library.
    separators = sum(text.count(mark) for mark in (",", "…", "..", ". ."))
    if separators < MIN_ENTRIES or separators < DENSITY * len(text):
        return False
    found = len(_ENTRY_RE.findall(text))
    return found >= MIN_ENTRIES and found >= DENSITY * len(text)
