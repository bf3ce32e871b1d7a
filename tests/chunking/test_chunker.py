"""Chunker properties (hypothesis) and structural behaviour on hand-built documents."""

from __future__ import annotations

import itertools
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbapp.chunking import ChunkingConfig, chunk_document
from kbapp.chunking.chunker import span_text
from kbapp.chunking.estimate import estimate_tokens
from kbapp.ingest.document import Block, BlockKind, Page, ParsedDocument

CFG = ChunkingConfig()


def doc_from_pages(pages: list[list[tuple[BlockKind, str]]]) -> ParsedDocument:
    out = []
    for number, blocks in enumerate(pages, start=1):
        text, spans = "", []
        for kind, body in blocks:
            if text:
                text += "\n\n"
            start = len(text)
            text += body
            header_end = None
            if kind is BlockKind.TABLE and "\n" in body:
                header_end = start + body.index("\n") + 1
            spans.append(
                Block(
                    kind, start, len(text), level=1 if kind is BlockKind.HEADING else 0, header_end=header_end
                )
            )
        out.append(Page(number, text, spans))
    return ParsedDocument("t", "pdf", out, len(out))


def covered(doc: ParsedDocument, chunks) -> None:  # type: ignore[no-untyped-def]
    marks = [bytearray(len(p.text)) for p in doc.pages]
    for c in chunks:
        for pi in range(c.page_start, c.page_end + 1):
            s = c.char_start if pi == c.page_start else 0
            e = c.char_end if pi == c.page_end else len(doc.pages[pi].text)
            marks[pi][s:e] = b"\x01" * (e - s)
    for pi, page in enumerate(doc.pages):
        for b in page.blocks:
            for i in range(b.start, b.end):
                if not page.text[i].isspace():
                    assert marks[pi][i], f"char {page.text[i]!r} at page {pi} offset {i} lost"


WORDS = st.sampled_from(
    [
        "exposure",
        "time",
        "曝光时间",
        "图像偏暗",
        "E5021",
        "XK-200",
        "trigger",
        "mode",
        "。",
        "，",
        ".",
        ",",
        "the",
        "设置",
        "\n",
        "\n\n",
        "参数",
        "voltage",
        "12V",
        "；",
        "!",
        "?",
        "a" * 30,
        "长" * 40,
    ]
)
TEXT = st.lists(WORDS, min_size=1, max_size=400).map(lambda ws: " ".join(ws)).filter(lambda t: t.strip())
BLOCK = st.tuples(st.sampled_from([BlockKind.TEXT, BlockKind.HEADING, BlockKind.TEXT, BlockKind.CODE]), TEXT)
TABLE = (
    st.lists(st.lists(WORDS, min_size=1, max_size=6).map(" | ".join), min_size=2, max_size=120)
    .map(lambda rows: (BlockKind.TABLE, "\n".join(rows)))
    .filter(lambda b: b[1].strip())
)
PAGES = st.lists(st.lists(st.one_of(BLOCK, BLOCK, TABLE), min_size=1, max_size=6), min_size=1, max_size=4)
CONFIGS = st.builds(
    lambda target, extra, overlap, small: ChunkingConfig(
        target_tokens=target,
        unit_max_tokens=target + extra // 2,
        max_tokens=target + extra,
        overlap_tokens=overlap,
        min_tokens=min(small, target),
    ),
    st.integers(5, 300),
    st.integers(0, 200),
    st.integers(0, 1000),
    st.integers(1, 30),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pages=PAGES, cfg=CONFIGS)
def test_chunker_properties(pages, cfg) -> None:  # type: ignore[no-untyped-def]
    doc = doc_from_pages(pages)
    chunks = chunk_document(doc, estimate_tokens, cfg)
    covered(doc, chunks)
    for c in chunks:
        assert estimate_tokens(c.text) <= cfg.max_tokens
        assert c.text == c.prefix + span_text(doc.pages, c.page_start, c.char_start, c.page_end, c.char_end)
        assert "\ufffd" not in c.text
        c.text.encode("utf-8")  # no lone surrogates
        assert c.text.strip()
    assert [c.order for c in chunks] == list(range(len(chunks)))


def test_overlap_larger_than_chunk_terminates() -> None:
    doc = doc_from_pages([[(BlockKind.TEXT, "word " * 5000)]])
    cfg = ChunkingConfig(
        target_tokens=50, unit_max_tokens=50, max_tokens=60, overlap_tokens=10_000, min_tokens=5
    )
    chunks = chunk_document(doc, estimate_tokens, cfg)
    assert 100 <= len(chunks) <= 5000
    covered(doc, chunks)


def test_long_text_gets_target_sized_overlapping_chunks() -> None:
    sentences = [f"Sentence number {i} explains how the trigger mode of XK-200 works." for i in range(400)]
    doc = doc_from_pages([[(BlockKind.TEXT, " ".join(sentences))]])
    chunks = chunk_document(doc, estimate_tokens, CFG)
    sizes = [c.tokens for c in chunks]
    assert all(200 <= s <= 350 for s in sizes[:-1]), sizes
    for a, b in itertools.pairwise(chunks):
        overlap = a.char_end - b.char_start
        assert overlap > 0, "consecutive chunks of one long section overlap"
        share = estimate_tokens(doc.pages[0].text[b.char_start : a.char_end]) / a.tokens
        assert 0.05 <= share <= 0.2


def test_headings_give_paths_and_boundaries() -> None:
    doc = doc_from_pages(
        [
            [
                (BlockKind.HEADING, "Chapter 3 Camera"),
                (BlockKind.TEXT, "Intro text about the camera. " * 10),
                (BlockKind.HEADING, "3.2 Trigger mode"),
                (BlockKind.TEXT, "The trigger mode selects the source. " * 10),
            ]
        ]
    )
    blocks = doc.pages[0].blocks
    blocks[2] = Block(BlockKind.HEADING, blocks[2].start, blocks[2].end, level=2)
    chunks = chunk_document(doc, estimate_tokens, CFG)
    assert [c.heading for c in chunks] == ["Chapter 3 Camera", "Chapter 3 Camera > 3.2 Trigger mode"]
    assert chunks[1].text.startswith("3.2 Trigger mode")


def test_small_fragments_merge_and_pages_are_kept() -> None:
    doc = doc_from_pages(
        [
            [(BlockKind.TEXT, "Short.")],
            [
                (
                    BlockKind.TEXT,
                    "A longer paragraph on the second page that easily passes the minimum size " * 3,
                )
            ],
        ]
    )
    chunks = chunk_document(doc, estimate_tokens, CFG)
    assert len(chunks) == 1
    assert (chunks[0].page_start, chunks[0].page_end) == (0, 1)
    assert chunks[0].text.startswith("Short.\n")


def test_table_kept_whole_when_it_fits_and_split_with_header_otherwise() -> None:
    small = "Code | Meaning\nE5021 | Exposure too long\nE5022 | Sensor overheated"
    doc = doc_from_pages([[(BlockKind.TABLE, small)]])
    [chunk] = chunk_document(doc, estimate_tokens, CFG)
    assert chunk.kind is BlockKind.TABLE and chunk.text == small
    rows = "\n".join(f"E{5000 + i} | Error number {i} means the sensor {i} needs service" for i in range(300))
    big = "Code | Meaning\n" + rows
    doc = doc_from_pages([[(BlockKind.TABLE, big)]])
    chunks = chunk_document(doc, estimate_tokens, CFG)
    assert len(chunks) > 3
    for c in chunks:
        assert c.text.startswith("Code | Meaning\n")
        assert all(re.fullmatch(r"E\d+ \| .*", line) for line in c.text.splitlines()[1:])
        assert c.tokens <= CFG.max_tokens
    body_rows = [line for c in chunks for line in c.text.splitlines()[1:]]
    assert body_rows == rows.splitlines()


def test_unbroken_cjk_run_is_cut_by_characters() -> None:
    doc = doc_from_pages([[(BlockKind.TEXT, "曝" * 3000)]])
    chunks = chunk_document(doc, estimate_tokens, CFG)
    assert all(c.tokens <= CFG.max_tokens for c in chunks)
    covered(doc, chunks)


def test_a_page_read_alone_continues_the_heading_path_it_starts_in() -> None:
    """An OCR'd page is chunked on its own: passages before its first heading carry the path the
    page before ended in, and a heading closes only the levels its number says it closes."""
    before = "The SM83 interrupt table contains 31 entries and each names its handler. " * 3
    after = "Interrupts can also be disabled and enabled directly on the 8051. " * 3
    text = f"{before}\n\n3.8.7 STM8 Routines\n\n{after}"
    heading_start = text.index("3.8.7")
    blocks = [
        Block(BlockKind.TEXT, 0, len(before)),
        Block(BlockKind.HEADING, heading_start, heading_start + len("3.8.7 STM8 Routines"), level=3),
        Block(BlockKind.TEXT, text.index("Interrupts"), len(text)),
    ]
    doc = ParsedDocument("t", "pdf", [Page(51, text, blocks)], 1)
    context = ["Using SDCC", "3.8.6 SM83 Routines"]  # no "3.8" heading between them
    chunks = chunk_document(doc, estimate_tokens, ChunkingConfig(target_tokens=30, min_tokens=5), context)
    assert chunks[0].heading == "Using SDCC > 3.8.6 SM83 Routines"
    assert chunks[-1].heading == "Using SDCC > 3.8.7 STM8 Routines"
