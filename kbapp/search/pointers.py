"""Pointer passages: a table of contents or a back-of-book index ("tcl_port, 34", "3.2 Compiling …
17") holds every term of a question and the page numbers of its answer, but not the answer. They
are recognised by their structure — page locators after a comma, an ellipsis or dot leaders, at
least ``MIN_LOCATORS`` of them and one every ``1 / DENSITY`` characters — and ranked after every
content passage, so they can still answer a question nothing else matches.

The thresholds separate the index and contents pages of both ``manuals_mixed_dev`` manuals (2.9
to 9.1 locators per 100 characters) from their content pages (at most 2.2); a pointer page
below them is only ranked as any other passage.
"""

from __future__ import annotations

import re

_LOCATOR_RE = re.compile(r"(?:,|…|\.{2,}|(?:\. ){2,})\s*\d{1,4}(?:\s*[–-]\s*\d{1,4})?(?![\w.])")
MIN_LOCATORS = 10
DENSITY = 2.5 / 100  # locators per character


def is_pointer(text: str) -> bool:
    found = len(_LOCATOR_RE.findall(text))
    return found >= MIN_LOCATORS and found >= DENSITY * len(text)
