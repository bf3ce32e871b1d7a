"""OCR test helpers: scans made in the test by rendering generated PDFs to pixels (no image fixtures)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pymupdf
import pytest

from kbapp.ocr.engine import OcrEngine

EN_LINES = [
    "Chapter 3 Image settings",
    "The exposure time controls how long the sensor collects light.",
    "Error E5021 means the exposure time is longer than the trigger period.",
]
ZH_LINES = ["第三章 图像设置", "曝光时间决定传感器采集光线的时长。", "错误码：曝光时间长于触发周期。"]


def text_pdf(lines: list[str], *, fontname: str = "helv", fontsize: float = 12) -> pymupdf.Document:
    doc = pymupdf.open()
    page = doc.new_page()
    y = 90
    for line in lines:
        page.insert_text((72, y), line, fontname=fontname, fontsize=fontsize)
        y += fontsize * 2
    return doc


def scan(lines: list[str], *, fontname: str = "helv", dpi: int = 150) -> np.ndarray:
    """The page as a scanner would deliver it: RGB pixels, no text layer."""
    page = text_pdf(lines, fontname=fontname)[0]
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csRGB, alpha=False)
    return np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, 3).copy()


def scanned_pdf(path: Path, pages: list[list[str] | None], *, fontname: str = "helv") -> Path:
    """An image-only PDF (None: a page with a real text layer, for mixed documents)."""
    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page()
        if lines is None:
            page.insert_text((72, 90), "Introduction: safety instructions for the operator.", fontsize=12)
            continue
        pixels = scan(lines, fontname=fontname)
        pix = pymupdf.Pixmap(pymupdf.csRGB, pixels.shape[1], pixels.shape[0], pixels.tobytes(), False)
        page.insert_image(page.rect, pixmap=pix)
    doc.save(path)
    return path


@pytest.fixture(scope="session")
def engine() -> OcrEngine:
    return OcrEngine(threads=2)
