"""One page of a scan read in the OCR worker process: rendered, OCR'd and returned as a document.

Runs inside the bounded worker (``kbapp.importing.parse_worker``), so a page that hangs,
exhausts memory or crashes the engine costs that page only. The engine is built once per worker
process and kept: loading the models takes a fraction of a second, a page takes seconds.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from kbapp.ingest.document import IngestError, IngestErrorKind, ParsedDocument
from kbapp.ocr.engine import Line, OcrEngine, OcrInputError, OcrPage
from kbapp.ocr.geometry import Box
from kbapp.ocr.page_text import page_from_lines
from kbapp.ocr.raster import ImageInputError, ImageTooLarge, image_frames, render_page

_engine: OcrEngine | None = None


def ocr_page(path: Path, number: int) -> ParsedDocument:
    """OCR page ``number`` (1-based) of a PDF or an image file; raises ``IngestError`` saying why not."""
    global _engine
    if _engine is None:
        _engine = OcrEngine()
    where = f"{path.name} page {number}"
    try:
        if _is_pdf(path):
            result, to_points = _read_pdf_page(_engine, path, number)
        else:
            frame = next((f for i, f in enumerate(image_frames(path), 1) if i == number), None)
            if frame is None:
                raise IngestError(IngestErrorKind.CORRUPT, f"{where}: the image has no such page")
            result, to_points = _engine.read(frame), 1.0
    except ImageTooLarge as error:
        raise IngestError(IngestErrorKind.TOO_LARGE, str(error)) from error
    except (ImageInputError, OcrInputError) as error:
        raise IngestError(IngestErrorKind.CORRUPT, f"{where}: {error}") from error
    page, lines = page_from_lines(number, result, to_points)
    return ParsedDocument(
        title="",
        doc_type="",
        pages=[page] if page.text else [],
        ocr_lines={number: lines} if page.text else {},
    )


def _is_pdf(path: Path) -> bool:
    with path.open("rb") as handle:
        return b"%PDF-" in handle.read(1024)


def _read_pdf_page(engine: OcrEngine, path: Path, number: int) -> tuple[OcrPage, float]:
    try:
        with pymupdf.open(path, filetype="pdf") as document:  # type: ignore[no-untyped-call]
            page = document.load_page(number - 1)
            image, scale = render_page(page)
            rotation, derotation = page.rotation, page.derotation_matrix
    except Exception as error:  # MuPDF raises several unrelated types for damaged files
        raise IngestError(
            IngestErrorKind.CORRUPT, f"{path.name} page {number}: the page cannot be rendered ({error})"
        ) from error
    result = engine.read(image)
    if not rotation:
        return result, 1 / scale
    # The pixmap shows the page as displayed; boxes are kept in the page's own (unrotated) space,
    # where the preview draws, and the lines lose their per-character edges.
    turn = pymupdf.Matrix(1 / scale, 1 / scale) * derotation  # type: ignore[no-untyped-call]
    lines = [Line(line.text, _mapped(line.box, turn), line.score, line.edges) for line in result.lines]
    return OcrPage(result.width, result.height, lines, rotation=rotation), 1.0


def _mapped(box: Box, matrix: pymupdf.Matrix) -> Box:
    rect = pymupdf.Rect(box.x0, box.y0, box.x1, box.y1) * matrix  # type: ignore[no-untyped-call]
    return Box(rect.x0, rect.y0, rect.x1, rect.y1)
