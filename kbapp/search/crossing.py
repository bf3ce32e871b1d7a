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

A word's translations count together, as the one word of the question they stand for
(``Bridged.weights``): 得到 is searched as "get", "obtain" and "receive", and a passage saying
"obtain" has matched 得到 as well as any of the many passages holding one of the three, not as
well as the rare word "obtain" alone would say.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from kbapp.search.lexical import TermCounter, TermStats, idf
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
    translations: dict[str, str] = field(default_factory=dict)  # each term's translation, as a phrase

    def held_sources(self, containing: Mapping[str, int]) -> set[str]:
        """The question's words the library holds a translation of (``containing``: passages per
        term)."""
        return {self.sources[t.text] for t in self.terms if containing.get(t.text)}

    def weights(self, stats: TermStats) -> dict[str, float]:
        """The share of its BM25 each term keeps (1 where absent), so a question word's translations
        count as one term of the passages holding any of them (Pirkola's structured query).

        BM25 would add up each translation with its own IDF, and the dictionary's translations of
        a common word reach many passages through many common English words: a Chinese question's
        generic verbs put an English manual's unrelated pages into its top 5 (``manuals_mixed_dev``
        cjk_zh_04: 得到 as get/obtain/receive, 想 as believe). Here each translation's terms are
        scaled by the IDF of the word's translations together, over the mean IDF of those
        translations alone: 1 for a word with one translation the library holds, less the more
        common its translations are together. A translation of several words ("command line") is
        held by at most as many passages as its rarest word. Passages holding the translations are
        taken as independent for their union's count, which FTS5 does not give without listing
        them. No constant.
        """
        held: dict[str, dict[str, int]] = {}
        for t in self.terms:
            n = stats.containing.get(t.text, 0)
            members = held.setdefault(self.sources[t.text], {})
            translation = self.translations[t.text]
            members[translation] = min(members.get(translation, n), n)
        scale: dict[str, float] = {}
        for source, members in held.items():
            counts = [n for n in members.values() if n]
            if len(counts) < 2:
                continue
            none = math.prod(1 - n / stats.passages for n in counts)
            alone = math.fsum(idf(stats.passages, n) for n in counts) / len(counts)
            scale[source] = min(1.0, idf(stats.passages, stats.passages * (1 - none)) / alone)
        return {t.text: scale[self.sources[t.text]] for t in self.terms if self.sources[t.text] in scale}


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


def _held_first(
    count: TermCounter, pairs: list[tuple[str, str]], further: Callable[[str], Sequence[str]]
) -> list[tuple[str, str]]:
    """Of each English word's Chinese words, in the dictionary's order, those the library holds
    come first (all of a word's terms occur), and ``PER_WORD`` are kept. A word none of whose
    Chinese words the library holds is searched as those it holds of its ``further`` ones
    (``Bridge.further_of``: 故障 for "fault", 风扇 for "fan"), looked up only for such a word."""
    terms = {chinese: [t.text for t in query_terms(chinese) if not t.prefix] for _, chinese in pairs}
    counts = dict(count({t for ts in terms.values() for t in ts}))

    def held(chinese: str) -> bool:
        return bool(terms[chinese]) and all(counts[t] for t in terms[chinese])

    by_word: dict[str, list[str]] = {}
    for english, chinese in pairs:
        by_word.setdefault(english, []).append(chinese)
    later = {english: further(english) for english, found in by_word.items() if not any(map(held, found))}
    for chinese in {c for found in later.values() for c in found} - terms.keys():
        terms[chinese] = [t.text for t in query_terms(chinese) if not t.prefix]
    counts |= count({t for found in later.values() for c in found for t in terms[c]} - counts.keys())
    kept = []
    for english, candidates in by_word.items():
        first = sorted(candidates, key=lambda c: not held(c))
        ordered = [c for c in later.get(english, ()) if held(c)] + first
        kept += [(english, chinese) for chinese in ordered[:PER_WORD]]
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
        own = dictionary.chinese_pairs(fold(query), CANDIDATES, capitals(query))
        pairs += _held_first(count, own, dictionary.further_of)
    seen = {t.text for t in terms}
    out = Bridged()
    for source, translation in pairs:
        for term in query_terms(translation):
            if term.text not in seen and not term.prefix:
                seen.add(term.text)
                out.terms.append(term)
                out.sources[term.text] = source
                out.translations[term.text] = translation
    return out
