"""What the library is like as a whole: the scripts its documents are written in and how much
text it holds. Both are read again only when documents come or go."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from sqlalchemy.engine import Connection

from kbapp.store.keywords import indexed_terms
from kbapp.store.samples import document_generation, document_openings
from kbapp.text.script import Script, script_of

OPENING_CHARS = 20_000


@dataclass(frozen=True, slots=True)
class Profile:
    scripts: frozenset[Script]
    terms: int  # keyword terms indexed, all passages together: the library's size in words


class LibraryProfile:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation: tuple[int, int] = (-1, -1)
        self._profile = Profile(frozenset(), 0)

    def of(self, conn: Connection) -> Profile:
        generation = document_generation(conn)
        with self._lock:
            if generation != self._generation:
                openings = document_openings(conn, OPENING_CHARS)
                scripts = frozenset(script_of(text, OPENING_CHARS) for text in openings.values())
                self._profile = Profile(scripts, indexed_terms(conn))
                self._generation = generation
            return self._profile
