"""A copy of the keyword index's postings in numpy arrays, scored with FTS5's own BM25.

FTS5 computes ``bm25()`` row by row: for each passage that matches any term of the question it
reads the passage's size and walks its term positions. A Chinese question ORs 20-40 character
pairs, so on a 100,000-passage library half the passages match, and ranking them took 40-200 ms
of a hybrid search (``bench/bench_search.py``), where listing the matches took a few. With each
term's passages and frequencies in arrays, the same sum is a few vector operations per term.

The scores are FTS5's to the last bits of a double: the same formula (``fts5_aux.c``: k1 1.2,
b 0.75, column weights ``store.keywords``, IDF from the passages holding the term, clamped at
1e-6), the same token counts, and the same library totals, which ``build`` checks against FTS5's
own before the copy may serve (``matches``). Terms FTS5 reads as phrases (several tokens) are
still scored by FTS5, and so are prefixes in a library changed since the copy was built
(``kbapp.search.lexical``); the sums add up, as BM25 is a sum over the question's phrases.

Frequencies are kept as ``20 * body + 7 * context`` occurrences, whole numbers, so the context
column's weight of 0.35 is exact.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kbapp.store.keywords import BM25_B, BM25_K1, BODY_WEIGHT, CONTEXT_WEIGHT

FREQ_SCALE = 20  # body and context weights times this are whole numbers
_BODY_UNITS, _CONTEXT_UNITS = round(BODY_WEIGHT * FREQ_SCALE), round(CONTEXT_WEIGHT * FREQ_SCALE)
if (_BODY_UNITS, _CONTEXT_UNITS) != (BODY_WEIGHT * FREQ_SCALE, CONTEXT_WEIGHT * FREQ_SCALE):
    raise ImportError("the keyword column weights must be multiples of 1 / FREQ_SCALE")
_BATCH = 20_000  # passages tokenised before their postings are placed
# What FTS5's unicode61 tokenizer keeps as token characters: letters, digits and private-use
# characters (categories L*, N*, Co); anything else separates tokens. The stored terms are
# space-joined, but some hold a separator (希・, from a CJK run ending in a middle dot).
_TOKEN = re.compile("[^\\W_]+|[\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]+")


class PostingsMismatch(Exception):
    """The passages read do not add up to what FTS5 holds; the message says where."""


@dataclass(frozen=True, slots=True)
class Totals:
    """What BM25 reads of the whole library: passages, tokens, and the highest passage id."""

    rows: int
    tokens: int
    last_id: int


class Postings:
    def __init__(
        self,
        terms: list[str],
        starts: np.ndarray,
        lengths: np.ndarray,
        totals: Totals,
        arrays: tuple[np.ndarray, np.ndarray] | None = None,
        stored: Stored | None = None,
    ) -> None:
        """``terms`` sorted; term ``i`` is held by the passages ``docs[starts[i]:starts[i + 1]]``
        (ascending ids) with ``freqs`` in ``FREQ_SCALE`` units, both in memory (``arrays``) or read
        from a file as they are needed (``stored``); ``lengths[id]`` is passage ``id``'s tokens, -1
        for an id that held no passage when the copy was built."""
        self.terms = terms
        self.starts = starts
        self.lengths = lengths
        self.totals = totals
        self.arrays = arrays
        self.stored = stored

    def _slice(self, term: str) -> slice | None:
        i = bisect.bisect_left(self.terms, term)
        if i == len(self.terms) or self.terms[i] != term:
            return None
        return slice(int(self.starts[i]), int(self.starts[i + 1]))

    def _prefix_slice(self, prefix: str) -> slice:
        """The postings of every term that begins with ``prefix``: the terms are sorted, so they
        are one run of terms, and their postings one run of the arrays."""
        low = bisect.bisect_left(self.terms, prefix)
        after = _successor(prefix)
        high = len(self.terms) if after is None else bisect.bisect_left(self.terms, after, lo=low)
        return slice(int(self.starts[low]), int(self.starts[high]))

    def counts(self, terms: Iterable[str]) -> dict[str, int]:
        """How many passages held each term when the copy was built (0 for one it lacks): what
        FTS5's vocabulary counted, without reading each term's passages to count them again."""
        out = {}
        for term in terms:
            part = self._slice(term)
            out[term] = 0 if part is None else part.stop - part.start
        return out

    def view(self, rows: int, tokens: int, live: np.ndarray | None) -> View:
        """The copy read for a library of ``rows`` passages and ``tokens`` tokens now, of whose built
        passages only those marked in ``live`` remain (None: all of them)."""
        average = tokens / rows if rows else 1.0
        # FTS5's length normalisation, per passage id, in doubles as it computes it.
        norm = BM25_K1 * (1.0 - BM25_B + BM25_B * self.lengths.astype(np.float64) / average)
        return View(self, rows, norm, live)

    def held(self, terms: list[str]) -> list[tuple[np.ndarray, np.ndarray] | None]:
        """Each term's ``(passage ids, frequencies)``; None for a term the copy lacks. Raises
        ``OSError`` if the file the postings are read from is gone (replaced by a newer copy)."""
        parts = [self._slice(term) for term in terms]
        read = iter(self._read([part for part in parts if part is not None]))
        return [None if part is None else next(read) for part in parts]

    def with_prefixes(self, prefixes: list[str]) -> list[tuple[np.ndarray, np.ndarray]]:
        """For each prefix, the postings of all the terms that begin with it, one term's after
        another (a passage holding two of them appears twice). Raises ``OSError`` as ``held``."""
        return self._read([self._prefix_slice(prefix) for prefix in prefixes])

    def _read(self, parts: list[slice]) -> list[tuple[np.ndarray, np.ndarray]]:
        if self.arrays is not None:
            docs_of, freqs_of = self.arrays
            return [(docs_of[part], freqs_of[part]) for part in parts]
        assert self.stored is not None
        return self.stored.read(parts)


@dataclass(frozen=True, slots=True)
class View:
    """The copy as it scores the library now (``Postings.view``)."""

    postings: Postings
    rows: int
    norm: np.ndarray
    live: np.ndarray | None

    @property
    def exact(self) -> bool:
        """Whether the library is the one the copy was built from (no passage gone, none added)."""
        return self.live is None and self.rows == self.postings.totals.rows

    def scores(
        self, terms: Iterable[str], counts: Mapping[str, int] | None = None, prefixes: Iterable[str] = ()
    ) -> np.ndarray:
        """Each built passage's BM25 sum over ``terms`` (one token each; a repeated term counts again,
        as a repeated phrase does in FTS5), indexed by passage id; 0 where none occurs. ``counts``:
        how many passages of the library hold each term now, when it is no longer the one the copy
        was built from (the IDF is the library's, not the copy's).

        ``prefixes`` are scored as FTS5 scores a prefix query (``"复"*``): a passage's frequency is
        its occurrences of every term that begins with the prefix, and the IDF counts the passages
        holding any of them. Only an ``exact`` view can: in a changed library that count is not
        known without FTS5 listing the matches."""
        out = np.zeros(self.postings.totals.last_id + 1, np.float64)
        times = Counter(terms)
        for term, held in zip(times, self.postings.held(list(times)), strict=True):
            if held is None:
                continue
            docs, freqs = held
            if self.live is not None:
                kept = self.live[docs]
                docs, freqs = docs[kept], freqs[kept]
            n = len(docs) if counts is None else counts.get(term, len(docs))
            self._add(out, times[term], n, docs, freqs.astype(np.float64))
        repeats = Counter(prefixes)
        if repeats and not self.exact:
            raise ValueError("prefixes are scored only for the library the copy was built from")
        for prefix, (docs, freqs) in zip(repeats, self.postings.with_prefixes(list(repeats)), strict=True):
            holding, which = np.unique(docs, return_inverse=True)
            units = np.bincount(which, weights=freqs, minlength=len(holding))
            self._add(out, repeats[prefix], len(holding), holding, units)
        return out

    def _add(self, out: np.ndarray, times: int, n: int, docs: np.ndarray, units: np.ndarray) -> None:
        """Add one phrase's BM25 (``units``: its frequencies in ``FREQ_SCALE`` units) to ``out``."""
        idf = max(np.log((self.rows - n + 0.5) / (n + 0.5)), 1e-6)
        freq = units / FREQ_SCALE
        out[docs] += times * idf * freq * (BM25_K1 + 1.0) / (freq + self.norm[docs])


@dataclass(frozen=True, slots=True)
class Stored:
    """Where a saved copy keeps its postings: ``docs`` (int32) from ``docs_at`` and frequencies
    (``freq_dtype``) from ``freqs_at`` in ``path``. They are read term by term at each search, not
    mapped: the pages stay the operating system's cache instead of the process's memory (a mapped
    copy of a 100,000-passage library added 138 MB to its resident size), and the file can be
    replaced on any system while a search runs."""

    path: Path
    docs_at: int
    freqs_at: int
    freq_dtype: str

    def read(self, parts: list[slice]) -> list[tuple[np.ndarray, np.ndarray]]:
        freq_type = np.dtype(self.freq_dtype)
        out = []
        with self.path.open("rb") as f:
            for part in parts:
                count = part.stop - part.start
                f.seek(self.docs_at + 4 * part.start)
                docs = np.fromfile(f, np.int32, count)
                f.seek(self.freqs_at + freq_type.itemsize * part.start)
                out.append((docs, np.fromfile(f, freq_type, count)))
        return out


def build(
    rows: Iterable[tuple[int, str, str]], vocabulary: Sequence[tuple[str, int]], totals: Totals
) -> Postings:
    """Postings of every passage in ``rows`` (``(id, body terms, context terms)``, ids ascending),
    laid out by ``vocabulary`` (every term FTS5 holds, sorted, with its passage count).

    Raises ``PostingsMismatch`` if a passage holds a term the vocabulary lacks, or if the counts or
    totals come out otherwise than FTS5's: FTS5 would then read the text differently from a
    whitespace split, and its scores could not be reproduced."""
    terms = [term for term, _ in vocabulary]
    number = {term: i for i, term in enumerate(terms)}
    counts = np.fromiter((n for _, n in vocabulary), np.int64, len(vocabulary))
    starts = np.zeros(len(terms) + 1, np.int64)
    np.cumsum(counts, out=starts[1:])
    docs = np.empty(int(starts[-1]), np.int32)
    freqs = np.empty(int(starts[-1]), np.uint32)
    lengths = np.full(totals.last_id + 1, -1, np.int32)
    filled = np.zeros(len(terms), np.int64)
    seen = tokens = 0
    batch: list[tuple[int, str, str]] = []
    for row in rows:
        batch.append(row)
        if len(batch) == _BATCH:
            tokens += _place(batch, number, starts, filled, docs, freqs, lengths)
            seen += len(batch)
            batch = []
    if batch:
        tokens += _place(batch, number, starts, filled, docs, freqs, lengths)
        seen += len(batch)
    if (seen, tokens) != (totals.rows, totals.tokens) or not np.array_equal(filled, counts):
        raise PostingsMismatch(
            f"read {seen} passages of {tokens} tokens; "
            f"the keyword index holds {totals.rows} of {totals.tokens}"
        )
    narrow = np.uint16 if freqs.size == 0 or int(freqs.max()) <= np.iinfo(np.uint16).max else np.uint32
    return Postings(terms, starts, lengths, totals, arrays=(docs, freqs.astype(narrow)))


def _place(
    batch: list[tuple[int, str, str]],
    number: dict[str, int],
    starts: np.ndarray,
    filled: np.ndarray,
    docs: np.ndarray,
    freqs: np.ndarray,
    lengths: np.ndarray,
) -> int:
    """Put one batch's postings in place (each term's passages stay in id order); returns its tokens.

    The batch's tokens become (term, passage) keys; sorting them groups each term's passages in id
    order, which is the order they are laid out in, and summing their weights per key gives the
    frequencies: one numpy sort per batch instead of a count per passage in Python."""
    first_id = batch[0][0]
    span = batch[-1][0] - first_id + 1
    tokens: list[str] = []
    owners: list[int] = []
    per_passage: list[int] = []
    for column in ("body", "context"):
        for rowid, body, context in batch:
            found = _tokens(body if column == "body" else context)
            tokens.extend(found)
            owners.append(rowid)
            per_passage.append(len(found))
    try:
        term_ids = np.array([number[token] for token in tokens], np.int64)
    except KeyError as err:
        raise PostingsMismatch(f"a passage holds {err.args[0]!r}, which the keyword index lacks") from err
    counts = np.array(per_passage, np.int64)
    passages = np.repeat(np.array(owners, np.int64) - first_id, counts)
    in_body = int(counts[: len(batch)].sum())
    units = np.full(len(tokens), _CONTEXT_UNITS, np.int64)
    units[:in_body] = _BODY_UNITS
    keys, which = np.unique(term_ids * span + passages, return_inverse=True)
    weights = np.bincount(which.ravel(), weights=units, minlength=len(keys))
    lengths[np.array([row[0] for row in batch])] = counts[: len(batch)] + counts[len(batch) :]
    sorted_ids, owner = np.divmod(keys, span)
    first = np.searchsorted(sorted_ids, sorted_ids)  # where each term's run starts in this batch
    at = starts[sorted_ids] + filled[sorted_ids] + (np.arange(len(sorted_ids)) - first)
    if len(at) and int(at.max()) >= len(docs):
        raise PostingsMismatch("a term is held by more passages than the keyword index counts")
    docs[at] = (owner + first_id).astype(np.int32)
    freqs[at] = np.rint(weights).astype(np.uint32)
    filled += np.bincount(sorted_ids, minlength=len(filled))
    return len(tokens)


def _successor(prefix: str) -> str | None:
    """The first string after every string that begins with ``prefix``; None if there is none."""
    stem = prefix.rstrip(chr(0x10FFFF))
    return stem[:-1] + chr(ord(stem[-1]) + 1) if stem else None


def _tokens(text: str) -> list[str]:
    """``text``'s tokens as FTS5 reads them; a token mixing private-use characters with letters is
    cut in two here, which ``build``'s checks catch (none of kbapp's terms holds one). Almost every
    passage is letters and digits between spaces, which a split reads ten times faster."""
    if text.replace(" ", "").isalnum():
        return text.split(" ")
    return _TOKEN.findall(text)
