"""Keyword terms in the library's other language: a Chinese question on an English manual also
looks for the English words of its Chinese ones (``text.bridge``), and the reverse.

Only the languages the library holds and the question is not in are added, so a one-language
library searched in its own language sees no change at all.
"""

from __future__ import annotations

from kbapp.search.vocabulary import Splitter
from kbapp.text.bridge import bridge
from kbapp.text.fold import fold
from kbapp.text.script import CJK_RE, Script
from kbapp.text.terms import Term, query_terms


def english_words(query: str, splits: Splitter | None = None) -> list[str]:
    """The dictionary's English words for the Chinese words of ``query``; ``splits`` gives where
    Chinese words may start and end, as for the unknown-word check (``vocabulary``), so both read
    a question as the same words."""
    dictionary = bridge()
    if dictionary is None or CJK_RE.search(query) is None:
        return []
    folded = fold(query)  # the dictionary is in simplified characters
    return dictionary.english_for(folded, splits(folded) if splits is not None else None)


def bridged_terms(
    query: str, terms: list[Term], library: frozenset[Script], splits: Splitter | None = None
) -> list[Term]:
    """Terms for the words of ``query`` in the library's other languages, minus those already in
    ``terms`` (``splits`` as for ``english_words``)."""
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
        words += english_words(query, splits)
    if wants_chinese:
        words += dictionary.chinese_for(fold(query))
    seen = {t.text for t in terms}
    out = []
    for term in query_terms("，".join(words)) if words else []:
        if term.text not in seen and not term.prefix:
            seen.add(term.text)
            out.append(term)
    return out
