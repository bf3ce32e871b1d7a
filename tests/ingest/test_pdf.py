"""PDF reader tests on PDFs generated with PyMuPDF, plus a smoke test on the real SDCC manual."""

from __future__ import annotations

import time
from pathlib import Path

import pymupdf
import pytest

from kbapp.ingest import IngestError, IngestErrorKind, parse_file
from kbapp.ingest.document import BlockKind

WIDTH, HEIGHT = 595, 842
LEFT_COLUMN = (
    "Alpha column text describes the left side procedure in detail. The operator checks the valve, "
    "records the pressure and confirms the seal before continuing with the next inspection step. "
) * 3
RIGHT_COLUMN = (
    "Omega column text describes the right side procedure in detail. The technician replaces the "
    "filter, cleans the housing and verifies the flow rate against the specification table. "
) * 3
BODY = "The pump must be isolated and drained before any maintenance work starts on the unit."
SDCC_MANUAL = Path(__file__).resolve().parents[3] / "shared/eval/manuals_pdf_dev/docs/sdccman.pdf"


def new_page(doc: pymupdf.Document, furniture: bool = True) -> pymupdf.Page:
    """A page with the running header and the page-number footer every manual has."""
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    if furniture:
        page.insert_text((50, 30), "ACME Field Manual - Model X200", fontsize=9, fontname="helv")
        page.insert_text((280, 825), f"Page {page.number + 1}", fontsize=9, fontname="helv")
    return page


def ruled_table(page: pymupdf.Page, top: float, rows: list[list[str]]) -> None:
    xs = [50, 200, 350, 500]
    ys = [top + 20 * index for index in range(len(rows) + 1)]
    for x in xs:
        page.draw_line((x, ys[0]), (x, ys[-1]))
    for y in ys:
        page.draw_line((xs[0], y), (xs[-1], y))
    for row_index, row in enumerate(rows):
        for col_index, text in enumerate(row):
            page.insert_text((xs[col_index] + 4, ys[row_index] + 14), text, fontsize=10, fontname="helv")


def image_only_page(doc: pymupdf.Document) -> None:
    """What a scanner produces: one page-sized picture and no text."""
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 60, 80), False)
    pixmap.clear_with(200)
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    page.insert_image(page.rect, pixmap=pixmap)


def save(doc: pymupdf.Document, path: Path, **options: object) -> Path:
    doc.save(path, **options)
    doc.close()
    return path


@pytest.fixture
def manual_pdf(tmp_path: Path) -> Path:
    doc = pymupdf.open()
    page = new_page(doc)
    page.insert_text((50, 100), "Pump Maintenance", fontsize=20, fontname="hebo")
    page.insert_textbox(
        pymupdf.Rect(50, 130, 280, 700),
        LEFT_COLUMN,
        fontsize=10,
        fontname="helv",
        align=pymupdf.TEXT_ALIGN_JUSTIFY,
    )
    page.insert_textbox(
        pymupdf.Rect(315, 130, 545, 700),
        RIGHT_COLUMN,
        fontsize=10,
        fontname="helv",
        align=pymupdf.TEXT_ALIGN_JUSTIFY,
    )
    page = new_page(doc)
    page.insert_text((50, 100), "Safety Notes", fontsize=14, fontname="hebo")
    page.insert_text((50, 130), "This is an exam-", fontsize=10, fontname="helv")
    page.insert_text(
        (50, 142), "ple of a hyphenated line break in the paragraph.", fontsize=10, fontname="helv"
    )
    page.insert_text((50, 180), "安全说明：维修前必须关闭", fontsize=10, fontname="china-s")
    page.insert_text((50, 192), "电源并释放管道压力。", fontsize=10, fontname="china-s")
    page = new_page(doc)
    page.insert_text((50, 100), "Torque Table", fontsize=14, fontname="hebo")
    ruled_table(page, 120, [["Bolt", "Torque", "Unit"], ["M6", "10", "Nm"], ["M8", "25", "Nm"]])
    page.insert_text((50, 220), "Tighten the bolts crosswise in two passes.", fontsize=10, fontname="helv")
    page = new_page(doc)
    page.insert_text((50, 100), "Commands", fontsize=14, fontname="hebo")
    page.insert_text((50, 130), "Run the following on the controller:", fontsize=10, fontname="helv")
    page.insert_text((50, 150), "set pump on", fontsize=10, fontname="cour")
    page.insert_text((74, 162), "wait 5", fontsize=10, fontname="cour")
    doc.set_toc(
        [[1, "Pump Maintenance", 1], [2, "Safety Notes", 2], [2, "Torque Table", 3], [2, "Commands", 4]]
    )
    return save(doc, tmp_path / "manual.pdf")


def test_manual_is_well_formed_with_physical_page_numbers(manual_pdf: Path, well_formed) -> None:
    document = parse_file(manual_pdf)
    well_formed(document)
    assert document.doc_type == "pdf"
    assert document.page_count == 4
    assert [page.number for page in document.pages] == [1, 2, 3, 4]
    assert document.warnings == []
    assert document.title == "Pump Maintenance"


def test_headings_take_levels_from_the_outline(manual_pdf: Path, block_list) -> None:
    headings = [
        (level, text) for kind, level, text in block_list(parse_file(manual_pdf)) if kind == "heading"
    ]
    assert headings == [(1, "Pump Maintenance"), (2, "Safety Notes"), (2, "Torque Table"), (2, "Commands")]


def test_two_columns_are_read_left_column_first(manual_pdf: Path) -> None:
    text = parse_file(manual_pdf).pages[0].text
    assert text.count("Alpha column") == 3 and text.count("Omega column") == 3
    assert text.rindex("Alpha column") < text.index("Omega column")


def test_running_header_and_footer_are_removed(manual_pdf: Path) -> None:
    for page in parse_file(manual_pdf).pages:
        assert "ACME Field Manual" not in page.text
        assert "Page " not in page.text


def test_hyphenation_is_undone_and_cjk_lines_join_without_space(manual_pdf: Path) -> None:
    text = parse_file(manual_pdf).pages[1].text
    assert "This is an example of a hyphenated line break" in text
    assert "安全说明：维修前必须关闭电源并释放管道压力。" in text


def test_ruled_table_becomes_one_table_block_with_header(manual_pdf: Path) -> None:
    page = parse_file(manual_pdf).pages[2]
    tables = [block for block in page.blocks if block.kind is BlockKind.TABLE]
    assert len(tables) == 1
    table = tables[0]
    assert page.text[table.start : table.end] == "Bolt | Torque | Unit\nM6 | 10 | Nm\nM8 | 25 | Nm"
    assert page.text[table.start : table.header_end] == "Bolt | Torque | Unit"
    assert page.text.count("M8") == 1, "cell text must not be repeated outside the table"
    kinds = [block.kind for block in page.blocks]
    assert kinds == [BlockKind.HEADING, BlockKind.TABLE, BlockKind.TEXT]


def test_monospaced_lines_become_code_with_indentation(manual_pdf: Path) -> None:
    page = parse_file(manual_pdf).pages[3]
    code = [page.text[b.start : b.end] for b in page.blocks if b.kind is BlockKind.CODE]
    assert code == ["set pump on\n    wait 5"]


def test_font_headings_without_outline(tmp_path: Path, block_list) -> None:
    doc = pymupdf.open()
    page = new_page(doc, furniture=False)
    page.insert_text((50, 80), "Installation Guide", fontsize=22, fontname="hebo")
    page.insert_text((50, 120), "Mounting", fontsize=15, fontname="hebo")
    page.insert_text((50, 150), BODY, fontsize=10, fontname="helv")
    page.insert_text((50, 180), "2.1 Wall bracket", fontsize=10, fontname="hebo")
    page.insert_text((50, 200), BODY, fontsize=10, fontname="helv")
    page.insert_text((50, 230), "Electrical", fontsize=15, fontname="hebo")
    page.insert_text((50, 260), BODY, fontsize=10, fontname="helv")
    document = parse_file(save(doc, tmp_path / "guide.pdf"))
    headings = [(level, text) for kind, level, text in block_list(document) if kind == "heading"]
    assert headings == [
        (1, "Installation Guide"),
        (2, "Mounting"),
        (3, "2.1 Wall bracket"),
        (2, "Electrical"),
    ]


def test_table_of_contents_lines_are_not_headings(tmp_path: Path, block_list) -> None:
    doc = pymupdf.open()
    page = new_page(doc, furniture=False)
    page.insert_text((50, 80), "Contents", fontsize=18, fontname="hebo")
    for index, title in enumerate(["1 Introduction", "2 Installation", "3 Operation"]):
        y = 110 + 14 * index
        page.insert_text((50, y), title, fontsize=10, fontname="hebo")
        page.insert_text((500, y), str(3 + 5 * index), fontsize=10, fontname="hebo")
    page.insert_text((50, 170), "1.1 Scope " + ". " * 30, fontsize=10, fontname="helv")
    page.insert_text((500, 170), "4", fontsize=10, fontname="helv")
    document = parse_file(save(doc, tmp_path / "toc.pdf"))
    items = block_list(document)
    assert [text for kind, _, text in items if kind == "heading"] == ["Contents"]
    assert "1.1 Scope … 4" in document.pages[0].text


def test_key_value_lines_stay_in_row_order(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = new_page(doc, furniture=False)
    page.insert_text((50, 60), BODY, fontsize=10, fontname="helv")
    specs = [("Voltage", "24 V DC"), ("Max. current draw", "3.5 A"), ("IP rating", "IP65")]
    for index, (key, value) in enumerate(specs):
        page.insert_text((50, 100 + 14 * index), key, fontsize=10, fontname="helv")
        page.insert_text((250, 100 + 14 * index), value, fontsize=10, fontname="helv")
    text = parse_file(save(doc, tmp_path / "specs.pdf")).pages[0].text
    assert "Voltage 24 V DC" in text
    assert text.index("Voltage") < text.index("Max. current draw") < text.index("IP rating")


def test_scanned_pages_are_skipped_with_a_warning(tmp_path: Path, well_formed) -> None:
    doc = pymupdf.open()
    new_page(doc, furniture=False).insert_text((50, 80), BODY, fontname="helv")
    image_only_page(doc)
    image_only_page(doc)
    new_page(doc, furniture=False).insert_text((50, 80), BODY, fontname="helv")
    image_only_page(doc)
    document = parse_file(save(doc, tmp_path / "mixed.pdf"))
    well_formed(document)
    assert [page.number for page in document.pages] == [1, 4]
    assert document.page_count == 5
    assert document.warnings == ["no usable text on pages 2–3, 5; needs OCR"]
    assert document.ocr_pages == [2, 3, 5]


def test_fully_scanned_pdf_is_handed_to_ocr(tmp_path: Path) -> None:
    doc = pymupdf.open()
    for _ in range(12):
        image_only_page(doc)
    document = parse_file(save(doc, tmp_path / "scan.pdf"))
    assert document.pages == [] and document.page_count == 12
    assert document.ocr_pages == list(range(1, 13))
    assert document.warnings == ["no usable text on pages 1–12; needs OCR"]


def garbled_page(doc: pymupdf.Document) -> None:
    """Text in an embedded font whose Unicode map is removed afterwards (see ``strip_unicode_maps``)."""
    page = new_page(doc, furniture=False)
    page.insert_font(fontname="F1", fontbuffer=pymupdf.Font("cjk").buffer)
    for index in range(8):
        page.insert_text(
            (50, 80 + 32 * index), f"Calibration step {index} of the flow sensor.", fontname="F1"
        )
        page.insert_text((50, 96 + 32 * index), f"流量传感器校准第{index}步。", fontname="F1")


def strip_unicode_maps(doc: pymupdf.Document) -> None:
    for xref in range(1, doc.xref_length()):
        if doc.xref_get_key(xref, "ToUnicode")[0] != "null":
            doc.xref_set_key(xref, "ToUnicode", "null")


def test_font_without_unicode_map_is_reported_as_garbled(tmp_path: Path) -> None:
    doc = pymupdf.open()
    garbled_page(doc)
    garbled_page(doc)
    strip_unicode_maps(doc)
    document = parse_file(save(doc, tmp_path / "nomap.pdf"))
    assert document.ocr_pages == [1, 2]
    assert document.warnings[0].startswith("the text layer is garbled on pages 1–2")


def test_garbled_page_among_good_pages_is_skipped(tmp_path: Path) -> None:
    doc = pymupdf.open()
    new_page(doc, furniture=False).insert_text((50, 80), BODY, fontname="helv")
    garbled_page(doc)
    strip_unicode_maps(doc)
    document = parse_file(save(doc, tmp_path / "partly.pdf"))
    assert [page.number for page in document.pages] == [1]
    assert document.warnings == ["no usable text on page 2; needs OCR"]


def test_encrypted_pdf_needs_a_password(tmp_path: Path) -> None:
    doc = pymupdf.open()
    new_page(doc).insert_text((50, 80), BODY, fontname="helv")
    path = save(
        doc, tmp_path / "manual.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="u", owner_pw="o"
    )
    with pytest.raises(IngestError) as caught:
        parse_file(path)
    assert caught.value.kind is IngestErrorKind.ENCRYPTED
    assert str(caught.value) == "manual.pdf: encrypted PDF (password required)"


def test_pdf_with_only_an_owner_password_opens(tmp_path: Path) -> None:
    doc = pymupdf.open()
    new_page(doc, furniture=False).insert_text((50, 80), BODY, fontname="helv")
    path = save(
        doc, tmp_path / "locked.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", permissions=0
    )
    assert BODY in parse_file(path).pages[0].text


def test_damaged_pdf_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "a.pdf"
    path.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8)
    with pytest.raises(IngestError) as caught:
        parse_file(path)
    assert caught.value.kind is IngestErrorKind.CORRUPT
    assert str(caught.value) == "a.pdf: not a valid PDF (file is damaged or truncated)"


def five_page_pdf() -> bytes:
    doc = pymupdf.open()
    for number in range(1, 6):
        new_page(doc, furniture=False).insert_text((50, 80), f"Page {number}: {BODY}", fontname="helv")
    data = doc.tobytes()
    doc.close()
    return data


def test_truncated_pdf_is_imported_with_a_warning(tmp_path: Path, well_formed) -> None:
    """MuPDF rebuilds a cut-off file silently; the user must learn that pages were lost."""
    data = five_page_pdf()
    path = tmp_path / "cut.pdf"
    path.write_bytes(data[: len(data) * 6 // 10])
    document = parse_file(path)
    well_formed(document)
    recovered = [page.number for page in document.pages]
    assert recovered and recovered == list(range(1, len(recovered) + 1)) and len(recovered) < 5
    assert f"Page 1: {BODY}" in document.pages[0].text
    lost = f"page {recovered[-1] + 1}" if len(recovered) == 4 else f"pages {recovered[-1] + 1}–5"
    assert document.warnings == [
        f"the file is truncated (its end is missing) and was repaired; {lost} came out empty "
        "(content probably lost)"
    ]


def test_damaged_but_complete_pdf_is_imported_with_a_warning(tmp_path: Path) -> None:
    """A broken cross-reference table is repaired too; nothing is lost, but the user is told."""
    data = five_page_pdf()
    start = data.rindex(b"startxref")
    path = tmp_path / "bad-xref.pdf"
    path.write_bytes(data[:start] + b"startxref\n999999\n%%EOF\n")
    document = parse_file(path)
    assert [page.number for page in document.pages] == [1, 2, 3, 4, 5]
    assert document.warnings == ["the file is damaged and was repaired; some content may be missing"]


def test_truncated_pdf_with_nothing_recoverable_is_corrupt(tmp_path: Path) -> None:
    data = five_page_pdf()
    path = tmp_path / "stub.pdf"
    path.write_bytes(data[: len(data) // 5])
    with pytest.raises(IngestError) as caught:
        parse_file(path)
    assert caught.value.kind is IngestErrorKind.CORRUPT
    assert str(caught.value).startswith("stub.pdf: not a valid PDF (file is damaged or truncated)")


def test_blank_pdf_has_no_text(tmp_path: Path) -> None:
    doc = pymupdf.open()
    doc.new_page()
    with pytest.raises(IngestError) as caught:
        parse_file(save(doc, tmp_path / "blank.pdf"))
    assert caught.value.kind is IngestErrorKind.NO_TEXT


@pytest.mark.parametrize(
    ("metadata_title", "expected"),
    [
        ("Service Handbook X200", "Service Handbook X200"),
        ("Microsoft Word - draft3.doc", "Overview"),
        ("", "Overview"),
    ],
)
def test_title_from_metadata_unless_placeholder(tmp_path: Path, metadata_title: str, expected: str) -> None:
    doc = pymupdf.open()
    page = new_page(doc, furniture=False)
    page.insert_text((50, 80), "Overview", fontsize=20, fontname="hebo")
    page.insert_text((50, 110), BODY, fontname="helv")
    doc.set_metadata({"title": metadata_title})
    assert parse_file(save(doc, tmp_path / "t.pdf")).title == expected


@pytest.mark.skipif(not SDCC_MANUAL.exists(), reason="evaluation manual not available")
def test_sdcc_manual_structure_and_speed(well_formed) -> None:
    started = time.perf_counter()
    document = parse_file(SDCC_MANUAL)
    elapsed = time.perf_counter() - started
    well_formed(document)
    kinds = [block.kind for page in document.pages for block in page.blocks]
    assert document.page_count == 134
    assert document.title == "SDCC Compiler User Guide"
    assert kinds.count(BlockKind.HEADING) > 250
    assert kinds.count(BlockKind.TABLE) > 30
    assert elapsed < 10, f"parse took {elapsed:.1f} s"  # ~1 s on the 2-core dev machine; generous for CI load
    page_9 = next(page for page in document.pages if page.number == 9)
    assert "type | width | default | signed range | unsigned range" in page_9.text
