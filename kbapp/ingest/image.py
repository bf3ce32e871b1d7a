"""Image reader (PNG, JPEG, TIFF incl. multi-page): a document whose every page waits for OCR.

Images have no text until the OCR stage reads them, so the reader only proves the file is a
decodable image within the pixel budget, page by page, and hands back its page count. Bad files
fail here, at import, with the reason, rather than later in the background.
"""

from __future__ import annotations

from pathlib import Path

from kbapp.ingest.document import IngestErrorKind, ParsedDocument
from kbapp.ingest.errors import ingest_error
from kbapp.ocr.raster import ImageInputError, ImageTooLarge, frame_count


def parse_image(path: Path) -> ParsedDocument:
    try:
        pages = frame_count(path)
    except ImageInputError as error:
        kind = IngestErrorKind.TOO_LARGE if isinstance(error, ImageTooLarge) else IngestErrorKind.CORRUPT
        raise ingest_error(kind, path, str(error).removeprefix(f"{path.name}: ")) from error
    return ParsedDocument(
        title=path.stem,
        doc_type="image",
        pages=[],
        page_count=pages,
        ocr_pages=list(range(1, pages + 1)),
    )
