"""Word reader: body order, heading styles (including Chinese names), tables, damaged and bomb files."""

from __future__ import annotations

import struct
import zipfile
from collections.abc import Callable
from pathlib import Path

import docx
import pytest
from docx.enum.style import WD_STYLE_TYPE
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

from kbapp.ingest import IngestError, IngestErrorKind, parse_file


def build_manual(path: Path) -> Path:
    document = docx.Document()
    document.core_properties.title = "Compressor Manual"
    document.add_heading("Compressor C-40", 0)
    document.add_heading("Installation", 1)
    document.add_paragraph("Mount the unit on a level surface.")
    table = document.add_table(rows=3, cols=3)
    values_by_row = [["Item", "Value", "Unit"], ["Pressure", "8", "bar"], ["Flow", "40", "l/min"]]
    for row, values in zip(table.rows, values_by_row, strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    document.add_paragraph("After the table.")
    document.add_heading("Checks", 2)
    chinese = document.styles.add_style("标题 1", WD_STYLE_TYPE.PARAGRAPH)
    document.add_paragraph("日常检查", style=chinese)
    outlined = document.styles.add_style("Procedure Head", WD_STYLE_TYPE.PARAGRAPH)
    level = OxmlElement("w:outlineLvl")
    level.set(qn("w:val"), "2")
    outlined.element.get_or_add_pPr().append(level)
    document.add_paragraph("Weekly procedure", style=outlined)
    paragraph = document.add_paragraph("Line one")
    paragraph.add_run().add_break()
    paragraph.add_run("line two\twith tab")
    merged = document.add_table(rows=2, cols=3)
    merged.cell(0, 0).merge(merged.cell(0, 1)).text = "Span"
    merged.cell(0, 2).text = "C"
    for cell, value in zip(merged.rows[1].cells, ["a", "b", "c"], strict=True):
        cell.text = value
    document.save(path)
    return path


def test_body_order_headings_and_tables(tmp_path: Path, well_formed, block_list) -> None:
    parsed = parse_file(build_manual(tmp_path / "c40.docx"))
    well_formed(parsed)
    assert parsed.title == "Compressor Manual"
    assert parsed.doc_type == "docx"
    assert [page.number for page in parsed.pages] == [None]
    assert block_list(parsed) == [
        ("heading", 1, "Compressor C-40"),
        ("heading", 1, "Installation"),
        ("text", 0, "Mount the unit on a level surface."),
        ("table", 0, "Item | Value | Unit\nPressure | 8 | bar\nFlow | 40 | l/min"),
        ("text", 0, "After the table."),
        ("heading", 2, "Checks"),
        ("heading", 1, "日常检查"),
        ("heading", 3, "Weekly procedure"),
        ("text", 0, "Line one\nline two with tab"),
        ("table", 0, "Span |  | C\na | b | c"),
    ]
    page = parsed.pages[0]
    first_table = next(block for block in page.blocks if block.kind == "table")
    assert page.text[first_table.start : first_table.header_end] == "Item | Value | Unit"


def test_each_document_is_read_with_its_own_styles(tmp_path: Path, block_list) -> None:
    """Styles are kept between documents by their part's bytes: a folder from one template reads
    its styles once, and a document whose "Section" style is a heading is not read with another's
    plain "Section" style, in either order."""

    def written(name: str, section_is_heading: bool) -> Path:
        document = docx.Document()
        section = document.styles.add_style("Section", WD_STYLE_TYPE.PARAGRAPH)
        if section_is_heading:
            section.base_style = document.styles["Heading 2"]
        document.add_paragraph("Lubrication", style=section)
        document.add_paragraph("Grease the bearings monthly.")
        document.save(tmp_path / name)
        return tmp_path / name

    plain, heading = written("plain.docx", False), written("heading.docx", True)
    as_plain = [("text", 0, "Lubrication"), ("text", 0, "Grease the bearings monthly.")]
    as_heading = [("heading", 2, "Lubrication"), ("text", 0, "Grease the bearings monthly.")]
    for path, expected in [(plain, as_plain), (heading, as_heading)] * 2:
        assert block_list(parse_file(path)) == expected


def test_title_falls_back_to_first_heading(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("intro")
    document.add_heading("Maintenance Plan", 1)
    document.save(tmp_path / "plan.docx")
    assert parse_file(tmp_path / "plan.docx").title == "Maintenance Plan"


def test_truncated_docx_is_corrupt(tmp_path: Path) -> None:
    data = build_manual(tmp_path / "full.docx").read_bytes()
    broken = tmp_path / "broken.docx"
    broken.write_bytes(data[: len(data) // 2])
    with pytest.raises(IngestError) as caught:
        parse_file(broken)
    assert caught.value.kind is IngestErrorKind.CORRUPT
    assert str(caught.value).startswith("broken.docx: not a valid Word document")


def inflate_declared_sizes(path: Path, size: int) -> None:
    """Rewrite every central-directory entry to claim ``size`` uncompressed bytes (a zip bomb's header)."""
    data = bytearray(path.read_bytes())
    offset = data.find(b"PK\x01\x02")
    while offset != -1:
        struct.pack_into("<I", data, offset + 24, size)
        offset = data.find(b"PK\x01\x02", offset + 4)
    path.write_bytes(bytes(data))


def test_zip_bomb_is_refused_before_inflating(tmp_path: Path) -> None:
    path = build_manual(tmp_path / "bomb.docx")
    inflate_declared_sizes(path, 0xFFFF0000)
    with pytest.raises(IngestError) as caught:
        parse_file(path)
    assert caught.value.kind is IngestErrorKind.TOO_LARGE
    assert "bomb.docx: expands to" in str(caught.value) and "GB, refusing" in str(caught.value)


def test_empty_document(tmp_path: Path) -> None:
    docx.Document().save(tmp_path / "empty.docx")
    with pytest.raises(IngestError) as caught:
        parse_file(tmp_path / "empty.docx")
    assert caught.value.kind is IngestErrorKind.EMPTY


def test_macro_enabled_document_is_unsupported(tmp_path: Path) -> None:
    source = build_manual(tmp_path / "plain.docx")
    target = tmp_path / "macros.docm"
    main = b"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(target, "w") as copy:
        for info in original.infolist():
            data = original.read(info.filename)
            if info.filename == "[Content_Types].xml":
                data = data.replace(main, b"application/vnd.ms-word.document.macroEnabled.main+xml")
            copy.writestr(info, data)
    with pytest.raises(IngestError) as caught:
        parse_file(target)
    assert caught.value.kind is IngestErrorKind.UNSUPPORTED
    assert str(caught.value).startswith("macros.docm: macro-enabled")


def _rewrite(source: Path, target: Path, edit: Callable[[str, bytes], bytes | None]) -> Path:
    """Copy a package member by member; ``edit(name, data)`` returns new bytes, or None to drop it."""
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(target, "w") as copy:
        for info in original.infolist():
            data = edit(info.filename, original.read(info.filename))
            if data is not None:
                copy.writestr(info, data)
    return target


def test_a_package_without_core_properties_is_titled_by_its_first_heading(tmp_path: Path) -> None:
    """python-docx, which read these files before, titled every such file "Word Document"."""
    source = build_manual(tmp_path / "plain.docx")
    bare = _rewrite(
        source, tmp_path / "bare.docx", lambda name, data: None if name == "docProps/core.xml" else data
    )
    assert parse_file(bare).title == "Compressor C-40"


def test_a_package_without_styles_still_knows_the_built_in_headings(tmp_path: Path) -> None:
    source = build_manual(tmp_path / "plain.docx")
    bare = _rewrite(
        source, tmp_path / "nostyles.docx", lambda name, data: None if name == "word/styles.xml" else data
    )
    blocks = [(b.kind, b.level) for b in parse_file(bare).pages[0].blocks]
    assert ("heading", 1) in blocks and ("heading", 2) in blocks


def test_another_office_format_under_a_docx_name_is_named_as_such(tmp_path: Path) -> None:
    source = build_manual(tmp_path / "plain.docx")
    main = b"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
    sheet = b"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
    renamed = _rewrite(
        source,
        tmp_path / "budget.docx",
        lambda name, data: data.replace(main, sheet) if name == "[Content_Types].xml" else data,
    )
    with pytest.raises(IngestError) as caught:
        parse_file(renamed)
    assert caught.value.kind is IngestErrorKind.UNSUPPORTED
    assert str(caught.value) == f"budget.docx: not a Word document (its main part is {sheet.decode()})"


def test_malformed_document_xml_is_corrupt(tmp_path: Path) -> None:
    source = build_manual(tmp_path / "plain.docx")
    broken = _rewrite(
        source, tmp_path / "tags.docx", lambda name, data: data[:-20] if name == "word/document.xml" else data
    )
    with pytest.raises(IngestError) as caught:
        parse_file(broken)
    assert caught.value.kind is IngestErrorKind.CORRUPT
    assert str(caught.value) == "tags.docx: not a valid Word document (word/document.xml is malformed)"
