"""Which words of a question the library has never seen, in either of its languages.

A question the library cannot answer is usually about something it never mentions: "how long is
the flight from London to Tokyo" asked of compiler manuals has three words (flight, london,
tokyo) that occur in no passage. A question it can answer rarely has more than a typo or a
synonym the library lacks. Vector similarity cannot tell these apart reliably — a small model
puts any question about software close to any manual — but the vocabulary can, and it can say
which words were missing.

A word counts as known when it occurs anywhere in the library: itself, its parts for a compound
(``fill-in-the-blank``), one of its dictionary translations (``text.bridge``) or of a two-word name
it is part of ("short" and "circuit" as 短路), so a Chinese question about an English manual is judged
on the English words of its Chinese ones, or for a Chinese word a synonym the dictionary gives
through a translation. Words that cannot be looked up at all (numbers; an English word without a
translation in an English question asked of a Chinese-only library, which writes names in Chinese)
are left out rather than counted as unknown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import NamedTuple

from kbapp.search.lexical import TermCounter, idf
from kbapp.search.profile import Profile
from kbapp.text.bridge import CANDIDATES, Bridge, bridge, capitals
from kbapp.text.fold import fold
from kbapp.text.script import CJK_RE, CJK_RUN_RE, Script, script_of
from kbapp.text.terms import (
    CJK_NUMERALS,
    Term,
    index_terms,
    is_code,
    is_stopword,
    quantity_parts,
    query_terms,
)


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """``checked``: how many of the question's words could be looked up; ``unknown``: those
    found nowhere in the library, as the question wrote them (folded); ``library_terms``: the
    library's size in words, since in a small library a missing word says little;
    ``translations``: for an unknown word, the other language's words it was also looked for as
    (叶轮: turbine, wheel), so a user can tell a gap in the library from a gap in the dictionary."""

    checked: int
    unknown: tuple[str, ...]
    library_terms: int
    known_code: bool = False  # the question names a code (E5021, XK-200) that the library has
    translations: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    held_whole: bool = False  # one passage found holds every word, each in either language
    # How many of the ``checked`` words are English words looked up only through their Chinese
    # translations (the library has no English document): weaker evidence when missing (``relevance``).
    translated: int = 0
    # The share of the question's word weight the first result holds with the help of the
    # dictionary (``translated_coverage``): 0 when it needs none.
    translated_coverage: float = 0.0

    @property
    def unknown_share(self) -> float:
        return len(self.unknown) / self.checked if self.checked else 0.0

    @property
    def translated_share(self) -> float:
        return self.translated / self.checked if self.checked else 0.0


def _bigrams(word: str) -> list[str]:
    return [word[i : i + 2] for i in range(len(word) - 1)]


Alternatives = list[list[str]]  # ways a word can be present: every term of one alternative occurs


class Word(NamedTuple):
    """A content word of the question as it wrote it (folded), its ways of being present in the
    library, and the other language's words among them as the dictionary writes them. In one
    passage it counts as present only written as the question wrote it (``own``) or as an exact
    translation (``exact``: "interrupt" for 中断, not "cut" of "to cut short")."""

    text: str
    alternatives: Alternatives
    translations: tuple[str, ...]
    own: Alternatives
    exact: Alternatives


Words = list[Word]
Splitter = Callable[[str], AbstractSet[int]]  # a text's word boundaries (``QueryEncoder.word_boundaries``)


def _content(term: Term) -> bool:
    """Whether an English query term is a word of the question's topic: no stopword, number or prefix."""
    return not (term.prefix or term.text.isdigit() or is_stopword(term.text))


def _english_words(
    folded: str, dictionary: Bridge, library: frozenset[Script], acronyms: AbstractSet[str]
) -> Words:
    """The content words outside the Chinese runs: the word, its parts if it is a compound, its
    translations (``acronyms``: those the question wrote in capitals, ``bridge.capitals``)."""
    out = []
    latin = CJK_RUN_RE.sub(" ", folded)
    # Latin words a Chinese question keeps (nginx, Modbus, VLAN) are the ones Chinese text writes in
    # Latin too, so they are looked up as written even where no document is in English.
    within_chinese = latin != folded
    names = dictionary.names(latin)
    for term in query_terms(latin):
        if not _content(term):
            continue
        raw = latin[term.start : term.end]
        alternatives = [[term.text]]
        parts = [p for p in index_terms(raw).split()[1:] if len(p) >= 2 and not is_stopword(p)]
        if parts and parts != [term.text]:
            alternatives.append(parts)
        quantity = quantity_parts(term)  # "3.3V" is present where a manual writes "3.3 V"
        if quantity is not None:
            alternatives.append([q.text for q in quantity])
        # A word of a two-word name is also present as the name's Chinese ("short" as 短路).
        named = [c for start, end, _, words in names if start <= term.start < end for c in words]
        translations = list(dict.fromkeys(named + dictionary.chinese_for(raw, acronyms)))
        if Script.LATIN not in library and not translations and not within_chinese:
            continue  # nothing to look it up in
        own = list(alternatives)
        alternatives += [_bigrams(word) for word in translations]
        exact = _exact_chinese(term.text, raw, named, dictionary, library, acronyms)
        out.append(Word(raw, alternatives, tuple(translations), own, exact))
    return out


def _exact_chinese(
    term: str,
    raw: str,
    named: Sequence[str],
    dictionary: Bridge,
    library: frozenset[Script],
    acronyms: AbstractSet[str],
) -> Alternatives:
    """The Chinese words that are exact translations of the English word (query term ``term``,
    written ``raw``): a two-word name's it is part of (``named``: 短路 for "short" of "short
    circuit"), and those of its first ``CANDIDATES`` one of whose exact equivalents it is (中断 for
    "interrupt", as "interrupt" is for 中断). A passage may hold a later sense, as keyword search
    looks among as many for one the library holds: 保险丝 is the dictionary's sixth word for "fuse".
    None in a library without Chinese text, where no passage could hold them."""
    if Script.CJK not in library:
        return []
    later = [chinese for _, chinese in dictionary.chinese_pairs(raw, CANDIDATES, acronyms)]
    candidates = dict.fromkeys([*named, *later])
    exact = [
        word
        for word in candidates
        if word in named or any(_terms(english) == [term] for english in dictionary.exact.get(word, ()))
    ]
    return [_bigrams(word) for word in exact]


def _terms(english: str) -> list[str]:
    """``english`` as the index holds it: a compound gloss ("three-dimensional") is one joined term,
    as a question's own compound is."""
    return [term.text for term in query_terms(english)]


def _chinese_words(folded: str, dictionary: Bridge, boundaries: AbstractSet[int] | None) -> Words:
    """The dictionary words of the Chinese runs: the word, its translations, and its synonyms by
    way of a translation that share a character with it (片子 and 影片 are both "film"). Sharing a
    morpheme keeps the near-synonyms and drops the homonyms of a gloss (作罢 and 上门 are both
    "drop"): measured with ``bench/calibrate_relevance.py``, DRCD questions refused for a missing
    word went from 5 to 2 of 1,000 and no out-of-scope group lost a refusal; without the shared
    character one more out-of-scope question of 40 was answered.

    Each word of a two-word gloss counts alone. Wanting the gloss whole kept "machine" from making
    洗衣机 ("washing machine") known, but also made 出厂 ("leave factory") unknown to a manual that
    says "factory defaults" and never "leave" (``tests/search/test_cross_language.py``)."""
    out = []
    for word in dictionary.words(folded, boundaries):
        if is_stopword(word) or set(word) <= CJK_NUMERALS:  # numbers: values, not topics
            continue
        english = dictionary.to_english[word]
        synonyms = {
            other
            for e in english
            for other in dictionary.chinese_of(e)
            if other != word and set(other) & set(word)
        }
        translated = [_terms(e) for e in english]
        alternatives = [_bigrams(word), *translated, *(_bigrams(s) for s in sorted(synonyms))]
        exact = [_terms(e) for e in dictionary.exact.get(word, ())]
        out.append(Word(word, alternatives, tuple(english), [_bigrams(word)], exact))
    return out


def question_words(query: str, scripts: frozenset[Script], splits: Splitter | None = None) -> Words:
    """The question's content words that can be looked up in a library of these scripts, each
    with its ways of being present; ``splits`` gives where Chinese words may start and end."""
    folded = fold(query)
    # Without it: English words only. An English question asked of a library without Chinese text
    # has no use for it (its Chinese words could be in no passage), and a keyword search need not
    # wait for it to open (22 ms, the cache's check).
    chinese = Script.CJK in scripts or CJK_RE.search(folded) is not None
    dictionary = (bridge() if chinese else None) or Bridge({}, {})
    boundaries = splits(folded) if splits is not None else None
    english = _english_words(folded, dictionary, scripts, capitals(query))
    found = english + _chinese_words(folded, dictionary, boundaries)
    return list({word.text: word for word in found}.values())  # a word asked twice counts once


def _with_further(
    words: Words, counts: dict[str, int], count: TermCounter, scripts: frozenset[Script]
) -> tuple[Words, dict[str, int]]:
    """``words``, each English word the library has in no way also present as its further Chinese
    words (``Bridge.further_of``: 故障 for "fault", 风扇 "electric fan" for "fan"), as keyword
    search looks for them (``crossing``); with ``counts`` for their terms too. Looked up only for
    those words: the further words of every word cost a search of a Chinese library a third more."""
    dictionary = bridge() if Script.CJK in scripts else None
    if dictionary is None:
        return words, counts
    lacking = set(missing(words, counts))
    further = {
        word.text: [_bigrams(chinese) for chinese in dictionary.further_of(word.text)]
        for word in words
        if word.text in lacking and not CJK_RE.search(word.text)
    }
    if not any(further.values()):
        return words, counts
    looked_up = {t for ways in further.values() for way in ways for t in way}
    counts = {**counts, **count(looked_up - counts.keys())}
    words = [word._replace(alternatives=word.alternatives + further.get(word.text, [])) for word in words]
    return words, counts


def missing(words: Words, counts: Mapping[str, int]) -> tuple[str, ...]:
    """The words none of whose alternatives is wholly in the library (``counts``: passages per term)."""
    return tuple(word.text for word in words if not any(all(counts[t] for t in a) for a in word.alternatives))


def held_whole(words: Words, text: str, question: str, boundaries: AbstractSet[int] | None) -> bool:
    """Whether ``text`` holds every one of ``words``, each as written or as an exact translation,
    and needs the dictionary for one at least: for a question in the other language, what a
    passage covering all of its keywords is to a question in the passage's language (which the
    keyword coverage already judges). Without an exact translation among ``words`` (an English
    question asked of a library with no Chinese text) no passage can, and ``text`` is not read: it
    would cost every such search 3 ms for ten passages.

    Nor does a passage hold the question whole where the dictionary leaves two characters in a row
    of ``question`` (folded; ``boundaries``: where its words may start and end) unread (上海, a
    brand): the question may be about them. A character left over that the passage holds by one of
    its own glosses (长 "long" of 太长, "too long") was read, and what it says is there."""
    if not any(word.exact for word in words):
        return False
    terms = set(index_terms(text).split())

    def has(ways: Alternatives) -> bool:
        return any(terms.issuperset(way) for way in ways)

    own = [has(word.own) for word in words]
    if not words or all(own) or not all(o or has(w.exact) for o, w in zip(own, words, strict=True)):
        return False
    # An English word the dictionary cannot translate (a name: Roth, flexbox) is left out of
    # ``words`` in a library without English; as for a name it cannot read, the passage must hold it.
    if not terms.issuperset(untranslated(words, question)):
        return False
    dictionary = bridge() or Bridge({}, {})
    return dictionary.unread(question, boundaries, _read_alone(dictionary, terms)) < 2


def untranslated(words: Words, question: str) -> list[str]:
    """The English content words of ``question`` (folded) left out of ``words``: those the
    dictionary cannot translate, asked of a library without English (a name: Roth, flexbox)."""
    looked_up = {word.alternatives[0][0] for word in words}
    return [
        t.text for t in query_terms(CJK_RUN_RE.sub(" ", question)) if _content(t) and t.text not in looked_up
    ]


def _read_alone(dictionary: Bridge, terms: set[str]) -> Callable[[str], bool]:
    """Whether a passage holding ``terms`` holds one of a character's own glosses: the character
    was read, though it is part of no dictionary word."""
    return lambda char: any(terms.issuperset(_terms(english)) for english in dictionary.alone(char))


def translated_coverage(
    words: Words,
    counts: Mapping[str, int],
    passages: int,
    text: str,
    question: str,
    boundaries: AbstractSet[int] | None,
) -> float:
    """The share of the question's word weight that ``text``, written in the other language than
    ``question`` (folded; ``boundaries``: where its words may start and end), holds, each word as
    written or by any of its translations, if one at least is there only by a translation (else
    0: a passage in the question's language is judged by its own keyword coverage). A word weighs
    the IDF of its most common way of being present. Words the dictionary cannot read count as
    words the passage lacks, with the IDF of a word in no passage: a run of two or more
    characters of no dictionary word (a name, 溏心蛋), and an English word it cannot translate
    unless the passage holds it as written (Roth, flexbox).

    This is keyword coverage (``assemble``) counted in words rather than terms: for a Chinese
    question on an English passage its own terms are character pairs no English text holds, and
    the coverage of its translated terms alone (``bridge_coverage``) is spread over the several
    English words each Chinese word is searched as, of which a passage says one."""
    if script_of(text) == script_of(question):
        return 0.0
    terms = set(index_terms(text).split())
    weight = held = 0.0
    translated = False
    for word in words:
        n = max((min(counts[t] for t in way) for way in word.alternatives if way), default=0)
        w = idf(passages, n)
        weight += w
        ways = [way for way in word.alternatives if terms.issuperset(way)]
        if ways:
            held += w
            chinese = CJK_RE.search(word.text) is not None
            # in the other language: a translation, not the word or a synonym in its own
            translated = translated or all((CJK_RE.search(way[0]) is not None) != chinese for way in ways)
    for term in untranslated(words, question):
        w = idf(passages, counts[term])
        weight += w
        held += w if term in terms else 0.0
    dictionary = bridge() or Bridge({}, {})
    runs = dictionary.unread_runs(question, boundaries, _read_alone(dictionary, terms))
    weight += sum(idf(passages, 0) for run in runs if run >= 2)
    return held / weight if translated and weight else 0.0


def vocabulary(
    count: TermCounter,
    query: str,
    library: Profile,
    splits: Splitter | None = None,
    texts: Sequence[str] = (),
    *,
    judged: bool = True,
) -> Vocabulary:
    """What the library knows of ``query`` (``count``: passages holding each term); ``texts``, the
    passages found, are checked for one that holds every word (``held_whole``), and the first for
    how much of the question it holds through the dictionary (``translated_coverage``).

    Without a relevance decision to feed (``judged`` false: keyword search, which only names the
    missing words), the passages are read only to clear words found missing, and neither
    ``held_whole`` nor ``translated_coverage`` is worked out: reading the ten passages' terms for
    them took a quarter of a keyword search on ``manuals_mixed_dev``."""
    words = question_words(query, library.scripts, splits)
    folded = fold(query)
    looked_up = {t for word in words for a in word.alternatives for t in a}
    counts = count(looked_up | set(untranslated(words, folded)))
    words, counts = _with_further(words, counts, count, library.scripts)
    codes = [word.alternatives[0][0] for word in words if is_code(word.text)]
    unknown = missing(words, counts)
    boundaries = splits(folded) if splits is not None else None
    # A word is missing from the library by its first translations, but a passage holding every
    # word knows it by another exact one; a missing word without one cannot be held.
    holdable = all(word.exact for word in words if word.text in unknown)
    read = texts if judged or unknown else ()
    whole = holdable and any(held_whole(words, text, folded, boundaries) for text in read)
    unknown = () if whole else unknown
    # The other language's words are worth naming only where the library has text in it: "records"
    # asked of an English manual was not missing as 录音.
    translations = {
        word.text: word.translations
        for word in words
        if word.text in unknown
        and word.translations
        and (Script.LATIN if CJK_RE.search(word.text) else Script.CJK) in library.scripts
    }
    translated = (
        0
        if Script.LATIN in library.scripts
        else sum(bool(word.translations) and not CJK_RE.search(word.text) for word in words)
    )
    # The first result only: read over all ten, the rule also answered questions whose everyday
    # words a lower-ranked passage happened to hold (README).
    covered = (
        translated_coverage(words, counts, library.passages, texts[0], folded, boundaries)
        if judged and texts  # no passage: nothing held
        else 0.0
    )
    return Vocabulary(
        len(words),
        unknown,
        library.terms,
        any(counts[c] for c in codes),
        translations,
        whole,
        translated,
        covered,
    )
