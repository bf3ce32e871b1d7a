"""Passage sizes read off the page's tokenization, checked against the model's own tokenizer."""

from __future__ import annotations

import pytest

from kbapp.chunking import ChunkingConfig, chunk_document
from kbapp.embedding.budget import counter_for
from kbapp.embedding.pack import ModelPack
from kbapp.embedding.tokens import load_tokenizer
from kbapp.ingest.document import Block, BlockKind, Page, ParsedDocument

SENTENCES = (
    "Set the exposure time (曝光时间) before the first frame; the default is 20 ms.",
    "If error E5021 appears, the XK-200 sensor overheated: let it cool for ten minutes.",
    "复位按钮在控制器背面，按住三秒钟即可恢复出厂设置。",
    "The CAN bus timeout is configured in milliseconds, between 10 and 5000.",
    "端口 8080 用于网页界面，端口 502 用于 Modbus TCP 通信。",
)


def _page(number: int, blocks: list[tuple[BlockKind, str]]) -> Page:
    text, spans = "", []
    for kind, body in blocks:
        text += "\n\n" if text else ""
        start = len(text)
        text += body
        header_end = start + body.index("\n") + 1 if kind is BlockKind.TABLE else None
        level = 1 if kind is BlockKind.HEADING else 0
        spans.append(Block(kind, start, len(text), level=level, header_end=header_end))
    return Page(number, text, spans)


def _manual() -> ParsedDocument:
    pages = []
    for number in range(1, 7):
        prose = " ".join(SENTENCES[(number + i) % len(SENTENCES)] for i in range(12 * number))
        rows = "\n".join(
            f"E{5000 + i} | 传感器 {i} 需要维修 | Sensor {i} needs service" for i in range(40 * number)
        )
        blocks = [
            (BlockKind.HEADING, f"{number}. 故障排除 Troubleshooting part {number}"),
            (BlockKind.TEXT, prose),
            (BlockKind.TABLE, "Code | 说明 | Meaning\n" + rows),
            (BlockKind.TEXT, prose[: 40 * number]),
        ]
        pages.append(_page(number, blocks))
    return ParsedDocument("manual", "pdf", pages, len(pages))


@pytest.mark.parametrize(
    "config",
    [ChunkingConfig(), ChunkingConfig(target_tokens=40, unit_max_tokens=45, max_tokens=48, overlap_tokens=4)],
    ids=["default", "tight"],  # tight: many passages end up within a few tokens of the max
)
def test_passage_sizes_are_within_a_token_and_never_over_the_max(
    default_pack: ModelPack, config: ChunkingConfig
) -> None:
    count = counter_for(load_tokenizer(default_pack.tokenizer_path))
    chunks = chunk_document(_manual(), count, config)
    assert len(chunks) > 20
    assert any(chunk.prefix for chunk in chunks)  # split tables repeat their header
    for chunk in chunks:
        exact = count(chunk.text)
        assert exact <= config.max_tokens
        assert abs(chunk.tokens - exact) <= 1, (chunk.tokens, exact, chunk.text[:80])
