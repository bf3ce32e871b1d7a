"""EPUB reader: spine order, one unpaged page, metadata title, broken packages."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from kbapp.ingest import IngestError, IngestErrorKind, parse_file

CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>"""

OPF = """<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Hydraulics Handbook</dc:title></metadata>
  <manifest>
    <item id="c2" href="text/chapter%202.xhtml" media-type="application/xhtml+xml"/>
    <item id="css" href="style.css" media-type="text/css"/>
    <item id="c1" href="text/ch1.xhtml" media-type="application/xhtml+xml"/>
  </manifest>
  <spine><itemref idref="c1"/><itemref idref="css"/><itemref idref="c2"/></spine>
</package>"""

CHAPTER = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>{title}</title></head>
<body><h1>{title}</h1><p>{body}</p></body></html>"""


def build_epub(path: Path, opf: str = OPF, container: str | None = CONTAINER) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        if container is not None:
            archive.writestr("META-INF/container.xml", container)
        archive.writestr("OEBPS/content.opf", opf)
        archive.writestr("OEBPS/style.css", "p { margin: 0 }")
        archive.writestr("OEBPS/text/ch1.xhtml", CHAPTER.format(title="Pumps", body="Pumps move fluid."))
        archive.writestr("OEBPS/text/chapter 2.xhtml", CHAPTER.format(title="液压阀", body="阀门控制流量。"))
    return path


def test_chapters_in_spine_order_on_one_page(tmp_path: Path, well_formed, block_list) -> None:
    document = parse_file(build_epub(tmp_path / "book.epub"))
    well_formed(document)
    assert document.title == "Hydraulics Handbook"
    assert document.doc_type == "epub"
    assert [page.number for page in document.pages] == [None]
    assert block_list(document) == [
        ("heading", 1, "Pumps"),
        ("text", 0, "Pumps move fluid."),
        ("heading", 1, "液压阀"),
        ("text", 0, "阀门控制流量。"),
    ]


def test_epub_is_sniffed_whatever_its_name(tmp_path: Path) -> None:
    assert parse_file(build_epub(tmp_path / "download.bin")).doc_type == "epub"


def test_missing_package_document_is_corrupt(tmp_path: Path) -> None:
    with pytest.raises(IngestError) as caught:
        parse_file(build_epub(tmp_path / "nocontainer.epub", container=None))
    assert caught.value.kind is IngestErrorKind.CORRUPT
    assert str(caught.value) == "nocontainer.epub: not a valid EPUB (META-INF/container.xml is missing)"


def test_malformed_package_xml_is_corrupt(tmp_path: Path) -> None:
    with pytest.raises(IngestError) as caught:
        parse_file(build_epub(tmp_path / "bad.epub", opf="<package><unclosed>"))
    assert caught.value.kind is IngestErrorKind.CORRUPT


def test_entities_are_not_expanded(tmp_path: Path) -> None:
    hostile = OPF.replace(
        '<?xml version="1.0" encoding="utf-8"?>',
        '<?xml version="1.0"?><!DOCTYPE p [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
    ).replace("Hydraulics Handbook", "&x;")
    document = parse_file(build_epub(tmp_path / "xxe.epub", opf=hostile))
    assert "root:" not in document.title


def test_missing_chapter_is_skipped_with_a_warning(tmp_path: Path) -> None:
    opf = OPF.replace('<itemref idref="c2"/>', '<itemref idref="c2"/><itemref idref="c3"/>').replace(
        "</manifest>", '<item id="c3" href="text/gone.xhtml" media-type="application/xhtml+xml"/></manifest>'
    )
    document = parse_file(build_epub(tmp_path / "partial.epub", opf=opf))
    assert document.warnings == ["OEBPS/text/gone.xhtml is listed in the book but missing; skipped"]
    assert "阀门控制流量。" in document.pages[0].text
