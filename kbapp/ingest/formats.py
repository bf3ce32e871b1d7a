"""The document formats kbapp reads and the file names that suggest each.

Kept apart from ``sniff`` (which decides a file's format from its content) so that what only
needs the list, such as walking a folder or the package's ``SUPPORTED_SUFFIXES``, does not import
the sniffer and the text decoding it uses.
"""

from __future__ import annotations

from enum import StrEnum


class Format(StrEnum):
    PDF = "pdf"
    DOCX = "docx"
    EPUB = "epub"
    HTML = "html"
    MARKDOWN = "markdown"
    TEXT = "text"
    IMAGE = "image"


SUFFIX_FORMATS: dict[str, Format] = {
    ".pdf": Format.PDF,
    ".docx": Format.DOCX,
    ".epub": Format.EPUB,
    ".html": Format.HTML,
    ".htm": Format.HTML,
    ".xhtml": Format.HTML,
    ".md": Format.MARKDOWN,
    ".markdown": Format.MARKDOWN,
    ".txt": Format.TEXT,
    ".text": Format.TEXT,
    ".png": Format.IMAGE,
    ".jpg": Format.IMAGE,
    ".jpeg": Format.IMAGE,
    ".tif": Format.IMAGE,
    ".tiff": Format.IMAGE,
}
