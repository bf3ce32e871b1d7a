"""What the library is like as a whole: the scripts its documents are written in and how much
text it holds. Both are read again only when the library's text changes."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from sqlalchemy.engine import Connection

from kbapp.search.scripts import DocumentScripts
from kbapp.store.keywords import indexed_terms, passage_count
from kbapp.store.samples import text_generation
from kbapp.text.script import Script


@dataclass(frozen=True, slots=True)
class Profile:
    scripts: frozenset[Script]
    terms: int  # keyword terms indexed, all passages together: the library's size in words
    passages: int  # passages indexed


class LibraryProfile:
    def __init__(self, scripts: DocumentScripts) -> None:
        self._scripts = scripts
        self._lock = threading.Lock()
        self._generation = -1
        self._profile = Profile(frozenset(), 0, 0)

    def of(self, conn: Connection) -> Profile:
        generation = text_generation(conn)
        with self._lock:
            if generation != self._generation:
                scripts = frozenset(self._scripts.of(conn).values())
                self._profile = Profile(scripts, indexed_terms(conn), passage_count(conn))
                self._generation = generation
            return self._profile
