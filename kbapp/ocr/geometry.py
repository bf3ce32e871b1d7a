"""The box type OCR results are expressed in (axis-aligned, pixels of the image read) and the size bound."""

from __future__ import annotations

from dataclasses import dataclass

# About a 300 dpi A3 scan. Image files above it are refused before decoding, PDF pages are
# rendered at a lower dpi; the engine checks again so no caller can hand it more.
MAX_PIXELS = 36_000_000


@dataclass(frozen=True, slots=True)
class Box:
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    def shares_columns_with(self, other: Box) -> bool:
        """The two boxes overlap horizontally: one stands under the other, as cells of a column do."""
        return min(self.x1, other.x1) > max(self.x0, other.x0)

    def scaled(self, factor: float) -> Box:
        """The same box in another unit (pixels to PDF points: 72 / dpi)."""
        return Box(self.x0 * factor, self.y0 * factor, self.x1 * factor, self.y1 * factor)
