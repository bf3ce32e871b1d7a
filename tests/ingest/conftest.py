"""Shared checks for reader tests: every ParsedDocument must honour the offset contract."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from kbapp.ingest.document import BlockKind, ParsedDocument

_WHITESPACE = re.compile(r"\s+")


def assert_well_formed(document: ParsedDocument) -> None:
    """Offsets valid, blocks ordered and non-overlapping, text clean, all text inside some block."""
    for page in document.pages:
        text = page.text
        assert "\ufffd" not in text and "\x00" not in text and "\r" not in text
        text.encode("utf-8")  # raises on lone surrogates
        assert page.blocks, "pages without blocks should not be returned"
        previous_end = 0
        for block in page.blocks:
            assert previous_end <= block.start < block.end <= len(text)
            piece = text[block.start : block.end]
            # Code keeps its indentation; everything else is trimmed.
            assert (piece.rstrip() if block.kind is BlockKind.CODE else piece.strip()) == piece
            assert piece.strip()
            if block.kind is BlockKind.HEADING:
                assert 1 <= block.level <= 6
                assert "\n" not in piece
            else:
                assert block.level == 0
            if block.header_end is not None:
                assert block.kind is BlockKind.TABLE
                assert block.start < block.header_end < block.end
                assert text[block.header_end] == "\n"
            previous_end = block.end
        covered = "".join(text[block.start : block.end] for block in page.blocks)
        assert _WHITESPACE.sub("", covered) == _WHITESPACE.sub("", text)


def blocks(document: ParsedDocument) -> list[tuple[str, int, str]]:
    """(kind, level, text) of every block, across pages."""
    return [
        (str(block.kind), block.level, page.text[block.start : block.end])
        for page in document.pages
        for block in page.blocks
    ]


@pytest.fixture
def well_formed() -> Callable[[ParsedDocument], None]:
    return assert_well_formed


@pytest.fixture
def block_list() -> Callable[[ParsedDocument], list[tuple[str, int, str]]]:
    return blocks
