"""Ranked chunk ids → the results a user sees.

Adjacent chunks of one document overlap by design (so no sentence is lost at a cut); when
both rank, they are shown once, as the union of their spans, instead of as two near-identical
results. Highlights are computed on the final text, and citations number the results 1..n.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.engine import Connection

from kbapp.contract import SearchResult
from kbapp.ingest.builder import BLOCK_SEPARATOR
from kbapp.store import ocr_pages
from kbapp.store.schema import chunks, documents, pages
from kbapp.text.terms import Term, match_terms


@dataclass(slots=True)
class Candidate:
    chunk_id: int
    score: float
    why: dict[str, Any]


@dataclass(slots=True)
class _Row:
    chunk_id: int
    doc_id: int
    ord: int
    page_start: int
    char_start: int
    page_end: int
    char_end: int
    prefix: str
    text: str
    heading: str
    path: str
    title: str


def _fetch_rows(conn: Connection, ids: list[int]) -> dict[int, _Row]:
    if not ids:
        return {}
    query = (
        select(
            chunks.c.id,
            chunks.c.document_id,
            chunks.c.ord,
            chunks.c.page_start,
            chunks.c.char_start,
            chunks.c.page_end,
            chunks.c.char_end,
            chunks.c.prefix,
            chunks.c.text,
            chunks.c.heading,
            documents.c.path,
            documents.c.title,
        )
        .join(documents, documents.c.id == chunks.c.document_id)
        .where(chunks.c.id.in_(ids))
    )
    return {r[0]: _Row(*r) for r in conn.execute(query)}


def _page_numbers(conn: Connection, keys: set[tuple[int, int]]) -> dict[tuple[int, int], int | None]:
    if not keys:
        return {}
    rows = conn.execute(
        select(pages.c.document_id, pages.c.page_index, pages.c.number).where(
            pages.c.document_id.in_({d for d, _ in keys}), pages.c.page_index.in_({p for _, p in keys})
        )
    )
    return {(r[0], r[1]): r[2] for r in rows if (r[0], r[1]) in keys}


def _page_text(conn: Connection, doc_id: int, page_index: int) -> str:
    return conn.execute(
        select(pages.c.text).where(and_(pages.c.document_id == doc_id, pages.c.page_index == page_index))
    ).scalar_one()


def _page_at(conn: Connection, row: _Row, offset: int) -> int:
    """Index of the page holding ``offset`` of a chunk's text that spans several pages."""
    lengths = (
        conn.execute(
            select(func.length(pages.c.text))
            .where(
                pages.c.document_id == row.doc_id, pages.c.page_index.between(row.page_start, row.page_end)
            )
            .order_by(pages.c.page_index)
        )
        .scalars()
        .all()
    )
    end = len(row.prefix) + lengths[0] - row.char_start
    for page_index in range(row.page_start, row.page_end):
        if offset < end:
            return page_index
        end += 1 + lengths[page_index - row.page_start + 1]  # the newline joining the pages
    return row.page_end


def _overlaps(a: _Row, b: _Row) -> bool:
    """Same page, plain text, spans that overlap, or touch within one section: the two would read
    as one passage.

    Chunks are cut between sentences and trimmed, so neighbours that do not overlap are apart by
    the whitespace at the cut: a space, or the separator between two blocks. Neighbours under
    different headings are separate passages even when they touch; joining them would grow a
    result across a small document's sections.
    """
    if a.doc_id != b.doc_id or a.prefix or b.prefix or abs(a.ord - b.ord) != 1:
        return False
    if not (a.page_start == a.page_end == b.page_start == b.page_end):
        return False
    gap = len(BLOCK_SEPARATOR) if a.heading == b.heading else 0
    return a.char_start <= b.char_end + gap and b.char_start <= a.char_end + gap


def _group(conn: Connection, candidates: list[Candidate], k: int) -> list[tuple[Candidate, list[_Row]]]:
    """The first ``k`` distinct passages, each with the overlapping neighbours merged into it.

    Rows are fetched a batch at a time in rank order and only until ``k`` passages are found (plus
    the rest of that batch, whose neighbours may still merge): the candidate lists run to a
    hundred or more, of which a search shows ten.
    """
    groups: list[tuple[Candidate, list[_Row]]] = []
    batch = 2 * k
    for start in range(0, len(candidates), batch):
        part = candidates[start : start + batch]
        rows = _fetch_rows(conn, [c.chunk_id for c in part])
        for cand in part:
            row = rows.get(cand.chunk_id)
            if row is None:  # removed between retrieval and assembly
                continue
            for _, members in groups:
                if any(_overlaps(row, m) for m in members):
                    members.append(row)
                    break
            else:
                if len(groups) < k:
                    groups.append((cand, [row]))
        if len(groups) == k:
            break
    return groups


def _coverage(found: set[str], weights: dict[str, float]) -> float:
    total = sum(weights.values())
    return round(sum(weights.get(t, 0.0) for t in found) / total, 3) if total else 0.0


def assemble(
    conn: Connection,
    candidates: list[Candidate],
    terms: list[Term],
    weights: dict[str, float],
    k: int,
    bridged: dict[str, float] | None = None,
) -> list[SearchResult]:
    """The first ``k`` distinct passages of ``candidates``, highlighted, with ``why`` filled in.

    ``why["keyword_coverage"]`` is the share of the query's IDF weight that the passage contains,
    ``why["bridge_coverage"]`` the same for the question's terms bridged into the library's other
    language (``crossing``). The relevance decision uses them to tell a passage that matches the
    question from one that shares a single common word with it.
    """
    groups = _group(conn, candidates, k)
    page_keys = {
        (r.doc_id, p) for _, members in groups for r in members for p in range(r.page_start, r.page_end + 1)
    }
    numbers = _page_numbers(conn, page_keys)
    from_ocr = ocr_pages.done_pages(conn, {(doc, number) for (doc, _), number in numbers.items() if number})
    results: list[SearchResult] = []
    for rank, (cand, members) in enumerate(groups, start=1):
        first = members[0]
        if len(members) == 1:
            text, start, end = first.text, first.char_start, first.char_end
        else:
            start = min(m.char_start for m in members)
            end = max(m.char_end for m in members)
            text = _page_text(conn, first.doc_id, first.page_start)[start:end]
        why = dict(cand.why)
        highlights, found = match_terms(text, terms)
        why["keyword_coverage"] = _coverage(found, weights)
        if bridged:
            why["bridge_coverage"] = _coverage(found, bridged)
        # A passage that runs over a page break is cited at the page where its match is.
        page_index = first.page_start
        if first.page_end != first.page_start and highlights:
            page_index = _page_at(conn, first, highlights[0][0])
        why["matched_terms"] = sorted({text[s:e] for s, e in highlights}, key=str.casefold)
        if len(members) > 1:
            why["merged_chunks"] = len(members)
        if (first.doc_id, numbers.get((first.doc_id, page_index))) in from_ocr:
            why["ocr"] = True  # the text was read from a scan: may hold recognition errors
        results.append(
            SearchResult(
                rank=rank,
                citation=rank,
                doc_id=first.doc_id,
                path=first.path,
                title=first.title,
                page=numbers.get((first.doc_id, page_index)),
                page_end=numbers.get((first.doc_id, first.page_end)),
                heading=first.heading or None,
                text=text,
                highlights=highlights,
                score=cand.score,
                why=why,
                chunk_ids=[m.chunk_id for m in members],
                page_index=first.page_start,
                page_end_index=first.page_end,
                prefix_len=len(first.prefix),
                char_start=start,
                char_end=end,
            )
        )
    return results
