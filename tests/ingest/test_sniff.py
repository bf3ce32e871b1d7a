"""Content sniffing: the reader is chosen by what a file contains, and refusals say why."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pymupdf
import pytest

from kbapp.ingest import SUPPORTED_SUFFIXES, IngestError, IngestErrorKind, parse_file
from kbapp.ingest.sniff import Format, looks_like_markdown, sniff

PNG_HEAD = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
OLE2_HEAD = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(100)  # legacy Office / encrypted OOXML container
MARKDOWN = "# Setup\n\nSee [the guide](https://example.com/guide).\n\n```\nrun\n```\n"


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_supported_suffixes() -> None:
    assert {".pdf", ".docx", ".epub", ".html", ".htm", ".md", ".markdown", ".txt"} <= SUPPORTED_SUFFIXES


def test_pdf_named_txt_is_read_as_pdf(tmp_path: Path) -> None:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "PDF body text that is long enough to count.", fontname="helv")
    path = tmp_path / "notes.txt"
    doc.save(path)
    assert parse_file(path).doc_type == "pdf"


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        ("page", b"<!DOCTYPE html><html><body><p>x</p></body></html>", Format.HTML),
        ("page.txt", b"\n  <html lang='en'><p>x</p></html>", Format.HTML),
        ("frag.html", b"<p>fragment only</p>", Format.HTML),
        ("readme", MARKDOWN.encode(), Format.MARKDOWN),
        ("notes.md", b"just text", Format.MARKDOWN),
        ("script.txt", b"# configure the pump\n# second comment\nrate=5\n", Format.TEXT),
        ("plain", "纯文本内容".encode("gbk"), Format.TEXT),
        ("junk.pdf", b"x%PDF-1.4 after junk", Format.PDF),
    ],
)
def test_sniffed_format(tmp_path: Path, name: str, data: bytes, expected: Format) -> None:
    path = write(tmp_path, name, data)
    assert sniff(path, data) is expected


def test_markdown_needs_more_than_a_hash_comment() -> None:
    assert not looks_like_markdown("# just a comment\nvalue = 1\n")
    assert looks_like_markdown("# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")


def zip_with(tmp_path: Path, name: str, members: dict[str, str]) -> Path:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as archive:
        for member, content in members.items():
            archive.writestr(member, content)
    return path


@pytest.mark.parametrize(
    ("name", "data", "kind", "message"),
    [
        ("blob.txt", bytes(range(256)) * 4, IngestErrorKind.UNSUPPORTED, "blob.txt: binary data, not text"),
        ("photo.pdf", PNG_HEAD, IngestErrorKind.UNSUPPORTED, "photo.pdf: a PNG image, not a document"),
        ("old.doc", OLE2_HEAD, IngestErrorKind.UNSUPPORTED, None),
        (
            "secret.docx",
            OLE2_HEAD,
            IngestErrorKind.ENCRYPTED,
            "secret.docx: password-protected Word document",
        ),
        ("bad.pdf", bytes(range(256)), IngestErrorKind.CORRUPT, None),
        ("empty.pdf", b"", IngestErrorKind.EMPTY, "empty.pdf: file is empty"),
        ("doc.rtf", b"{\\rtf1\\ansi hello}", IngestErrorKind.UNSUPPORTED, None),
    ],
)
def test_refusals_name_the_file_and_reason(
    tmp_path: Path, name: str, data: bytes, kind: IngestErrorKind, message: str | None
) -> None:
    with pytest.raises(IngestError) as caught:
        parse_file(write(tmp_path, name, data))
    assert caught.value.kind is kind
    assert str(caught.value).startswith(f"{name}: ")
    if message is not None:
        assert str(caught.value) == message


def test_other_zip_formats_are_unsupported(tmp_path: Path) -> None:
    path = zip_with(tmp_path, "sheet.xlsx", {"xl/workbook.xml": "<workbook/>"})
    with pytest.raises(IngestError) as caught:
        parse_file(path)
    assert caught.value.kind is IngestErrorKind.UNSUPPORTED
    assert str(caught.value) == "sheet.xlsx: an Excel workbook (.xlsx), not a supported document format"


def test_unreadable_paths(tmp_path: Path) -> None:
    with pytest.raises(IngestError) as missing:
        parse_file(tmp_path / "gone.pdf")
    assert missing.value.kind is IngestErrorKind.UNREADABLE
    assert str(missing.value) == "gone.pdf: file not found"
    folder = tmp_path / "folder.txt"
    folder.mkdir()
    with pytest.raises(IngestError) as directory:
        parse_file(folder)
    assert directory.value.kind is IngestErrorKind.UNREADABLE
