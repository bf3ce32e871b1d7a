"""EPUB reader: the spine's XHTML documents, in reading order, through the HTML block extraction.

No extra dependency: an EPUB is a ZIP with ``META-INF/container.xml`` pointing at the OPF package,
whose manifest names the files and whose spine orders them. All chapters go into ONE unpaged Page
(number None), like the other reflowable formats: an EPUB has no stable page numbers to cite, and
a single page keeps block offsets simple for the preview. Chapter boundaries survive as the
chapters' own headings.
"""

from __future__ import annotations

import posixpath
import zipfile
from pathlib import Path
from urllib.parse import unquote

from lxml import etree

from kbapp.ingest.builder import PageBuilder
from kbapp.ingest.decoding import decode_declared
from kbapp.ingest.document import BlockKind, IngestErrorKind, ParsedDocument
from kbapp.ingest.errors import ingest_error
from kbapp.ingest.html import add_body, declared_encoding, parse_markup
from kbapp.ingest.textnorm import collapse_spaces
from kbapp.ingest.ziputil import open_archive, read_member

_WHAT = "EPUB"
_CONTAINER = "META-INF/container.xml"
_NS = {
    "c": "urn:oasis:names:tc:opendocument:xmlns:container",
    "opf": "http://www.idpf.org/2007/opf",
    "dc": "http://purl.org/dc/elements/1.1/",
}
_XHTML_TYPES = frozenset({"application/xhtml+xml", "text/html", "application/x-dtbook+xml"})


def parse_epub(path: Path) -> ParsedDocument:
    with open_archive(path, _WHAT) as archive:
        opf_name = _package_path(archive, path)
        package = _parse_xml(read_member(archive, opf_name, path, _WHAT), path, opf_name)
        builder = PageBuilder(None)
        first_h1 = None
        warnings = []
        members = set(archive.namelist())
        for name in _spine_documents(package, posixpath.dirname(opf_name)):
            if name not in members:
                warnings.append(f"{name} is listed in the book but missing; skipped")
                continue
            data = read_member(archive, name, path, _WHAT)
            decoded = decode_declared(data, declared_encoding(data), path)
            warnings.extend(f"{name}: {warning}" for warning in decoded.warnings)
            heading = add_body(parse_markup(decoded.text), builder)
            first_h1 = first_h1 or heading
    if builder.is_empty:
        raise ingest_error(IngestErrorKind.EMPTY, path, "no text in the book's chapters")
    title = _package_title(package) or first_h1 or _first_heading(builder) or path.stem
    return ParsedDocument(title=title, doc_type="epub", pages=[builder.build()], warnings=warnings)


def _package_path(archive: zipfile.ZipFile, path: Path) -> str:
    container = _parse_xml(read_member(archive, _CONTAINER, path, _WHAT), path, _CONTAINER)
    rootfile = container.find(".//c:rootfile", _NS)
    full_path = rootfile.get("full-path") if rootfile is not None else None
    if not full_path:
        raise ingest_error(IngestErrorKind.CORRUPT, path, f"not a valid {_WHAT} (no package document)")
    return full_path


def _spine_documents(package: etree._Element, base: str) -> list[str]:
    """Member names of the spine's (X)HTML documents, in reading order, each once."""
    manifest = {
        item.get("id"): item
        for item in package.iterfind("opf:manifest/opf:item", _NS)
        if item.get("id") and item.get("href")
    }
    names: list[str] = []
    for itemref in package.iterfind("opf:spine/opf:itemref", _NS):
        item = manifest.get(itemref.get("idref"))
        if item is None or item.get("media-type", "") not in _XHTML_TYPES:
            continue
        name = posixpath.normpath(posixpath.join(base, unquote(item.get("href", "").split("#")[0])))
        if name not in names:
            names.append(name)
    return names


def _package_title(package: etree._Element) -> str | None:
    title = package.find("opf:metadata/dc:title", _NS)
    text = collapse_spaces("".join(title.itertext())) if title is not None else ""
    return text or None


def _first_heading(builder: PageBuilder) -> str | None:
    page = builder.build()
    for block in page.blocks:
        if block.kind is BlockKind.HEADING:
            return page.text[block.start : block.end]
    return None


def _parse_xml(data: bytes, path: Path, name: str) -> etree._Element:
    # No DTD loading, no entity expansion, no network: an EPUB is untrusted input. A parser per
    # call because lxml parser objects must not be shared between threads.
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        return etree.fromstring(data, parser=parser)
    except etree.XMLSyntaxError as exc:
        raise ingest_error(IngestErrorKind.CORRUPT, path, f"not a valid {_WHAT} ({name} is damaged)") from exc
