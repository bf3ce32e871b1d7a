"""Keyword terms in the library's other language: a Chinese question on an English manual also
looks for the English words of its Chinese ones (``text.bridge``), and the reverse.

Only the languages the library holds and the question is not in are added, so a one-language
library searched in its own language sees no change at all. An English word is searched as the
first ``PER_WORD`` of its dictionary's Chinese words that the library holds, out of the first
``CANDIDATES`` (``text.bridge``): "shield" as the 屏蔽 of a wiring guide, not as four senses it never
uses. The unknown-word check (``vocabulary``) still judges a word by its first ``PER_WORD``, the
senses the relevance constants were fitted with; a word found only through a later sense is not
reported as missing (``Bridged.held_sources``). With vector search on, a Chinese character that is
part of no dictionary word is searched as its own one-word glosses (``Bridge.english_pairs``): 轴 of
坐标轴 as "axis".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kbapp.search.lexical import TermCounter
from kbapp.search.vocabulary import Splitter
from kbapp.text.bridge import CANDIDATES, PER_WORD, bridge, capitals
from kbapp.text.fold import fold
from kbapp.text.script import CJK_RE, Script
from kbapp.text.terms import Term, query_terms


@dataclass(frozen=True, slots=True)
class Bridged:
    """The terms added in the other language, and for each the question's word it translates
    (a result says "seal" was found for 密封)."""

    terms: list[Term] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)

    def held_sources(self, containing: Mapping[str, int]) -> set[str]:
        """The question's words the library holds a translation of (``containing``: passages per
        term)."""
        return {self.sources[t.text] for t in self.terms if containing.get(t.text)}


def english_words(query: str, splits: Splitter | None = None) -> list[str]:
    """The dictionary's English words for the Chinese words of ``query``; ``splits`` gives where
    Chinese words may start and end, as for the unknown-word check (``vocabulary``), so both read
    a question as the same words."""
    return [english for _, english in _english_pairs(query, splits)]


def _english_pairs(query: str, splits: Splitter | None, characters: bool = False) -> list[tuple[str, str]]:
    dictionary = bridge()
    if dictionary is None or CJK_RE.search(query) is None:
        return []
    folded = fold(query)  # the dictionary is in simplified characters
    return dictionary.english_pairs(folded, splits(folded) if splits is not None else None, characters)


def _held_first(count: TermCounter, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Of each English word's Chinese words, in the dictionary's order, those the library holds
    come first (all of a word's terms occur), and ``PER_WORD`` are kept."""
    terms = {chinese: [t.text for t in query_terms(chinese) if not t.prefix] for _, chinese in pairs}
    counts = count({t for ts in terms.values() for t in ts})
    by_word: dict[str, list[str]] = {}
    for english, chinese in pairs:
        by_word.setdefault(english, []).append(chinese)
    kept = []
    for english, candidates in by_word.items():
        held = sorted(candidates, key=lambda c: not (terms[c] and all(counts[t] for t in terms[c])))
        kept += [(english, chinese) for chinese in held[:PER_WORD]]
    return kept


def bridged_terms(
    count: TermCounter,
    query: str,
    terms: list[Term],
    library: frozenset[Script],
    splits: Splitter | None = None,
    characters: bool = False,
) -> Bridged:
    """Terms for the words of ``query`` in the library's other languages, minus those already in
    ``terms`` (``splits`` as for ``english_words``; ``count``: passages holding each term).

    ``characters``: also a Chinese character of no dictionary word, by its own glosses. Only where
    the other language's keyword scores are read against their own pool (``fusion``): in keyword
    mode both languages share one scale, and a character's looser glosses let the English manual
    outrank the Chinese one holding the question's very words (錯誤碼 曝光時間: 码 "code")."""
    has_cjk = CJK_RE.search(query) is not None
    has_latin = any(ch.isascii() and ch.isalpha() for ch in query)
    wants_english = has_cjk and Script.LATIN in library
    wants_chinese = has_latin and Script.CJK in library
    if not (wants_english or wants_chinese):
        return Bridged()  # without opening the dictionary's cache: its check reads all 6 MB
    dictionary = bridge()
    if dictionary is None:
        return Bridged()
    pairs: list[tuple[str, str]] = []
    if wants_english:
        pairs += _english_pairs(query, splits, characters)
    if wants_chinese:
        pairs += _held_first(count, dictionary.chinese_pairs(fold(query), CANDIDATES, capitals(query)))
    seen = {t.text for t in terms}
    out = Bridged()
    for source, translation in pairs:
        for term in query_terms(translation):
            if term.text not in seen and not term.prefix:
                seen.add(term.text)
                out.terms.append(term)
                out.sources[term.text] = source
    return out
