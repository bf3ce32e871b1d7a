"""The script each document is written in, read from its opening pages.

Both what search knows of the library as a whole (``profile``: which languages it holds) and the
language pools (``pools``: which pool each passage joins) need it. Reading every document's
opening is the costly part of either (a walk over 20,000 characters per Chinese document), so one
table is kept per library and read again only when its text changes: a document added or removed,
or a scanned page's text added by OCR (``store.samples.text_generation``).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from sqlalchemy.engine import Connection

from kbapp.store.samples import document_openings, text_generation
from kbapp.text.script import Script, script_of

OPENING_CHARS = 20_000


class DocumentScripts:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation = -1
        self._scripts: Mapping[int, Script] = {}

    def of(self, conn: Connection) -> Mapping[int, Script]:
        """Document id -> script; a document without text pages has none."""
        generation = text_generation(conn)
        with self._lock:
            if generation != self._generation:
                openings = document_openings(conn, OPENING_CHARS)
                self._scripts = {doc: script_of(text, OPENING_CHARS) for doc, text in openings.items()}
                self._generation = generation
            return self._scripts
