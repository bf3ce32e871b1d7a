"""Assembling a ``Page`` from typed pieces so offsets are correct by construction.

Readers never compute offsets themselves: they hand cleaned-up pieces to ``PageBuilder``, which
appends them with a blank line between blocks and records each block's span. That keeps the
``page.text[block.start:block.end]`` invariant in one place.
"""

from __future__ import annotations

from collections.abc import Sequence

from kbapp.ingest.document import Block, BlockKind, Page
from kbapp.ingest.textnorm import clean_text, collapse_spaces, tidy_lines

BLOCK_SEPARATOR = "\n\n"
CELL_SEPARATOR = " | "


class PageBuilder:
    """Collects blocks for one page; ``build()`` returns the finished ``Page``."""

    def __init__(self, number: int | None) -> None:
        self.number = number
        self._parts: list[str] = []
        self._blocks: list[Block] = []
        self._length = 0

    @property
    def is_empty(self) -> bool:
        return not self._blocks

    def add(self, kind: BlockKind, text: str, level: int = 0) -> None:
        """Append a heading, text or code block; pieces that clean up to nothing are skipped."""
        text = clean_text(text)
        if kind is BlockKind.HEADING:
            text = collapse_spaces(text)
        elif kind is BlockKind.CODE:
            text = "\n".join(line.rstrip() for line in text.strip("\n").split("\n"))
        else:
            text = tidy_lines(text).strip()
        if not text.strip():
            return
        heading_level = min(max(level, 1), 6) if kind is BlockKind.HEADING else 0
        start = self._append(text)
        self._blocks.append(Block(kind, start, self._length, level=heading_level))

    def add_table(self, rows: Sequence[Sequence[str]], header_rows: int = 1) -> None:
        """Append a table as one line per row, cells joined by `` | ``.

        Rows without any text are dropped. ``header_rows`` leading rows become the header the
        chunker repeats; a one-row table has no header because there is nothing to repeat it for.
        """
        lines = []
        header_lines = 0
        for index, row in enumerate(rows):
            cells = [collapse_spaces(clean_text(cell)) for cell in row]
            if not any(cells):
                continue
            lines.append(CELL_SEPARATOR.join(cells).rstrip())
            if index < header_rows:
                header_lines = len(lines)
        if not lines:
            return
        header_lines = min(header_lines, len(lines) - 1)
        start = self._append("\n".join(lines))
        header_end = start + len("\n".join(lines[:header_lines])) if header_lines else None
        self._blocks.append(Block(BlockKind.TABLE, start, self._length, header_end=header_end))

    def build(self) -> Page:
        return Page(number=self.number, text="".join(self._parts), blocks=list(self._blocks))

    def _append(self, text: str) -> int:
        if self._parts:
            self._parts.append(BLOCK_SEPARATOR)
            self._length += len(BLOCK_SEPARATOR)
        start = self._length
        self._parts.append(text)
        self._length += len(text)
        return start
