"""A scanned table is read as rows of cells under its header, as its text layer would be, and what
only looks like one (two-column text, a back-of-book index, a line of code beside its comment, a
label beside its value) stays as it was. Lines are built directly (no model), at 150 dpi proportions:
a text line 26 px high, 40 px apart."""

from __future__ import annotations

import json
from collections.abc import Sequence

from kbapp.ingest.document import BlockKind
from kbapp.ocr.engine import Line, OcrPage
from kbapp.ocr.geometry import Box
from kbapp.ocr.page_text import page_from_lines
from kbapp.search.pointers import is_pointer

VECTORS = [
    ("Interrupt #", "Description", "Vector Address"),
    ("0", "External 0", "0x0003"),
    ("1", "Timer 0", "0x000b"),
    ("2", "External 1", "0x0013"),
]
COLUMNS = (100, 400, 700)


def _line(text: str, x0: float, y: float, char: float = 12.0) -> Line:
    return Line(
        text,
        Box(x0, y, x0 + char * len(text), y + 26),
        0.99,
        tuple(x0 + char * i for i in range(len(text) + 1)),
    )


def _grid(
    rows: Sequence[tuple[str, ...]], top: float = 200, columns: tuple[float, ...] = COLUMNS
) -> list[Line]:
    return [
        _line(cell, x, top + 40 * number)
        for number, row in enumerate(rows)
        for cell, x in zip(row, columns, strict=False)
        if cell
    ]


def _prose(text: str, y: float) -> Line:
    """A line of running text across the page's full text width (100 to 1150 px)."""
    return Line(text, Box(100, y, 1150, y + 26), 0.99, ())


def _page(lines: list[Line]) -> tuple[str, list[tuple[BlockKind, str, str | None]], str]:
    page, stored = page_from_lines(1, OcrPage(1275, 1650, lines))
    blocks = [
        (b.kind, page.text[b.start : b.end], page.text[b.start : b.header_end] if b.header_end else None)
        for b in page.blocks
    ]
    return page.text, blocks, stored


def test_a_scanned_table_reads_as_rows_of_cells_under_its_header() -> None:
    lines = [_prose("The vector of each interrupt is listed below, one row per source:", 120)]
    lines += _grid(VECTORS)
    lines += [_prose("Each vector holds a jump to the service routine of its interrupt.", 400)]
    text, blocks, stored = _page(lines)
    assert blocks[1] == (
        BlockKind.TABLE,
        "Interrupt # | Description | Vector Address\n"
        "0 | External 0 | 0x0003\n1 | Timer 0 | 0x000b\n2 | External 1 | 0x0013",
        "Interrupt # | Description | Vector Address",
    )
    assert [kind for kind, _, _ in blocks] == [BlockKind.TEXT, BlockKind.TABLE, BlockKind.TEXT]
    # The preview boxes matched words on the scan: every line's stored box still points at its text.
    for (start, length, x0, *_), line in zip(json.loads(stored), lines, strict=True):
        assert text[start : start + length] == line.text
        assert x0 == line.box.x0


def test_a_cell_wrapped_onto_a_second_line_stays_in_its_row() -> None:
    rows = [("Type", "Syntax", "Behaviour"), ("Nested", "void f(void) __interrupt", "Can be interrupted")]
    rows += [("", "", "by further interrupts"), ("Critical", "void f(void) __critical", "Is not interrupted")]
    _, [(kind, table, header)], _ = _page(_grid(rows, columns=(100, 400, 800)))
    assert kind is BlockKind.TABLE and header == "Type | Syntax | Behaviour"
    second = "Nested | void f(void) __interrupt | Can be interrupted by further interrupts"
    assert table.splitlines()[1] == second
    assert table.splitlines()[2].startswith("Critical |")


def test_a_sparse_row_keeps_its_empty_cells() -> None:
    _, [(kind, table, _)], _ = _page(_grid([*VECTORS, ("n", "", "0x0003 + 8*n")]))
    assert kind is BlockKind.TABLE and table.splitlines()[-1] == "n |  | 0x0003 + 8*n"


def test_a_paragraph_or_a_wide_gap_ends_the_table() -> None:
    after_gap = _grid([("3", "Timer 1", "0x001b")], top=200 + 40 * len(VECTORS) + 60)
    _, blocks, _ = _page(_grid(VECTORS) + after_gap)
    assert [kind for kind, _, _ in blocks] == [BlockKind.TABLE, BlockKind.TEXT]
    assert blocks[1][1] == "3\nTimer 1\n0x001b"
    spanning = [*_grid(VECTORS), _prose("A paragraph right under the table crosses every column.", 360)]
    _, blocks, _ = _page(spanning)
    assert [kind for kind, _, _ in blocks] == [BlockKind.TABLE, BlockKind.TEXT]


def test_two_column_running_text_is_not_a_table() -> None:
    """Each line of a column spans nearly half the text width; no header label is that wide."""
    left = ["Drain the gearbox oil every", "500 hours and refill it with", "the grade on the nameplate"]
    right = ["Align the conveyor rollers", "with a laser level before the", "belt is put back under tension"]
    lines = []
    for row, (a, b) in enumerate(zip(left, right, strict=True)):
        lines += [_line(a, 100, 200 + 40 * row, char=17), _line(b, 660, 200 + 40 * row, char=17)]
    _, blocks, _ = _page(lines)
    assert BlockKind.TABLE not in [kind for kind, _, _ in blocks]


def test_a_two_column_index_stays_a_pointer_page() -> None:
    left = ["--code-loc, 36, 43", "--data-loc, 36", "--debug, 30, 33", "--disable-warning, 35"]
    left += ["--dump-ast, 38", "--float-reent, 34"]
    right = ["Absolute addressing, 44", "Aligned array, 45, 52", "asm, 51, 53", "Basic blocks, 125"]
    right += ["Binary constants, 46", "bit-fields, 41"]
    text, blocks, _ = _page(_grid(list(zip(left, right, strict=True)), columns=(100, 660)))
    assert BlockKind.TABLE not in [kind for kind, _, _ in blocks]
    assert is_pointer(text)


def test_code_beside_its_comments_is_not_a_table() -> None:
    rows = [
        ("extern volatile __bit MOSI;", "/* master out, slave in */"),
        ("extern volatile __bit MISO;", "/* master in, slave out */"),
        ("extern volatile __bit MCLK;", "/* master clock */"),
    ]
    _, blocks, _ = _page(_grid(rows, columns=(100, 800)))
    assert BlockKind.TABLE not in [kind for kind, _, _ in blocks]


def test_a_label_beside_its_value_is_not_a_table() -> None:
    """Two rows side by side: nothing to tell a table's header from a label with its value."""
    _, blocks, _ = _page(_grid([("Rated voltage", "Rated current"), ("24 V", "2 A")], columns=(100, 500)))
    assert BlockKind.TABLE not in [kind for kind, _, _ in blocks]
