"""What a search returns: ranked, cited, highlighted passages that say why they matched."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(slots=True)
class SearchResult:
    rank: int
    citation: int
    doc_id: int
    path: str
    title: str
    page: int | None  # 1-based physical page; None for formats without pages
    page_end: int | None
    heading: str | None
    text: str
    highlights: list[tuple[int, int]]
    score: float
    why: dict[str, Any]
    chunk_ids: list[int] = field(default_factory=list)
    # Where ``text`` comes from: text == prefix + pages[page_index].text[char_start:] … up to
    # pages[page_end_index].text[:char_end] (pages joined by "\n"); prefix is a repeated table header.
    page_index: int = 0
    page_end_index: int = 0
    prefix_len: int = 0
    char_start: int = 0
    char_end: int = 0

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["highlights"] = [list(span) for span in self.highlights]
        data["doc_id"] = str(self.doc_id)
        return data


@dataclass(slots=True)
class SearchResponse:
    query: str
    mode: str
    results: list[SearchResult]
    message: str | None = None  # e.g. why nothing came back, or that dense search fell back
    took_ms: float = 0.0
