"""Blocks → retrieval chunks, respecting headings, pages and tables before anything else.

A document is first cut into *units*: runs of blocks that share a page and a heading, with
every table and code block a unit of its own. A unit that fits the budget is a chunk. A longer
one is split by ``split_to_budget`` (paragraphs → sentences → … → characters) and packed back
into chunks near the target size, each overlapping the previous by about an eighth so a
sentence cut at a boundary is still whole in one of them. Long tables are split by rows with
the header row repeated. Finally fragments too small to stand alone (a lone heading, a stray
line at the top of a page) are merged into a neighbour.

Every chunk records where it came from — page range and code-point offsets into the page text —
and its text is exactly ``prefix + span_text(pages, ...)``, so the preview can highlight it.

Each page is tokenized once (``spans.span_counters``) and every size is read off those offsets,
which keeps chunking to about one tokenizer pass over the text and linear in its length. A span's
count can be a token off where it starts or ends inside a token (on the 5,768 passages of the
import benchmark's manual and mixed documents and of ``manuals_mixed_dev``'s two manuals: equal
for 97 %, one off for the rest, never more), so only a passage within ``_CUT_SLACK`` of the max
is counted exactly. Counting every finished passage exactly was half of chunking's time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from kbapp.chunking.spans import SpanCounter, TokenCounter, span_counters
from kbapp.chunking.splitter import split_to_budget
from kbapp.ingest.document import BlockKind, Page, ParsedDocument
from kbapp.text.numbering import section_level

_SPACE_RE = re.compile(r"\s+")
_CUT_SLACK = 4

HEADING_SEPARATOR = " > "  # between the levels of a passage's heading path


@dataclass(frozen=True, slots=True)
class ChunkingConfig:
    """Budgets in model tokens; defaults fit a 512-token encoder with room for a heading prefix."""

    target_tokens: int = 300
    unit_max_tokens: int = 350
    max_tokens: int = 480
    overlap_tokens: int = 36
    min_tokens: int = 20

    def __post_init__(self) -> None:
        if not 0 < self.min_tokens <= self.target_tokens <= self.max_tokens:
            raise ValueError("need 0 < min_tokens <= target_tokens <= max_tokens")


@dataclass(frozen=True, slots=True)
class Chunk:
    order: int
    text: str
    kind: BlockKind
    heading: str
    page_start: int  # index into ParsedDocument.pages
    char_start: int  # offset into pages[page_start].text
    page_end: int
    char_end: int  # offset into pages[page_end].text
    prefix: str  # repeated table header; text == prefix + span_text(...)
    tokens: int  # model tokens, read off the page's tokenization: can be one off (see the module doc)


def span_text(pages: list[Page], page_start: int, char_start: int, page_end: int, char_end: int) -> str:
    """The source text a chunk covers; pages are joined with a newline."""
    if page_start == page_end:
        return pages[page_start].text[char_start:char_end]
    parts = [pages[page_start].text[char_start:]]
    parts.extend(pages[i].text for i in range(page_start + 1, page_end))
    parts.append(pages[page_end].text[:char_end])
    return "\n".join(parts)


class _Spans:
    """Token counts of page spans, every page tokenized once, all together."""

    def __init__(self, pages: list[Page], count: TokenCounter) -> None:
        self._pages = pages
        self.count = count
        self._by_page = span_counters(count, [page.text for page in pages])
        self._prefixes: dict[str, int] = {}

    def page(self, index: int) -> SpanCounter:
        return self._by_page[index]

    def prefix(self, prefix: str) -> int:
        """Tokens of a heading prefix; the passages of a section share one."""
        if not prefix:
            return 0
        tokens = self._prefixes.get(prefix)
        if tokens is None:
            tokens = self._prefixes[prefix] = self.count(prefix)
        return tokens

    def between(self, page_start: int, char_start: int, page_end: int, char_end: int) -> int:
        if page_start == page_end:
            return self.page(page_start)(char_start, char_end)
        total = self.page(page_start)(char_start, len(self._pages[page_start].text))
        total += sum(self.page(i)(0, len(self._pages[i].text)) for i in range(page_start + 1, page_end))
        return total + self.page(page_end)(0, char_end)


@dataclass(slots=True)
class _Piece:
    page_start: int
    char_start: int
    page_end: int
    char_end: int
    tokens: int
    heading: str
    kind: BlockKind
    prefix: str = ""


@dataclass(slots=True)
class _Unit:
    page: int
    start: int
    end: int
    heading: str
    kind: BlockKind
    header_end: int | None = None


def _heading_label(text: str) -> str:
    return _SPACE_RE.sub(" ", text).strip()[:200]


def _context_stack(context: Sequence[str]) -> list[tuple[int, str]]:
    """Levels for a heading path kept as text: a printed section number's (``3.8`` is 2), else one
    below the heading before it."""
    stack: list[tuple[int, str]] = []
    for label in context:
        stack.append((section_level(label) or (stack[-1][0] + 1 if stack else 1), label))
    return stack


def _units(doc: ParsedDocument, context: Sequence[str]) -> list[_Unit]:
    units: list[_Unit] = []
    stack = _context_stack(context)
    for page_index, page in enumerate(doc.pages):
        open_unit: _Unit | None = None
        for block in page.blocks:
            if block.kind is BlockKind.HEADING:
                label = _heading_label(page.text[block.start : block.end])
                stack = [h for h in stack if h[0] < block.level]
                if label:
                    stack.append((block.level, label))
                open_unit = None
            heading = HEADING_SEPARATOR.join(label for _, label in stack)
            if block.kind in (BlockKind.TABLE, BlockKind.CODE):
                units.append(_Unit(page_index, block.start, block.end, heading, block.kind, block.header_end))
                open_unit = None
            elif open_unit is not None:
                open_unit.end = block.end
            else:
                open_unit = _Unit(page_index, block.start, block.end, heading, BlockKind.TEXT)
                units.append(open_unit)
    return [u for u in units if doc.pages[u.page].text[u.start : u.end].strip()]


def _pack(atoms: list[tuple[int, int, int]], target: int, overlap: int) -> list[tuple[int, int, int]]:
    """Greedy packing of tiled atoms into spans near ``target``, each overlapping the last.

    The next span always starts at least one atom later than the previous one, so this ends
    whatever ``overlap`` is set to.
    """
    spans: list[tuple[int, int, int]] = []
    i, n = 0, len(atoms)
    while i < n:
        j, total = i, 0
        while j < n and (j == i or total + atoms[j][2] <= target):
            total += atoms[j][2]
            j += 1
        spans.append((atoms[i][0], atoms[j - 1][1], total))
        if j >= n:
            break
        k, carried = j, 0
        while k - 1 > i and carried + atoms[k - 1][2] <= overlap:
            k -= 1
            carried += atoms[k][2]
        i = k
    return spans


def _text_pieces(unit: _Unit, text: str, cfg: ChunkingConfig, spans: _Spans) -> list[_Piece]:
    count = spans.page(unit.page)
    tokens = count(unit.start, unit.end)
    if tokens <= cfg.unit_max_tokens:
        return [_Piece(unit.page, unit.start, unit.page, unit.end, tokens, unit.heading, unit.kind)]
    atoms = split_to_budget(text, unit.start, unit.end, cfg.target_tokens, count)
    return [
        _Piece(unit.page, s, unit.page, e, t, unit.heading, unit.kind)
        for s, e, t in _pack(atoms, cfg.target_tokens, cfg.overlap_tokens)
    ]


def _table_pieces(unit: _Unit, text: str, cfg: ChunkingConfig, spans: _Spans) -> list[_Piece]:
    count = spans.page(unit.page)
    tokens = count(unit.start, unit.end)
    header_end = unit.header_end
    if tokens <= cfg.max_tokens or header_end is None or not unit.start < header_end < unit.end:
        if tokens <= cfg.max_tokens:
            return [_Piece(unit.page, unit.start, unit.page, unit.end, tokens, unit.heading, unit.kind)]
        return _text_pieces(replace(unit, kind=BlockKind.TABLE), text, cfg, spans)
    header = text[unit.start : header_end].rstrip("\n")
    header_tokens = spans.count(header)
    if header_tokens > cfg.target_tokens // 2:  # a header that big cannot be repeated; split as text
        return _text_pieces(replace(unit, kind=BlockKind.TABLE), text, cfg, spans)
    budget = cfg.target_tokens - header_tokens
    atoms = split_to_budget(text, header_end, unit.end, budget, count, level=1)  # rows are lines
    pieces: list[_Piece] = []
    for s, e, t in _pack(atoms, budget, 0):
        if not pieces:
            pieces.append(
                _Piece(unit.page, unit.start, unit.page, e, t + header_tokens, unit.heading, unit.kind)
            )
        else:
            pieces.append(
                _Piece(unit.page, s, unit.page, e, t + header_tokens, unit.heading, unit.kind, header + "\n")
            )
    return pieces


def _merge_small(pieces: list[_Piece], cfg: ChunkingConfig, spans: _Spans) -> list[_Piece]:
    """Fold fragments under ``min_tokens`` into the following piece, or else the preceding one."""

    def joined(a: _Piece, b: _Piece) -> _Piece | None:
        if b.prefix:
            return None
        tokens = spans.prefix(a.prefix) + spans.between(a.page_start, a.char_start, b.page_end, b.char_end)
        if tokens > cfg.max_tokens:
            return None
        main = a if a.tokens > b.tokens else b
        return _Piece(
            a.page_start, a.char_start, b.page_end, b.char_end, tokens, main.heading, main.kind, a.prefix
        )

    out: list[_Piece] = []
    i = 0
    while i < len(pieces):
        piece = pieces[i]
        if piece.tokens < cfg.min_tokens and i + 1 < len(pieces):
            merged = joined(piece, pieces[i + 1])
            if merged is not None:
                pieces[i + 1] = merged
                i += 1
                continue
        if piece.tokens < cfg.min_tokens and out:
            merged = joined(out[-1], piece)
            if merged is not None:
                out[-1] = merged
                i += 1
                continue
        out.append(piece)
        i += 1
    return out


def _pack_neighbours(pieces: list[_Piece], cfg: ChunkingConfig, spans: _Spans) -> list[_Piece]:
    """Join consecutive small pieces of one section on one page (a paragraph and the code example
    after it) while they fit the target: a passage should read as a whole, not as one line."""
    out: list[_Piece] = []
    for piece in pieces:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.page_end == piece.page_start == piece.page_end
            and prev.heading == piece.heading
            and BlockKind.TABLE not in (prev.kind, piece.kind)
            and not piece.prefix
            and prev.tokens + piece.tokens <= cfg.target_tokens
            and prev.char_end <= piece.char_start
        ):
            tokens = spans.prefix(prev.prefix) + spans.between(
                prev.page_start, prev.char_start, piece.page_end, piece.char_end
            )
            if tokens <= cfg.target_tokens:
                kind = prev.kind if prev.tokens >= piece.tokens else piece.kind
                out[-1] = replace(
                    prev, page_end=piece.page_end, char_end=piece.char_end, tokens=tokens, kind=kind
                )
                continue
        out.append(piece)
    return out


def _trim(piece: _Piece, pages: list[Page]) -> _Piece:
    start_text = pages[piece.page_start].text
    end_text = pages[piece.page_end].text
    s, e = piece.char_start, piece.char_end
    while s < len(start_text) and start_text[s].isspace() and (piece.page_start != piece.page_end or s < e):
        s += 1
    while e > 0 and end_text[e - 1].isspace() and (piece.page_start != piece.page_end or e > s):
        e -= 1
    return replace(piece, char_start=s, char_end=e)


def _enforce_max(piece: _Piece, pages: list[Page], cfg: ChunkingConfig, spans: _Spans) -> list[_Piece]:
    """A passage whose span count is within ``_CUT_SLACK`` of the max is counted exactly, and cut
    again if it is over."""
    tokens = spans.prefix(piece.prefix) + spans.between(
        piece.page_start, piece.char_start, piece.page_end, piece.char_end
    )
    if tokens + _CUT_SLACK <= cfg.max_tokens:
        return [replace(piece, tokens=tokens)]
    text = piece.prefix + span_text(pages, piece.page_start, piece.char_start, piece.page_end, piece.char_end)
    tokens = spans.count(text)
    if tokens <= cfg.max_tokens:
        return [replace(piece, tokens=tokens)]
    if piece.page_start != piece.page_end:
        left = _Piece(
            piece.page_start,
            piece.char_start,
            piece.page_start,
            len(pages[piece.page_start].text),
            0,
            piece.heading,
            piece.kind,
            piece.prefix,
        )
        right = _Piece(piece.page_start + 1, 0, piece.page_end, piece.char_end, 0, piece.heading, piece.kind)
        return _enforce_max(left, pages, cfg, spans) + _enforce_max(right, pages, cfg, spans)
    page_text = pages[piece.page_start].text
    # A few tokens of slack: a cut inside a word can tokenize into more pieces than the span showed.
    budget = cfg.max_tokens - spans.prefix(piece.prefix) - _CUT_SLACK
    parts = split_to_budget(page_text, piece.char_start, piece.char_end, budget, spans.page(piece.page_start))
    return [
        replace(piece, char_start=s, char_end=e, tokens=spans.count(piece.prefix + page_text[s:e]))
        for s, e, _ in parts
    ]


def chunk_document(
    doc: ParsedDocument, count: TokenCounter, cfg: ChunkingConfig | None = None, context: Sequence[str] = ()
) -> list[Chunk]:
    """``context`` is the heading path in force where ``doc`` starts, outermost first: a single page
    read on its own (an OCR'd page) continues the section the page before it ended in. A heading
    of the page closes those at its level and below (levels from ``_context_stack``)."""
    cfg = cfg or ChunkingConfig()
    spans = _Spans(doc.pages, count)
    pieces: list[_Piece] = []
    for unit in _units(doc, context):
        text = doc.pages[unit.page].text
        if unit.kind is BlockKind.TABLE:
            pieces.extend(_table_pieces(unit, text, cfg, spans))
        else:
            pieces.extend(_text_pieces(unit, text, cfg, spans))
    pieces = _merge_small(_pack_neighbours(pieces, cfg, spans), cfg, spans)
    chunks: list[Chunk] = []
    for piece in pieces:
        for part in _enforce_max(_trim(piece, doc.pages), doc.pages, cfg, spans):
            body = span_text(doc.pages, part.page_start, part.char_start, part.page_end, part.char_end)
            if not body.strip():
                continue
            chunks.append(
                Chunk(
                    order=len(chunks),
                    text=part.prefix + body,
                    kind=part.kind,
                    heading=part.heading,
                    page_start=part.page_start,
                    char_start=part.char_start,
                    page_end=part.page_end,
                    char_end=part.char_end,
                    prefix=part.prefix,
                    tokens=part.tokens,
                )
            )
    return chunks
