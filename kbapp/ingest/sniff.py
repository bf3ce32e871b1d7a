"""Choosing a reader from what a file contains, not what it is called.

Manuals arrive renamed, downloaded without extensions, or saved as ".txt" by a mail client. The
content decides: PDF magic, a ZIP holding a Word body or an EPUB mimetype, HTML markup near the
start, Markdown by extension or unmistakable syntax, otherwise plain text (the text reader then
refuses binary data). Known non-document formats get a message that says what the file is; OLE2
containers are told apart by their streams (legacy .doc/.xls/.ppt vs. password-protected Office).

The one limit on content sniffing: text is recognised by the absence of anything else, so text
content is read only if the name does not promise a binary format. A file named .pdf, .docx or
.epub without that format's signature is refused as damaged, never read as text: in practice it
is a broken or failed download (an HTML error or login page saved under the manual's name), and
indexing that as the manual would be silently wrong. The message says what the content looks like
so a really misnamed text file can be renamed. The other direction stays open: a real PDF, Word
or EPUB file is read whatever its name (a PDF saved as ".txt" is a PDF), and a ".txt" holding HTML
is read as HTML.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from kbapp.ingest import ole2
from kbapp.ingest.decoding import bom_encoding, looks_binary
from kbapp.ingest.document import IngestError, IngestErrorKind
from kbapp.ingest.errors import ingest_error
from kbapp.ingest.formats import SUFFIX_FORMATS, Format

# Scans and photos the OCR stage reads (GIF stays refused: it is a graphics format, not a scan).
_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"II*\x00", b"MM\x00*")

_PDF_MAGIC = b"%PDF-"
_PDF_MAGIC_WINDOW = 1024  # the PDF spec tolerates junk before the header
_HTML_WINDOW = 1024
_HTML_START = re.compile(r"<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>]|<meta\s|<title[\s>]", re.I)
_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+\S", re.M)
_FENCE = re.compile(r"^ {0,3}(?:```|~~~)", re.M)
_TABLE_RULE = re.compile(r"^ {0,3}\|?[ \t]*:?-{3,}:?[ \t]*\|[ \t]*:?-{3,}", re.M)
_LINK = re.compile(r"\[[^\]\n]+\]\((?:https?://|\.{0,2}/|#)[^)\s]*\)")
_SETEXT_H1 = re.compile(r"^\S[^\n]*\n {0,3}=+[ \t]*$", re.M)

# Streams that identify a legacy Office file inside an OLE2 container (see ``ole2``), with what
# the message calls it and what to save it as instead.
_LEGACY_OFFICE: tuple[tuple[frozenset[str], str, str, str], ...] = (
    (frozenset({"WordDocument"}), "Word", ".doc", ".docx or PDF"),
    (frozenset({"Workbook", "Book"}), "Excel", ".xls", "PDF"),
    (frozenset({"PowerPoint Document"}), "PowerPoint", ".ppt", "PDF"),
)
# Names that promise a binary format: what the message calls it (with its article), and what the
# content lacks.
_CONTAINER_NAMES: dict[str, tuple[str, str, str]] = {
    ".pdf": ("PDF", "a PDF", "the file has no PDF header"),
    ".docx": ("Word document", "a Word document", "the file is not a ZIP package, as every .docx is"),
    ".epub": ("EPUB", "an EPUB", "the file is not a ZIP package, as every EPUB is"),
}
_OLE2_LABELS = {".doc": "Word document", ".docx": "Word document", ".xls": "Excel workbook"}
_BINARY_KINDS: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!", "a RAR archive"),
    (b"\x7fELF", "a program (ELF executable)"),
    (b"MZ", "a Windows program"),
)


def sniff(path: Path, head: bytes) -> Format:
    """Return the format of ``path`` judged from ``head`` (its first KBs) and, for ZIPs, its members."""
    suffix = path.suffix.lower()
    if not head:
        raise ingest_error(IngestErrorKind.EMPTY, path, "file is empty")
    if _PDF_MAGIC in head[:_PDF_MAGIC_WINDOW]:
        return Format.PDF
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return _sniff_zip(path)
    if SUFFIX_FORMATS.get(suffix) is Format.IMAGE:
        # Scans are named as images; an image under another name stays refused as "not a document".
        if head.startswith(_IMAGE_MAGIC):
            return Format.IMAGE
        raise ingest_error(
            IngestErrorKind.CORRUPT, path, f"not a {suffix[1:].upper()} image (damaged or misnamed)"
        )
    _refuse_known_non_documents(path, head)
    text = _head_text(head)
    if suffix in _CONTAINER_NAMES:
        raise _not_the_named_format(path, head, text)
    if _HTML_START.search(text[:_HTML_WINDOW]) or SUFFIX_FORMATS.get(suffix) is Format.HTML:
        return Format.HTML
    if SUFFIX_FORMATS.get(suffix) is Format.MARKDOWN or looks_like_markdown(text):
        return Format.MARKDOWN
    return Format.TEXT


def looks_like_markdown(text: str) -> bool:
    """Unmistakable Markdown: an ATX heading plus another construct, or two non-heading constructs.

    A lone "# ..." line is not enough because shell scripts and config files comment that way.
    """
    others = sum(
        (
            len(_FENCE.findall(text)) >= 2,
            bool(_TABLE_RULE.search(text)),
            bool(_LINK.search(text)),
            bool(_SETEXT_H1.search(text)),
        )
    )
    return others >= 2 or (others >= 1 and bool(_ATX_HEADING.search(text)))


def _not_the_named_format(path: Path, head: bytes, text: str) -> IngestError:
    """A .pdf/.docx/.epub whose content is not that format: damaged, or a failed download."""
    what, a_what, lacks = _CONTAINER_NAMES[path.suffix.lower()]
    if looks_binary(head) and bom_encoding(head) is None:
        return ingest_error(
            IngestErrorKind.CORRUPT, path, f"not a valid {what} (file is damaged or truncated)"
        )
    if _HTML_START.search(text[:_HTML_WINDOW]):
        looks = "an HTML page"
    elif looks_like_markdown(text):
        looks = "Markdown text"
    else:
        looks = "plain text"
    return ingest_error(
        IngestErrorKind.CORRUPT,
        path,
        f"not {a_what}: {lacks}; it looks like {looks} (a failed download, or a misnamed file?)",
    )


def _head_text(head: bytes) -> str:
    """Decode the head loosely: only markup and syntax are looked for, nothing is kept."""
    bom = bom_encoding(head)
    if bom is not None:
        codec, length = bom
        return head[length:].decode(codec, errors="ignore")
    return head.decode("utf-8", errors="ignore")


def _sniff_zip(path: Path) -> Format:
    label = {".docx": "Word document", ".epub": "EPUB"}.get(path.suffix.lower(), "ZIP archive")
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            mimetype = b""
            if "mimetype" in names and archive.getinfo("mimetype").file_size < 256:
                mimetype = archive.read("mimetype").strip()
    except (zipfile.BadZipFile, ValueError, EOFError, OSError, NotImplementedError, RuntimeError) as exc:
        raise ingest_error(
            IngestErrorKind.CORRUPT, path, f"not a valid {label} (file is damaged or truncated)"
        ) from exc
    if "word/document.xml" in names:
        return Format.DOCX
    if mimetype == b"application/epub+zip" or "META-INF/container.xml" in names:
        return Format.EPUB
    if "xl/workbook.xml" in names:
        what = "an Excel workbook (.xlsx)"
    elif "ppt/presentation.xml" in names:
        what = "a PowerPoint presentation (.pptx)"
    elif mimetype.startswith(b"application/vnd.oasis.opendocument"):
        what = "an OpenDocument file"
    else:
        what = "a ZIP archive"
    raise ingest_error(IngestErrorKind.UNSUPPORTED, path, f"{what}, not a supported document format")


def _refuse_known_non_documents(path: Path, head: bytes) -> None:
    if head.startswith(ole2.SIGNATURE):
        raise _ole2_refusal(path)
    if head.startswith(b"{\\rtf"):
        raise ingest_error(
            IngestErrorKind.UNSUPPORTED, path, "RTF documents are not supported; save it as .docx or PDF"
        )
    if looks_binary(head):
        for magic, what in _BINARY_KINDS:
            if head.startswith(magic):
                raise ingest_error(IngestErrorKind.UNSUPPORTED, path, f"{what}, not a document")


def _ole2_refusal(path: Path) -> IngestError:
    """Why an OLE2 compound file is refused, decided by the streams it holds, not by its name.

    Office 2007+ stores a password-protected .docx/.xlsx/.pptx as an OLE2 file with an
    "EncryptedPackage" stream; a .doc renamed to .docx is the same container with a "WordDocument"
    stream, and must not be called encrypted.
    """
    suffix = path.suffix.lower()
    try:
        names = ole2.entry_names(path)
    except ole2.Ole2Error:
        label = _OLE2_LABELS.get(suffix, "Office file")
        return ingest_error(
            IngestErrorKind.CORRUPT, path, f"not a valid {label} (file is damaged or truncated)"
        )
    except OSError as exc:
        return ingest_error(IngestErrorKind.UNREADABLE, path, f"cannot read file ({exc.strerror or exc})")
    if "EncryptedPackage" in names:
        what = "Word document" if suffix == ".docx" else "Office document"
        return ingest_error(IngestErrorKind.ENCRYPTED, path, f"password-protected {what}")
    for streams, application, extension, instead in _LEGACY_OFFICE:
        if names & streams:
            renamed = f" (despite the {suffix} name)" if suffix not in ("", extension) else ""
            return ingest_error(
                IngestErrorKind.UNSUPPORTED,
                path,
                f"legacy {application} 97–2003 {extension} format{renamed} is not supported; "
                f"save it as {instead}",
            )
    return ingest_error(
        IngestErrorKind.UNSUPPORTED,
        path,
        "an OLE2 compound file that is not a Word, Excel or PowerPoint document; not supported",
    )
