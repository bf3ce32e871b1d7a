"""One search: parse the query, run the retrievers the mode asks for, fuse, assemble, and decide
whether anything found is relevant at all (``relevance``).

Dense retrieval runs per language pool (``pools``), and its cosines are centred on the
question's mean similarity to each pool before they are blended with BM25, the other language's
read against its own pool's best (``fusion``), so the passage that answers a Chinese question in
an English manual competes on how well it matches, not on which language it is written in; a
Chinese question's English reading (``reading``) also scores the English passages. A Chinese
question's character pairs that straddle two of its words match only where the two words stand
together (``straddling``).
Lexical mode has no relevance decision beyond "matches a term"; in a library of two languages it
reads the other language's BM25 against its own pool's best too, the pools taken from the
documents' scripts.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from sqlalchemy.engine import Connection, Engine

from kbapp.contract import (
    DENSE_DEPTH,
    LEXICAL_DEPTH,
    MODES,
    NOTHING_FOUND,
    NOTHING_RELEVANT,
    ResponseStatus,
    SearchResponse,
    SearchResult,
)
from kbapp.index.keyword_index import KeywordIndex
from kbapp.ingest.textnorm import clean_text
from kbapp.search.assemble import Candidate, assemble
from kbapp.search.crossing import bridged_terms
from kbapp.search.fusion import score_blend
from kbapp.search.lexical import lexical_search, term_counter, term_stats
from kbapp.search.pointers import is_pointer
from kbapp.search.profile import LibraryProfile
from kbapp.search.quantities import quantity_forms
from kbapp.search.relevance import agreement, relevant
from kbapp.search.scripts import DocumentScripts
from kbapp.search.straddling import without_straddling
from kbapp.search.vocabulary import vocabulary
from kbapp.store import keywords, passages
from kbapp.store.samples import chunk_texts
from kbapp.text.script import Script, script_of
from kbapp.text.terms import Term, code_terms, fts_match_expression, query_terms, quoted_phrases

if TYPE_CHECKING:  # numpy loads with the model: a keyword search never needs it
    import numpy as np

    from kbapp.search.pools import PoolStats
    from kbapp.search.reading import Reading
    from kbapp.search.semantic import SemanticRetriever

_CODE_MARGIN = 0.01  # how far the last passage holding the question's codes stays above the rest
POINTER_WINDOW = 3  # candidates per shown result that are checked for being contents/index pages


def _candidates(
    lexical: list[tuple[int, float]],
    dense: list[tuple[int, float]],
    semantic: SemanticRetriever | None,
    vector: np.ndarray | None,
    pool_of: dict[int, Script],
    pools: dict[Script, PoolStats],
    question: Script,
    reading: Reading | None,
) -> list[Candidate]:
    """Fused candidates; in hybrid mode each is scored by both retrievers, and ``why`` says so.
    Without vectors, in a library of two languages (``pool_of`` names each keyword match's
    language), the other language's BM25 is read against its own pool's best, as in hybrid mode.

    ``lexical`` is the keyword ranking (its first ``LEXICAL_DEPTH``) followed by the BM25 of
    vector candidates that ranked below that cut. ``why`` keeps each passage's raw cosine
    (``similarity``) and how far it stands out of its pool (``standout``). ``question`` is the
    script the question is written in; with a ``reading`` of it in English, an English passage's
    centred cosine is the mean of its own and the reading's (``english_reading`` in ``why``).
    """
    ranked, bm25 = lexical[:LEXICAL_DEPTH], dict(lexical)
    why: dict[int, dict[str, float | int]] = {c: {"bm25": round(score, 4)} for c, score in lexical}
    for rank, (chunk_id, _) in enumerate(ranked, start=1):
        why[chunk_id]["lexical_rank"] = rank
    if semantic is None or vector is None:
        if len(set(pool_of.values())) < 2:
            return [Candidate(c, s, dict(why[c])) for c, s in ranked]
        # Keywords alone, in two languages: the other language read against its own best, as below.
        fused = score_blend(ranked, [], bm25, {}, 1.0, pool_of=pool_of.get, home=question)
        return [Candidate(c, round(score, 6), dict(why[c])) for c, score in fused]
    cosine = dict(dense)
    missing = [c for c, _ in ranked if c not in cosine]
    cosine.update(semantic.similarities(vector, missing))
    centred: dict[int, float] = {}

    def script(chunk_id: int) -> Script | None:
        return pool_of.get(chunk_id) or semantic.script_of_chunk(chunk_id)

    for chunk_id, sim in cosine.items():
        entry = why.setdefault(chunk_id, {})
        entry["similarity"] = round(sim, 4)
        # A vector stored after the pools were last read has no pool yet: it counts on words alone.
        pool = pools.get(script(chunk_id) or Script.LATIN)
        if pool is not None:
            centred[chunk_id] = pool.centred(sim)
            entry["standout"] = round(pool.standout(sim), 3)
    if reading is not None:
        english = [c for c in centred if script(c) == Script.LATIN]
        for chunk_id, value in reading.centred(semantic, english).items():
            why[chunk_id]["english_reading"] = round(value, 4)
            centred[chunk_id] = (centred[chunk_id] + value) / 2
    dense_ranked = sorted(((c, centred[c]) for c, _ in dense), key=lambda hit: -hit[1])
    for rank, (chunk_id, _) in enumerate(dense_ranked, start=1):
        why[chunk_id]["dense_rank"] = rank
    if not ranked:
        return [Candidate(c, round(score, 6), dict(why[c])) for c, score in dense_ranked]
    by_pool = script if len(pools) > 1 else None
    fused = score_blend(ranked, dense_ranked, bm25, centred, pool_of=by_pool, home=question)
    return [Candidate(c, round(score, 6), dict(why[c])) for c, score in fused]


def _keyword_pools(
    conn: Connection, lexical: list[tuple[int, float]], scripts: DocumentScripts
) -> dict[int, Script]:
    """Each keyword match's language pool, by its document's script, as the vector pools have it."""
    of_document = scripts.of(conn)
    documents = passages.documents_of(conn, [c for c, _ in lexical])
    return {c: of_document[d] for c, d in documents.items() if d in of_document}


def _best_per_pool(
    dense: list[tuple[int, float]], pool_of: dict[int, Script], hubness: dict[int, float]
) -> dict[Script, float]:
    """Per pool, the highest cosine less the passage's pull on every question (``hubness``).
    A passage embedded while this search ran can be found before the pools know it: it has no
    pool to stand out of yet, and counts on words alone, as in ``_candidates``."""
    best: dict[Script, float] = {}
    for chunk_id, sim in dense:
        script = pool_of.get(chunk_id)
        if script is None:
            continue
        score = sim - max(0.0, hubness.get(chunk_id, 0.0))
        best[script] = max(best.get(script, score), score)
    return best


def _codes_first(
    conn: Connection, candidates: list[Candidate], codes: list[Term], document_ids: Sequence[int] | None
) -> list[Candidate]:
    """The passages that hold every code the question names (E5021, XK-200; those the library
    has) before the others, each group in rank order. A code is the most exact thing a user can
    type: "what does error F201 mean" asks for the F201 entry, however close another manual's
    error table comes in meaning and words. Their scores are lifted just above the best other
    passage's, as a quoted phrase's are, so scores still fall with rank."""
    if not codes:
        return candidates
    holding = set.intersection(
        *(keywords.matching(conn, fts_match_expression([code]), document_ids) for code in codes)
    )
    held = [c for c in candidates if c.chunk_id in holding]
    rest = [c for c in candidates if c.chunk_id not in holding]
    lift = max(0.0, rest[0].score - held[-1].score) + _CODE_MARGIN if held and rest else 0.0
    for c in held:
        c.score = round(c.score + lift, 6)
        c.why["holds_codes"] = True
    return held + rest


def _content_first(conn: Connection, candidates: list[Candidate], k: int) -> list[Candidate]:
    """Pointer passages (contents, index) after the content passages, each group in rank order.

    Only the first ``POINTER_WINDOW * k`` candidates are looked at: one further down reaches the
    ``k`` shown only if most of those are pointers, and reading and scanning every candidate's
    text cost more than the rest of the search on a small library.
    """
    head = candidates[: POINTER_WINDOW * k]
    texts = chunk_texts(conn, [c.chunk_id for c in head])
    pointers = {c.chunk_id for c in head if is_pointer(texts.get(c.chunk_id, ""))}
    if not pointers:
        return candidates
    for c in head:
        if c.chunk_id in pointers:
            c.why["pointer_page"] = True
    content = [c for c in head if c.chunk_id not in pointers]
    return content + candidates[len(head) :] + [c for c in head if c.chunk_id in pointers]


class Searcher:
    def __init__(self, engine: Engine, keyword_index: KeywordIndex | None = None) -> None:
        """``keyword_index`` speeds keyword ranking up in a large library (``lexical``)."""
        self._engine = engine
        self._keyword_index = keyword_index
        self.semantic: SemanticRetriever | None = None
        self.semantic_unavailable = "the embedding model is not loaded"
        self.document_scripts = DocumentScripts()  # shared with the language pools (``SemanticRetriever``)
        self._library = LibraryProfile(self.document_scripts)

    def search(
        self, query: str, k: int = 10, mode: str = "hybrid", document_ids: Sequence[int] | None = None
    ) -> SearchResponse:
        if mode not in MODES:
            raise ValueError(f"unknown search mode {mode!r}; choose one of {', '.join(MODES)}")
        started = time.perf_counter()
        # Cleaned as the passages were (``clean_text``): a lone surrogate, from bytes that were not
        # UTF-8, had stopped the tokenizer, and a batch of questions with it. The response echoes
        # the question as asked.
        asked, query = query, clean_text(query)
        terms = query_terms(query)
        # A question without a single word (punctuation, symbols, emoji) gives meaning nothing to
        # go on: its vector sits nearest the most generic passages, and "？？？" was answered.
        semantic = self.semantic if mode != "lexical" and terms else None
        message = None
        if mode != "lexical" and self.semantic is None:
            message = f"Semantic search unavailable ({self.semantic_unavailable}); showing keyword matches."
        with self._engine.connect() as conn:
            dense: list[tuple[int, float]] = []
            vector = None
            pool_of: dict[int, Script] = {}
            pools: dict[Script, PoolStats] = {}
            # The bridge and the unknown-word check both split the question: tokenize it once.
            splits = cache(self.semantic.encoder.word_boundaries) if self.semantic is not None else None
            question = script_of(query)
            reading: Reading | None = None
            if semantic is not None:
                from kbapp.search.reading import embed_question

                vector, reading = embed_question(query, question, semantic, splits)
                allowed = passages.chunk_ids(conn, document_ids) if document_ids is not None else None
                dense, pool_of = semantic.retrieve(vector, DENSE_DEPTH, allowed)
                pools = semantic.pool_stats(vector)
            library = self._library.of(conn)
            served = self._keyword_index.current(conn) if self._keyword_index is not None else None
            count = term_counter(conn, served)
            terms, forms = quantity_forms(query, terms, count)
            bridged = bridged_terms(
                count, query, terms, library.scripts, splits, characters=semantic is not None
            )
            searched = terms + forms + bridged.terms
            stats = term_stats(searched, count, library.passages)
            lexical: list[tuple[int, float]] = []
            if mode != "dense" or not semantic:
                matched = without_straddling(query, terms, splits) + forms + bridged.terms
                # Document frequencies are library-wide; within a few documents every term may count.
                rankable = stats.rankable(matched, LEXICAL_DEPTH) if document_ids is None else matched
                phrases, also = quoted_phrases(query), [c for c, _ in dense]
                lexical = lexical_search(
                    conn, rankable, LEXICAL_DEPTH, document_ids, phrases, also, served, bridged.weights(stats)
                )
            weights = stats.weights(terms)
            if semantic is None and len(library.scripts) > 1:
                pool_of = _keyword_pools(conn, lexical, self.document_scripts)
            fused = _candidates(lexical, dense, semantic, vector, pool_of, pools, question, reading)
            # Codes are words: meaning alone (dense mode) does not put them first.
            codes = [t for t in code_terms(query) if stats.containing.get(t.text)] if mode != "dense" else []
            candidates = _content_first(conn, _codes_first(conn, fused, codes, document_ids), k)
            results = assemble(
                conn, candidates, searched, weights, k, stats.weights(bridged.terms), bridged.sources
            )
            texts = [r.text for r in results]
            # Keyword search too names the words no passage holds, so that matches on the rest of
            # the question are not taken for an answer about them; it refuses nothing on them
            # (README: the unknown-word rule alone cost cross-language questions in keyword mode).
            words = vocabulary(count, query, library, splits, texts, judged=semantic is not None)
        status = ResponseStatus.OK if message is None else ResponseStatus.KEYWORD_ONLY
        closest: list[SearchResult] = []
        if semantic is not None and vector is not None and results:
            everyday = semantic.everyday_similarity(vector)
            best = _best_per_pool(dense, pool_of, semantic.hubness(pool_of))
            sizes = {script: pool.size for script, pool in pools.items()}
            scripts = {pool_of[c] for c in results[0].chunk_ids if c in pool_of}
            agreed = agreement(results[0], scripts, question, sizes)
            if not relevant(results, best, everyday, question, words, sizes, agreed):
                results, closest = [], results
        if not results:
            status = ResponseStatus.NOTHING_RELEVANT if semantic is not None else ResponseStatus.NOTHING_FOUND
            message = message or (NOTHING_RELEVANT if semantic is not None else NOTHING_FOUND)
        took = (time.perf_counter() - started) * 1000
        held = bridged.held_sources(stats.containing)  # found through a later sense: not missing
        unknown = tuple(w for w in words.unknown if w not in held)
        translations = {w: t for w, t in words.translations.items() if w in unknown}
        return SearchResponse(asked, mode, results, status, message, took, unknown, translations, closest)
