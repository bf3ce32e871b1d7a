"""The box type OCR results are expressed in: axis-aligned, in pixels of the image that was read."""

from __future__ import annotations

from dataclasses import dataclass


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

    def scaled(self, factor: float) -> Box:
        """The same box in another unit (pixels to PDF points: 72 / dpi)."""
        return Box(self.x0 * factor, self.y0 * factor, self.x1 * factor, self.y1 * factor)
