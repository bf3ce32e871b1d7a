"""Keyword terms in the library's other language: a Chinese question on an English manual also
looks for the English words of its Chinese ones (``text.bridge``), and the reverse.

Only the languages the library holds and the question is not in are added, so a one-language
library searched in its own language sees no change at all.
"""

from __future__ import annotations

import threading

from sqlalchemy.engine import Connection

from kbapp.store.samples import document_generation, document_openings
from kbapp.text.bridge import bridge
from kbapp.text.script import CJK_RE, Script, script_of
from kbapp.text.terms import Term, query_terms

OPENING_CHARS = 20_000


class LibraryScripts:
    """Which scripts the library's documents are written in, re-read when documents come or go."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation: tuple[int, int] = (-1, -1)
        self._scripts: frozenset[Script] = frozenset()

    def of(self, conn: Connection) -> frozenset[Script]:
        generation = document_generation(conn)
        with self._lock:
            if generation != self._generation:
                openings = document_openings(conn, OPENING_CHARS)
                self._scripts = frozenset(script_of(text, OPENING_CHARS) for text in openings.values())
                self._generation = generation
            return self._scripts


def bridged_terms(query: str, terms: list[Term], library: frozenset[Script]) -> list[Term]:
    """Terms for the words of ``query`` in the library's other languages, minus those already in
    ``terms``."""
    words: list[str] = []
    has_cjk = CJK_RE.search(query) is not None
    has_latin = any(ch.isascii() and ch.isalpha() for ch in query)
    wants_english = has_cjk and Script.LATIN in library
    wants_chinese = has_latin and Script.CJK in library
    if not (wants_english or wants_chinese):
        return []
    dictionary = bridge()
    if dictionary is None:
        return []
    if wants_english:
        words += dictionary.english_for(query)
    if wants_chinese:
        words += dictionary.chinese_for(query)
    seen = {t.text for t in terms}
    out = []
    for term in query_terms("，".join(words)) if words else []:
        if term.text not in seen and not term.prefix:
            seen.add(term.text)
            out.append(term)
    return out
