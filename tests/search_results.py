"""A search result made in a test, for code that reads results (formatting, the relevance
decision) without running a search."""

from __future__ import annotations

from kbapp.contract import SearchResult


def result(text: str, highlights: list[tuple[int, int]], **fields: object) -> SearchResult:
    values: dict[str, object] = dict(
        rank=1,
        citation=1,
        doc_id=1,
        path="/m/camera.pdf",
        title="Camera <XK-200>",
        page=3,
        page_end=3,
        heading="Chapter 3 > 3.1 Exposure",
        text=text,
        highlights=highlights,
        score=2.0,
        why={"lexical_rank": 1, "bm25": 2.0, "matched_terms": ["exposure"]},
        char_start=0,
        char_end=len(text),
    )
    values.update(fields)
    return SearchResult(**values)  # type: ignore[arg-type]
