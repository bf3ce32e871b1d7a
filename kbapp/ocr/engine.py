"""The OCR engine: one page image in, its text lines with character boxes out, bounded in size and threads.

Sessions are built once per process and capped at a few onnxruntime threads, because OCR runs
beside the GUI and the embedder on 2-core laptops. Pages are read upright; a scan lying on its
side (most detected lines taller than wide) is turned a quarter, and a page whose lines read
with low confidence is tried upside down, keeping whichever reads better. Boxes are always
reported in the coordinates of the image that was passed in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import onnxruntime as ort

from kbapp.ocr.detect import Detector
from kbapp.ocr.geometry import MAX_PIXELS, Box
from kbapp.ocr.models import OcrModels, locate_models
from kbapp.ocr.recognise import Recogniser
from kbapp.ocr.spacing import add_spaces
from kbapp.ocr.streamline import streamlined

DEFAULT_THREADS = 2
_MIN_LINE_SCORE = 0.5
_FLIP_CHECK_BELOW = 0.85
# Characters set one em wide and searchable one by one: CJK, Hangul, full-width forms.
WIDE_CHARS = "\u3000-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"


class OcrInputError(ValueError):
    """An image the engine will not read (too large, wrong shape)."""


@dataclass(frozen=True, slots=True)
class Word:
    text: str
    start: int
    end: int
    box: Box


@dataclass(frozen=True, slots=True)
class Line:
    """A line of text; character ``i`` spans ``edges[i]..edges[i + 1]`` horizontally within ``box``."""

    text: str
    box: Box
    score: float
    edges: tuple[float, ...]

    def char_box(self, start: int, end: int) -> Box:
        """The box of ``text[start:end]``."""
        return Box(self.edges[start], self.box.y0, self.edges[end], self.box.y1)

    def words(self) -> list[Word]:
        """Latin words split at spaces, CJK characters one by one (each is searchable alone)."""
        words = []
        for match in re.finditer(f"[^\\s{WIDE_CHARS}]+|\\S", self.text):
            words.append(Word(match.group(), match.start(), match.end(), self.char_box(*match.span())))
        return words


@dataclass(slots=True)
class OcrPage:
    width: int
    height: int
    lines: list[Line] = field(default_factory=list)
    rotation: int = 0  # degrees the page was turned clockwise to read it

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)


class OcrEngine:
    def __init__(self, models: OcrModels | None = None, threads: int = DEFAULT_THREADS) -> None:
        models = models or locate_models()
        threads = max(1, threads)
        providers = ["CPUExecutionProvider"]
        self._detect = Detector(
            ort.InferenceSession(streamlined(models.detector), _options(threads), providers=providers)
        )
        # Lines are read ``threads`` at a time, each on one core (``Recogniser``).
        self._recognise = Recogniser(
            ort.InferenceSession(streamlined(models.recogniser), _options(1), providers=providers),
            threads,
        )

    def read(self, image: np.ndarray) -> OcrPage:
        """OCR an RGB ``uint8`` image of shape (height, width, 3)."""
        if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise OcrInputError(f"expected an RGB uint8 image, got shape {image.shape} {image.dtype}")
        height, width = image.shape[:2]
        if height * width > MAX_PIXELS:
            raise OcrInputError(
                f"image is {width}×{height} pixels, over the {MAX_PIXELS // 1_000_000} MP OCR limit"
            )
        if min(height, width) < 8:
            return OcrPage(width, height)
        boxes = self._detect(image)
        quarter = 0
        if _mostly_vertical([box for box, _ in boxes]):
            quarter = 1
            boxes = self._detect(np.ascontiguousarray(np.rot90(image, 1)))
        lines = self._read_lines(np.rot90(image, quarter) if quarter else image, boxes)
        turns = quarter
        if lines and sum(line.score for line in lines) / len(lines) < _FLIP_CHECK_BELOW:
            flipped_image = np.ascontiguousarray(np.rot90(image, quarter + 2))
            flipped = self._read_lines(flipped_image, self._detect(flipped_image))
            if _mean_score(flipped) > _mean_score(lines):
                lines, turns = flipped, quarter + 2
        page = OcrPage(width, height, rotation=(turns * 90) % 360)
        for line in lines:
            if line.score >= _MIN_LINE_SCORE and line.text.strip():
                page.lines.append(_unrotate(line, turns, width, height))
        return page

    def _read_lines(self, image: np.ndarray, boxes: list[tuple[Box, float]]) -> list[Line]:
        crops = [image[int(b.y0) : int(b.y1) + 1, int(b.x0) : int(b.x1) + 1] for b, _ in boxes]
        keep = [i for i, crop in enumerate(crops) if crop.shape[0] >= 2 and crop.shape[1] >= 2]
        readings = self._recognise([np.ascontiguousarray(crops[i]) for i in keep])
        lines = []
        for i, reading in zip(keep, readings, strict=True):
            box = boxes[i][0]
            x0 = float(int(box.x0))
            text, crop_edges = add_spaces(reading.text, reading.edges, crops[i])
            edges = tuple(min(box.x1, x0 + edge) for edge in crop_edges)
            lines.append(Line(text, box, reading.score, edges))
        return lines


def _options(threads: int) -> ort.SessionOptions:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return options


def _mostly_vertical(boxes: list[Box]) -> bool:
    elongated = [box for box in boxes if max(box.width, box.height) > 2 * min(box.width, box.height)]
    tall = sum(1 for box in elongated if box.height > box.width)
    return len(elongated) >= 2 and tall > len(elongated) / 2


def _mean_score(lines: list[Line]) -> float:
    return sum(line.score for line in lines) / len(lines) if lines else 0.0


def _unrotate(line: Line, turns: int, width: int, height: int) -> Line:
    """Map a line read on ``np.rot90(image, turns)`` back to ``image`` coordinates.

    Character edges stay in the turned frame's x axis for upright pages only; on a turned page
    each character's box is mapped instead and the line keeps its edges along its own reading axis.
    """
    turns %= 4
    if turns == 0:
        return line
    mapped = _map_box(line.box, turns, width, height)
    return Line(line.text, mapped, line.score, line.edges)


def _map_box(box: Box, turns: int, width: int, height: int) -> Box:
    corners = [(box.x0, box.y0), (box.x1, box.y1)]
    points = []
    for x, y in corners:
        if turns == 1:
            points.append((width - y, x))
        elif turns == 2:
            points.append((width - x, height - y))
        else:
            points.append((y, height - x))
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return Box(min(xs), min(ys), max(xs), max(ys))
