"""Ranked chunk ids → the results a user sees.

Adjacent chunks of one document overlap by design (so no sentence is lost at a cut); when
both rank, they are shown once, as the union of their spans, instead of as two near-identical
results. Highlights are computed on the final text, and citations number the results 1..n.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Connection

from kbapp.contract import SearchResult
from kbapp.ingest.builder import BLOCK_SEPARATOR
from kbapp.search.focus import focus
from kbapp.store import ocr_pages, passages
from kbapp.store.passages import Passage
from kbapp.text.terms import Term, highlight_spans, query_terms, term_spans


@dataclass(slots=True)
class Candidate:
    chunk_id: int
    score: float
    why: dict[str, Any]


def _page_at(conn: Connection, row: Passage, offset: int) -> int:
    """Index of the page holding ``offset`` of a chunk's text that spans several pages."""
    lengths = passages.page_lengths(conn, row.doc_id, row.page_start, row.page_end)
    end = len(row.prefix) + lengths[0] - row.char_start
    for page_index in range(row.page_start, row.page_end):
        if offset < end:
            return page_index
        end += 1 + lengths[page_index - row.page_start + 1]  # the newline joining the pages
    return row.page_end


def _overlaps(a: Passage, b: Passage) -> bool:
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


def _group(conn: Connection, candidates: list[Candidate], k: int) -> list[tuple[Candidate, list[Passage]]]:
    """The first ``k`` distinct passages, each with the overlapping neighbours merged into it, one
    per page before any page's second.

    A result cites a page, and whoever opens it reads the whole page: a second passage from a
    page already shown adds nothing to look at, while the slot it takes could show another page.
    So passages from a page already shown wait until every page has had its first (measured on
    the page-cited development sets, ``README.md``). Documents without pages (plain text, HTML,
    Word) are not held back: there the "page" is the whole document, and its second passage is as
    much a new place to read as any other.

    Rows are fetched a batch at a time in rank order and only until ``k`` passages that open a
    page are found (plus the rest of that batch, whose neighbours may still merge): the candidate
    lists run to a hundred or more, of which a search shows ten.
    """
    groups: list[tuple[Candidate, list[Passage]]] = []
    held: list[tuple[Candidate, list[Passage]]] = []  # a second passage from a page already shown
    shown: set[tuple[int, int]] = set()
    batch = 2 * k
    for start in range(0, len(candidates), batch):
        part = candidates[start : start + batch]
        rows = passages.passages(conn, [c.chunk_id for c in part])
        paged = passages.page_numbers(conn, {(r.doc_id, r.page_start) for r in rows.values()})
        for cand in part:
            row = rows.get(cand.chunk_id)
            if row is None:  # removed between retrieval and assembly
                continue
            for _, members in groups + held:
                if any(_overlaps(row, m) for m in members):
                    members.append(row)
                    break
            else:
                page = (row.doc_id, row.page_start)
                if paged.get(page) is not None and page in shown:
                    held.append((cand, [row]))
                elif len(groups) < k:
                    groups.append((cand, [row]))
                    shown.add(page)
        if len(groups) == k:
            break
    return (groups + held)[:k]


def _coverage(found: set[str], weights: dict[str, float]) -> float:
    total = sum(weights.values())
    return round(sum(weights.get(t, 0.0) for t in found) / total, 3) if total else 0.0


def _span(conn: Connection, members: list[Passage]) -> tuple[str, int, int]:
    """The text a result shows and where it lies on its page: one chunk's own, or for merged
    neighbours (on one page, see ``_overlaps``) the cut of the page that covers them all."""
    first = members[0]
    if len(members) == 1:
        return first.text, first.char_start, first.char_end
    start = min(m.char_start for m in members)
    end = max(m.char_end for m in members)
    return passages.page_text(conn, first.doc_id, first.page_start)[start:end], start, end


def _cited_page(conn: Connection, first: Passage, at: int) -> int:
    """A passage that runs over a page break is cited at the page where it matches best (``at``)."""
    if first.page_end != first.page_start:
        return _page_at(conn, first, at)
    return first.page_start


def _translations(
    text: str, occurrences: list[tuple[int, int, str]], sources: dict[str, str]
) -> dict[str, list[str]]:
    """For each word of the question that ``text`` holds only through the dictionary, the words of
    ``text`` that stand for it (密封 → ["seal"]), each term's first form only (not "suppressions,
    suppression, suppressed"), in order of appearance; a word the passage also holds as the
    question wrote it needs no explaining. A Chinese word is matched as overlapping pairs of
    characters: those of one word are shown as the word (fuse → 保险丝, not 保险, 险丝)."""
    found = {term for _, _, term in occurrences}
    spans: dict[str, list[tuple[int, int]]] = {}
    shown: set[str] = set()
    for s, e, term in occurrences:
        source = sources.get(term)
        if source is None or term in shown:
            continue
        shown.add(term)  # looked at once, at its first occurrence
        if not {t.text for t in query_terms(source)} <= found:
            words = spans.setdefault(source, [])
            if words and s < words[-1][1]:
                words[-1] = (words[-1][0], max(e, words[-1][1]))
            else:
                words.append((s, e))
    return {source: [text[s:e] for s, e in words] for source, words in spans.items()}


def _matches(
    text: str,
    terms: list[Term],
    weights: dict[str, float],
    bridged: dict[str, float] | None,
    sources: dict[str, str],
) -> tuple[list[tuple[int, int]], int, dict[str, Any]]:
    """Where the terms occur in ``text`` (merged highlight spans), where its best window starts
    (``focus``), and what ``why`` says of them."""
    occurrences = term_spans(text, terms)
    highlights = highlight_spans(occurrences)
    found = {term for _, _, term in occurrences}
    why: dict[str, Any] = {"keyword_coverage": _coverage(found, weights)}
    if bridged:
        why["bridge_coverage"] = _coverage(found, bridged)
    why["matched_terms"] = sorted({text[s:e] for s, e in highlights}, key=str.casefold)
    translated = _translations(text, occurrences, sources)
    if translated:
        why["translated_terms"] = translated
    return highlights, focus(text, occurrences, weights | (bridged or {})), why


def assemble(
    conn: Connection,
    candidates: list[Candidate],
    terms: list[Term],
    weights: dict[str, float],
    k: int,
    bridged: dict[str, float] | None = None,
    sources: dict[str, str] | None = None,
) -> list[SearchResult]:
    """The first ``k`` distinct passages of ``candidates``, highlighted, with ``why`` filled in.

    ``why["keyword_coverage"]`` is the share of the query's IDF weight that the passage contains,
    ``why["bridge_coverage"]`` the same for the question's terms bridged into the library's other
    language (``crossing``). The relevance decision uses them to tell a passage that matches the
    question from one that shares a single common word with it. ``why["translated_terms"]`` says
    which words of the passage were found for which word of the question (``sources`` maps each
    bridged term to the word it translates), so a user sees that "seal" answered 密封.
    """
    groups = _group(conn, candidates, k)
    page_keys = {
        (r.doc_id, p) for _, members in groups for r in members for p in range(r.page_start, r.page_end + 1)
    }
    numbers = passages.page_numbers(conn, page_keys)
    from_ocr = ocr_pages.done_pages(conn, {(doc, number) for (doc, _), number in numbers.items() if number})
    results: list[SearchResult] = []
    for rank, (cand, members) in enumerate(groups, start=1):
        first = members[0]
        text, start, end = _span(conn, members)
        highlights, at, matched = _matches(text, terms, weights, bridged, sources or {})
        page_index = _cited_page(conn, first, at)
        why = cand.why | matched
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
                focus=at,
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
