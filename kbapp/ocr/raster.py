"""Pixels to OCR: PDF pages rendered at a fixed dpi, image files decoded frame by frame, all size-bounded.

Every decode is checked against a pixel budget from the header before any pixels are allocated,
so a 10,000 × 10,000 photo or a decompression bomb is refused with a clear reason instead of
exhausting the worker's memory. Multi-page TIFFs yield one frame per page; phone photos are
turned upright by their EXIF orientation first.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pymupdf
from PIL import Image, ImageOps, ImageSequence, UnidentifiedImageError

from kbapp.ocr.geometry import MAX_PIXELS

OCR_DPI = 150


class ImageInputError(ValueError):
    """An image file that cannot be OCR'd, with a reason a user can act on."""


class ImageTooLarge(ImageInputError):
    """An image over the pixel budget: refused before decoding."""


def render_page(page: pymupdf.Page, dpi: int = OCR_DPI) -> tuple[np.ndarray, float]:
    """The page as RGB pixels and the pixels-per-point scale they were rendered at."""
    rect = page.rect
    scale = dpi / 72
    area = rect.width * rect.height * scale * scale
    if area > MAX_PIXELS:
        scale *= (MAX_PIXELS / area) ** 0.5 * 0.99  # the pixmap rounds its size outwards
    pix = page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), colorspace=pymupdf.csRGB, alpha=False)  # type: ignore[no-untyped-call]
    image = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.stride)
    return image[:, : pix.width * 3].reshape(pix.height, pix.width, 3).copy(), scale


def image_frames(path: Path) -> Iterator[np.ndarray]:
    """Each page of an image file as RGB pixels, refusing over-large or undecodable images."""
    try:
        with _opened(path) as image:
            for index, frame in enumerate(ImageSequence.Iterator(image)):
                _check_size(path, frame.size, index)
                yield _to_rgb(ImageOps.exif_transpose(frame) if index == 0 else frame)
    except (UnidentifiedImageError, Image.DecompressionBombError) as error:
        raise ImageInputError(f"{path.name}: not a readable image ({error})") from error
    except (OSError, SyntaxError, ValueError) as error:
        if isinstance(error, ImageInputError):
            raise
        raise ImageInputError(f"{path.name}: the image is damaged ({error})") from error


def frame_count(path: Path) -> int:
    """How many pages the image has, after decoding each once: a damaged file fails at import."""
    count = 0
    for _ in image_frames(path):
        count += 1
    return count


def _opened(path: Path) -> Image.Image:
    """Open lazily; Pillow's own bomb warning is silenced because ``_check_size`` refuses with a reason."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        return Image.open(path)


def _check_size(path: Path, size: tuple[int, int], index: int) -> None:
    width, height = size
    if width * height > MAX_PIXELS:
        where = f" (page {index + 1})" if index else ""
        raise ImageTooLarge(
            f"{path.name}{where}: image is {width}×{height} pixels ({width * height / 1e6:.0f} MP), over the "
            f"{MAX_PIXELS // 1_000_000} MP limit for OCR; scale it down and import it again"
        )


def _to_rgb(frame: Image.Image) -> np.ndarray:
    if frame.mode in ("RGBA", "LA", "PA") or (frame.mode == "P" and "transparency" in frame.info):
        rgba = frame.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        frame = Image.alpha_composite(white, rgba)
    return np.asarray(frame.convert("RGB"), dtype=np.uint8).copy()
