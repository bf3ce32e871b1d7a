"""A Chinese question read in English, for the vector side of a library that also holds English.

The embedding model matches a Chinese question with English text weakly: on the manual-page sets
(``bench/manpage_sets.py``) vector search alone put the English page that answers a Chinese
question in the top 5 for 32 % of the questions, against 97 % for the same questions asked in
English. So the dictionary's English words for the question's Chinese words (the words the
keyword bridge adds, ``crossing``), after the question's own Latin words (codes, names), are
embedded as a second question, and an English passage's score for ranking is the mean of how far
it stands out of its pool for each of the two (``PoolStats.centred``). A passage close to the
English reading gains; one close only to the Chinese wording loses. The relevance decision still
reads the question's own cosines.

A character of the question that is part of no dictionary word is left out of the reading, though
keyword search looks for its glosses (``Bridge.english_pairs``): read in, even by its first gloss
alone, such characters cost vector search a question or two on every manual set
(``manuals_mixed_dev`` page-hit@5 0.829 → 0.800, manual-page zh_en recall@5 0.760 → 0.747).

The question and its reading are embedded in one batch (padding does not move either vector).
They had been embedded one after the other, the reading on a thread beside keyword search; on two
cores the model's threads and keyword search only took turns, and the 95th-percentile search at
100,000 passages went from 53.0-63.3 ms to 48.5-51.7 ms in one batch (runs alternating, same library).

Only Chinese questions are read this way. The dictionary is Chinese to English: an English word's
Chinese words (every headword glossed with it) are many and loose, and reading English questions
in Chinese cut English-to-Chinese recall@5 on the manual pages from 0.803 to 0.718 (hybrid).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from kbapp.search.crossing import english_words
from kbapp.search.pools import PoolStats
from kbapp.search.semantic import SemanticRetriever
from kbapp.search.vocabulary import Splitter
from kbapp.text.script import Script

_LATIN_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*")


@dataclass(frozen=True, slots=True)
class Reading:
    """The English reading's vector and how it relates to the English pool."""

    vector: np.ndarray
    pool: PoolStats

    def centred(self, semantic: SemanticRetriever, chunk_ids: list[int]) -> dict[int, float]:
        """How far each passage stands out of the English pool for the English reading."""
        return {c: self.pool.centred(sim) for c, sim in semantic.similarities(self.vector, chunk_ids).items()}


def embed_question(
    query: str, question: Script, semantic: SemanticRetriever, splits: Splitter | None
) -> tuple[np.ndarray, Reading | None]:
    """The vector of ``query``, and its English reading when it is Chinese and the library has
    English passages (else None), the two embedded in one batch."""
    wanted = question == Script.CJK and semantic.has_pool(Script.LATIN)
    text = _reading_text(query, splits) if wanted else None
    if text is None:
        return semantic.embed(query), None
    vector, reading = semantic.embed_many([query, text])
    return vector, Reading(reading, semantic.pool_stats(reading)[Script.LATIN])


def _reading_text(query: str, splits: Splitter | None) -> str | None:
    words = english_words(query, splits)
    return " ".join(_LATIN_WORD_RE.findall(query) + words) if words else None
