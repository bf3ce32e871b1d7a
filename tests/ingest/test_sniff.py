"""Content sniffing: the reader is chosen by what a file contains, and refusals say why."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pymupdf
import pytest

from kbapp.ingest import SUPPORTED_SUFFIXES, IngestError, IngestErrorKind, parse_file
from kbapp.ingest.formats import Format
from kbapp.ingest.sniff import looks_like_markdown, sniff
from tests.office_files import OLE2_SIGNATURE, ole2_file

PNG_HEAD = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
MARKDOWN = "# Setup\n\nSee [the guide](https://example.com/guide).\n\n```\nrun\n```\n"


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


LEGACY_DOC = {"WordDocument": b"\xec\xa5\xc1\x00", "1Table": b"\x00", "\x05SummaryInformation": b""}
ENCRYPTED_OOXML = {"\x06DataSpaces": b"", "EncryptionInfo": b"\x04\x00\x04\x00", "EncryptedPackage": b"PK"}


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
        (
            "old.doc",
            ole2_file(LEGACY_DOC),
            IngestErrorKind.UNSUPPORTED,
            "old.doc: legacy Word 97–2003 .doc format is not supported; save it as .docx or PDF",
        ),
        (
            "secret.docx",
            ole2_file(ENCRYPTED_OOXML),
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


@pytest.mark.parametrize("major_version", [3, 4])
def test_legacy_doc_renamed_to_docx_is_unsupported_not_encrypted(tmp_path: Path, major_version: int) -> None:
    """Both are OLE2 containers; the "WordDocument" stream makes it a Word 97–2003 file."""
    path = write(tmp_path, "report.docx", ole2_file(LEGACY_DOC, major_version))
    with pytest.raises(IngestError) as caught:
        parse_file(path)
    assert caught.value.kind is IngestErrorKind.UNSUPPORTED
    assert str(caught.value) == (
        "report.docx: legacy Word 97–2003 .doc format (despite the .docx name) is not supported; "
        "save it as .docx or PDF"
    )


@pytest.mark.parametrize("major_version", [3, 4])
def test_encrypted_office_file_is_password_protected_whatever_its_name(
    tmp_path: Path, major_version: int
) -> None:
    path = write(tmp_path, "download", ole2_file(ENCRYPTED_OOXML, major_version))
    with pytest.raises(IngestError) as caught:
        parse_file(path)
    assert caught.value.kind is IngestErrorKind.ENCRYPTED
    assert str(caught.value) == "download: password-protected Office document"


@pytest.mark.parametrize(
    ("name", "stream", "message"),
    [
        ("budget.xls", "Workbook", "legacy Excel 97–2003 .xls format is not supported; save it as PDF"),
        ("budget.xls", "Book", "legacy Excel 97–2003 .xls format is not supported; save it as PDF"),
        (
            "slides.docx",
            "PowerPoint Document",
            "legacy PowerPoint 97–2003 .ppt format (despite the .docx name) is not supported; save it as PDF",
        ),
        (
            "setup.msi",
            "SummaryInformation",
            "an OLE2 compound file that is not a Word, Excel or PowerPoint document; not supported",
        ),
    ],
    ids=["xls", "xls-biff5", "ppt-named-docx", "other"],
)
def test_other_ole2_files_say_what_they_are(tmp_path: Path, name: str, stream: str, message: str) -> None:
    with pytest.raises(IngestError) as caught:
        parse_file(write(tmp_path, name, ole2_file({stream: b"x"})))
    assert caught.value.kind is IngestErrorKind.UNSUPPORTED
    assert str(caught.value) == f"{name}: {message}"


@pytest.mark.parametrize(
    "data",
    [
        OLE2_SIGNATURE + bytes(4000),  # no valid header
        ole2_file(LEGACY_DOC)[:600],  # cut off before the directory
    ],
    ids=["zeros", "cut-off"],
)
def test_damaged_ole2_container_is_corrupt_not_guessed(tmp_path: Path, data: bytes) -> None:
    with pytest.raises(IngestError) as caught:
        parse_file(write(tmp_path, "legacy.docx", data))
    assert caught.value.kind is IngestErrorKind.CORRUPT
    assert str(caught.value) == "legacy.docx: not a valid Word document (file is damaged or truncated)"


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        (
            "manual.pdf",
            b"Pump manual\n\nReplace the seal every month.\n",
            "not a PDF: the file has no PDF header; it looks like plain text",
        ),
        (
            "manual.pdf",
            b"<!DOCTYPE html><html><head><title>404 Not Found</title></head><body>Not Found</body></html>",
            "not a PDF: the file has no PDF header; it looks like an HTML page",
        ),
        (
            "manual.docx",
            MARKDOWN.encode(),
            "not a Word document: the file is not a ZIP package, as every .docx is; "
            "it looks like Markdown text",
        ),
        (
            "book.epub",
            "说明书\n\n检查泵的密封圈。".encode("utf-16"),
            "not an EPUB: the file is not a ZIP package, as every EPUB is; it looks like plain text",
        ),
    ],
    ids=["text", "html", "markdown", "utf16-text"],
)
def test_text_named_as_a_binary_format_is_refused_not_indexed(
    tmp_path: Path, name: str, data: bytes, message: str
) -> None:
    """A ".pdf" holding text is a failed download or a broken file far more often than a misnamed note."""
    with pytest.raises(IngestError) as caught:
        parse_file(write(tmp_path, name, data))
    assert caught.value.kind is IngestErrorKind.CORRUPT
    assert str(caught.value) == f"{name}: {message} (a failed download, or a misnamed file?)"


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
