"""A module-level (so picklable, for the parse worker process) parser that reads files slowly,
so a test can act while an import is half-way."""

from __future__ import annotations

import time
from pathlib import Path

from kbapp.ingest import parse_file
from kbapp.ingest.document import ParsedDocument

DELAY_S = 0.05


def slow_parse(path: Path) -> ParsedDocument:
    time.sleep(DELAY_S)
    return parse_file(path)
