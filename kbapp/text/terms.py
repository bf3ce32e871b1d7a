"""Keyword terms: what goes into the FTS5 index and what a query is matched with.

One tokenizer serves the index, the query and the highlighter, so a term can only match if
it would also be highlighted. Rules (applied to folded text, see ``fold``):

* CJK runs become overlapping character bigrams, plus the run's last character as a unigram,
  so 曝光 finds 曝光时间 and a one-character query can still match via a prefix query.
* Latin words are stemmed (Snowball English) so "modes" finds "mode".
* Codes such as ``XK-200``, ``M3x0.5`` or ``E5021`` are indexed whole (separators dropped:
  ``xk200``) and by their parts (``xk``, ``200``; letter/digit runs of two or more characters),
  so they are searchable whole and by parts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import Stemmer

from kbapp.text.fold import fold, fold_with_map
from kbapp.text.script import CJK_CHARS as _CJK

_ALNUM = rf"[^\W_{_CJK}]"
# Exactly two groups: ``index_terms`` unpacks ``findall``'s pairs.
_TOKEN_RE = re.compile(rf"(?P<cjk>[{_CJK}]+)|(?P<word>{_ALNUM}+(?:[-./_:]{_ALNUM}+)*)")
_CJK_ONLY_RE = re.compile(f"[{_CJK}]+")
_SEPARATORS_RE = re.compile(r"[-./_:]")
_LETTER_DIGIT_RE = re.compile(r"[^\W\d_]+|\d+")

_STEMMER = Stemmer.Stemmer("english")

# A code mixes letters and digits: error codes, part numbers, model names (E5021, XK-200, M3x0.5);
# an ordinal (2nd) is not one.
_CODE_RE = re.compile(r"(?=.*[^\W\d_])(?=.*\d)(?!\d+(?:st|nd|rd|th)$)^[^\W_][\w./-]{2,}$")

# Query-side only: function words that carry no meaning for retrieval. The index keeps them (BM25
# gives them little weight anyway), so phrases stay intact for highlighting. Words an engineer
# searches with are not here even when general-purpose lists have them: "CAN bus", "power off",
# "no signal", "not responding", "pull up", "over current", "under voltage", "before start-up",
# "above 50 °C", "out of range", "down time".
STOPWORDS = frozenset(
    """
    a about again against all am an and any are as at be because been being between both but by
    could did do does doing during each few for from further had has have having he her here hers
    herself him himself his how i if in into is it its itself just me more most my myself nor of
    once only or other our ours ourselves own same she should so some such than that the their
    theirs them themselves then there these they this those through to too until very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    """.split()  # noqa: SIM905
)


# The CJK counterpart (folded to Simplified): question words never occur in the passage that
# answers the question, so a bigram that is one — 哪个, 是谁, 什么, 好吗 — only adds noise. A
# question character pairs with a function character to make one; with any other character it
# is part of a content word and stays (吗啡 morphine, 哪吒 Nezha, 呢绒 woollen cloth).
_CJK_QUESTION_CHARS = frozenset("哪谁吗呢啥么幺什怎")  # 幺: 么 after folding
# ... and the degree adverbs 很 ("very") and 太 ("too"), which qualify a word and name nothing: 振动很大
# ("the vibration is very strong") is about vibration.
_CJK_FUNCTION_CHARS = frozenset("是的了个些里儿种一那这多要能会有在好为样很太")
_CJK_QUESTION_BIGRAMS = frozenset(["多久", "多少", "几个", "如何", "为何", "何时", "何年", "何处", "怎样"])
# 多 before a measure asks how much of it, as 多久 and 多少 do: 多大 how big, 多远 how far (not
# 多重, "multiple", a word of its own).
_CJK_MEASURE_CHARS = frozenset("大长高远宽深厚快")
# Numbers are values, not topics (a page count or a year the library lacks says nothing about
# whether it covers the subject), and a number of times is a count: 一次 once, 两遍 twice, 几回.
# The dictionary glosses 一次 "first; linear (math)", so "多久换一次" ("how often is it replaced")
# had asked for linear things.
CJK_NUMERALS = frozenset("零〇一二三四五六七八九十百千万亿两几")
_CJK_TIMES_CHARS = frozenset("次遍回趟")


def is_function_character(char: str) -> bool:
    """A Chinese character that asks or links (哪, 吗, 的, 是) rather than names a topic."""
    return char in _CJK_QUESTION_CHARS or char in _CJK_FUNCTION_CHARS


def is_stopword(term: str) -> bool:
    """Whether ``term``, a word as written or as a query term (stemmed), is a stopword."""
    if term in _STOPWORD_FORMS or term in _CJK_QUESTION_BIGRAMS:
        return True
    if len(term) == 2 and term[0] in CJK_NUMERALS and term[1] in _CJK_TIMES_CHARS:
        return True
    if len(term) == 2 and term[0] == "多" and term[1] in _CJK_MEASURE_CHARS:
        return True
    if len(term) == 1:
        return term in _CJK_QUESTION_CHARS
    if len(term) == 2 and any(ch in _CJK_QUESTION_CHARS for ch in term):
        return all(is_function_character(ch) for ch in term)
    return False


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    return _STEMMER.stemWord(word)


# Query terms are stemmed before they are checked: without the stems, "does", "during", "only",
# "very" and "because" reached the index as "doe", "dure", "onli", "veri" and "becaus" and were
# searched, and counted as content words of the question, like any other word.
_STOPWORD_FORMS = STOPWORDS | {stem(word) for word in STOPWORDS}


@dataclass(frozen=True, slots=True)
class Term:
    """A term and its span ``[start, end)`` in the text it was read from."""

    text: str
    start: int
    end: int
    prefix: bool = False


def _word_terms(word: str, start: int) -> Iterator[Term]:
    end = start + len(word)
    if _SEPARATORS_RE.search(word):
        yield Term(_SEPARATORS_RE.sub("", word), start, end)
        pos = start
        for part in _SEPARATORS_RE.split(word):
            yield from _word_terms(part, pos)
            pos += len(part) + 1
        return
    yield Term(stem(word), start, end)
    pieces = list(_LETTER_DIGIT_RE.finditer(word))
    if len(pieces) > 1:
        for piece in pieces:
            if len(piece.group()) >= 2:
                yield Term(piece.group(), start + piece.start(), start + piece.end())


def _cjk_terms(run: str, start: int) -> Iterator[Term]:
    for i in range(len(run) - 1):
        yield Term(run[i : i + 2], start + i, start + i + 2)
    yield Term(run[-1], start + len(run) - 1, start + len(run))


@lru_cache(maxsize=200_000)
def _word_index_terms(word: str) -> str:
    return " ".join(t.text for t in _word_terms(word, 0))


def index_terms(text: str) -> str:
    """The space-joined terms stored in the FTS5 table for ``text`` (the hot path of importing: the
    tokens come as ``findall``'s tuples, not match objects, 30 % faster on SciFact's abstracts)."""
    out: list[str] = []
    append, extend = out.append, out.extend
    for cjk, word in _TOKEN_RE.findall(fold(text)):
        if cjk:
            extend([cjk[i : i + 2] for i in range(len(cjk) - 1)])
            append(cjk[-1])
        else:
            append(_word_index_terms(word))
    return " ".join(out)


def query_terms(query: str) -> list[Term]:
    """Distinct terms to look up for a query.

    Differs from indexing in two ways: a code typed whole (``XK-200``) is looked up whole only,
    not by its parts, and a lone CJK character becomes a prefix term that matches every bigram
    it starts. Stopwords are dropped unless nothing else is left.
    """
    folded = fold(query)
    terms: list[Term] = []
    for m in _TOKEN_RE.finditer(folded):
        token = m.group()
        if m.lastgroup == "cjk":
            if len(token) == 1:
                terms.append(Term(token, m.start(), m.end(), prefix=True))
            else:
                terms.extend(t for t in _cjk_terms(token, m.start()) if len(t.text) == 2)
        else:
            first = next(_word_terms(token, m.start()))
            terms.append(first)
    content = [t for t in terms if not is_stopword(t.text)]
    chosen = content or terms
    seen: set[tuple[str, bool]] = set()
    unique = []
    for t in chosen:
        if (t.text, t.prefix) not in seen:
            seen.add((t.text, t.prefix))
            unique.append(t)
    return unique


# A quantity typed with its unit: 3.3V, 24V, 4-20mA, 10kΩ, 50Hz (a number, then one to three
# letters), as one term once its separators are dropped (33v, 420ma); not an ordinal (15th).
_QUANTITY_RE = re.compile(r"^(\d+)(?!(?:st|nd|rd|th)$)([^\W\d_]{1,3})$")


def quantity_parts(term: Term) -> list[Term] | None:
    """A quantity term's number and unit as two terms (``33v``: ``33`` and ``v``), each spanning the
    whole word; None for any other term. A manual that writes "3.3 V" holds the two, and never
    ``33v``: a question's "3.3V" is looked up by them where the library lacks it whole
    (``searcher``, ``vocabulary``)."""
    m = _QUANTITY_RE.match(term.text)
    if m is None or term.prefix:
        return None
    return [Term(m.group(1), term.start, term.end), Term(m.group(2), term.start, term.end)]


def is_code(word: str) -> bool:
    """Whether ``word`` (one word, folded) is a code: an error code, a part number, a model name."""
    return _CODE_RE.search(word) is not None


def code_terms(query: str) -> list[Term]:
    """The codes ``query`` names, each as the one term it is looked up by (``XK-200`` as ``xk200``)."""
    folded = fold(query)
    codes = [m for m in _TOKEN_RE.finditer(folded) if m.lastgroup == "word" and is_code(m.group())]
    return list({t.text: t for m in codes for t in [next(_word_terms(m.group(), m.start()))]}.values())


def _fts_term(term: Term) -> str:
    return f'"{term.text}"*' if term.prefix else f'"{term.text}"'


def fts_match_expression(terms: list[Term]) -> str:
    """An FTS5 MATCH expression that ORs the terms (BM25 then ranks by how many and how rare)."""
    return " OR ".join(_fts_term(t) for t in terms)


# Text the user put in quotes or title marks: 《遠鄉》, 「鐵幕」, “Exposure Time”, "XK-200 trigger".
_QUOTED_RE = re.compile(r'《([^《》]+)》|「([^「」]+)」|『([^『』]+)』|“([^“”]+)”|"([^"]+)"')
_PHRASE_SLACK = 2  # extra tokens allowed between a quoted phrase's terms (a code's parts, a stopword)


def quoted_phrases(query: str) -> list[str]:
    """FTS5 expressions, one per quoted span of ``query``, that match passages containing the span's
    terms close together — what a quoted phrase means in any search box. A book-title mark
    《…》 names a work, so it counts as a quote too."""
    phrases = []
    for m in _QUOTED_RE.finditer(query):
        span = next(g for g in m.groups() if g)
        terms = [t for t in query_terms(span) if not t.prefix]
        if not terms:
            continue
        group = " ".join(_fts_term(t) for t in terms)
        phrases.append(group if len(terms) == 1 else f"NEAR({group}, {len(terms) + _PHRASE_SLACK})")
    return phrases


@lru_cache(maxsize=200_000)
def _word_term_spans(word: str) -> tuple[tuple[str, int, int], ...]:
    return tuple((t.text, t.start, t.end) for t in _word_terms(word, 0))


@lru_cache(maxsize=64)
def _cjk_matcher(
    pairs: frozenset[str], lasts: frozenset[str], prefixes: tuple[str, ...]
) -> re.Pattern[str] | None:
    """Where a run of CJK characters holds a query term, as ``index_terms`` cut it: a character pair
    at any place, a lone character as a run's last (``_cjk_terms``), or else a prefix term's
    character. A lookahead matches at every place, so overlapping pairs are all found; the
    alternatives are tried in that order, as a pair is preferred to the character it starts with."""
    ways = [re.escape(p) for p in sorted(pairs)]
    ways += [re.escape(c) + "$" for c in sorted(lasts)]
    if prefixes:
        ways.append("[" + "".join(re.escape(c) for c in prefixes) + "]")
    return re.compile(f"(?=({'|'.join(ways)}))") if ways else None


def term_spans(text: str, terms: list[Term]) -> list[tuple[int, int, str]]:
    """Every occurrence of a query term in ``text``: code-point span and the term's text (a
    prefix term, a lone CJK character, is named by that character), in text order."""
    exact = {t.text for t in terms if not t.prefix}
    prefixes = tuple(t.text for t in terms if t.prefix)
    cjk = [t for t in exact if _CJK_ONLY_RE.fullmatch(t)]
    matcher = _cjk_matcher(
        frozenset(t for t in cjk if len(t) == 2), frozenset(t for t in cjk if len(t) == 1), prefixes
    )
    folded, index = fold_with_map(text)
    spans: list[tuple[int, int, str]] = []
    for m in _TOKEN_RE.finditer(folded):
        token, base = m.group(), m.start()
        if m.lastgroup == "cjk":
            if matcher is not None:
                for found in matcher.finditer(token):
                    term = found.group(1)
                    spans.append((base + found.start(), base + found.start() + len(term), term))
            continue
        for term, start, end in _word_term_spans(token):
            if term in exact:
                spans.append((base + start, base + end, term))
            elif prefixes and term.startswith(prefixes):
                spans.append((base + start, base + end, term[0]))
    if index is not None:
        spans = [(index[s], index[e - 1] + 1, term) for s, e, term in spans]
    spans.sort()
    return spans


def highlight_spans(occurrences: list[tuple[int, int, str]]) -> list[tuple[int, int]]:
    """``term_spans`` merged where they touch, for marking: overlapping CJK bigrams merge into one
    span, so 曝光时间 lights up as one run of four characters rather than three overlapping pairs."""
    merged: list[tuple[int, int]] = []
    for s, e, _ in occurrences:
        if merged and s < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged
