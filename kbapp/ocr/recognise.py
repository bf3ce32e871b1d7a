"""Text-line recognition: PP-OCRv4 CTC recogniser, with where each character sits along the line.

The character list is read from the model's own metadata (blank first, space last, as PP-OCR
trained it), so the recogniser and its alphabet cannot drift apart. CTC frames tell where each
character was read; those positions become character edges so a search hit can be boxed on
the scan.
"""

from __future__ import annotations

import itertools
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import onnxruntime as ort
from PIL import Image

_HEIGHT = 48
# PP-OCR pads every batch to at least 320 px; short crops (page numbers, table cells) read the
# same without it (CER on the fit pages, page numbers 3, 11, 19, ...: 6.30 % vs 6.31 % English,
# 3.06 % vs 3.04 % Chinese) and it was ~10 % of the recogniser's pixels on a manual page.
_MIN_WIDTH = 8
# Widest line crop fed to the model (a 150 dpi A4 line at 48 px high is ~1500-2500 px wide).
_MAX_WIDTH = 3200
# The model emits one CTC frame per 8 input columns (50 frames for 400 px, 51 for 408 px). Taking
# the padded batch width over the frame count instead put a crop's character edges up to ~1 %
# off depending on which batch it landed in.
_FRAME_WIDTH = 8


@dataclass(frozen=True, slots=True)
class Reading:
    """One crop's text, mean character confidence, and ``len(text) + 1`` edges in crop pixels."""

    text: str
    score: float
    edges: list[float]


class Recogniser:
    """Reads line crops on ``threads`` threads at once, each a whole line on one core.

    ``session`` should run on one thread: a line is too small a job to split across cores (the
    split costs more than it saves), and onnxruntime lets several threads run one session. On
    the 623 lines of ten SDCC manual pages (page numbers 2, 6, ..., 38), two lines at a time on a
    one-thread session took 7.2-7.8 s against 9.5-11.0 s for one line at a time on two threads,
    with the same text; whole pages (every fourth of the scanned SDCC manual, runs alternating
    with the old way) went from 0.62-0.71 to 0.74-0.83 pages/s. Crops are still not batched:
    PP-OCR pads six crops to the widest, and batches of similar widths were slower here too
    (10-13 s) and changed 16-18 lines' text.
    """

    def __init__(self, session: ort.InferenceSession, threads: int = 1) -> None:
        self._session = session
        self._input = session.get_inputs()[0].name
        alphabet = session.get_modelmeta().custom_metadata_map["character"].splitlines()
        self._alphabet = ["", *alphabet, " "]
        self._pool = ThreadPoolExecutor(threads, "ocr-line") if threads > 1 else None

    def __call__(self, crops: list[np.ndarray]) -> list[Reading]:
        """Read RGB crops, each on its own (no padding to a batch's widest), in order."""
        if self._pool is None or len(crops) < 2:
            return [self._read(crop) for crop in crops]
        return list(self._pool.map(self._read, crops))

    def _read(self, crop: np.ndarray) -> Reading:
        resized = _resize(crop)
        width = max(_MIN_WIDTH, resized.shape[1])
        image = np.zeros((1, 3, _HEIGHT, width), dtype=np.float32)
        # BGR, scaled to [-1, 1], as the recogniser was trained.
        image[0, :, :, : resized.shape[1]] = resized[:, :, ::-1].transpose(2, 0, 1) / 127.5 - 1.0
        probs = self._session.run(None, {self._input: image})[0]
        return self._decode(probs[0], _FRAME_WIDTH * crop.shape[1] / resized.shape[1])

    def _decode(self, probs: np.ndarray, frame_width: float) -> Reading:
        best = probs.argmax(axis=1)
        confidence = probs.max(axis=1)
        chars: list[str] = []
        spans: list[list[int]] = []  # first and last frame of each emitted character
        scores: list[float] = []
        previous = 0
        for frame, index in enumerate(best.tolist()):
            if index != 0 and index == previous and spans:
                spans[-1][1] = frame
            elif index != 0:
                chars.append(self._alphabet[index])
                spans.append([frame, frame])
                scores.append(float(confidence[frame]))
            previous = index
        if not chars:
            return Reading("", 0.0, [0.0])
        edges = [max(0.0, (spans[0][0] - 0.5) * frame_width)]
        for (_, last), (first, _) in itertools.pairwise(spans):
            edges.append((last + 1 + first) / 2 * frame_width)
        edges.append((spans[-1][1] + 1) * frame_width)
        text = "".join(chars)
        return Reading(text, sum(scores) / len(scores), edges)


def _resize(crop: np.ndarray) -> np.ndarray:
    height, width = crop.shape[:2]
    new_w = max(1, min(_MAX_WIDTH, math.ceil(_HEIGHT * width / height)))
    return np.asarray(
        Image.fromarray(crop).resize((new_w, _HEIGHT), Image.Resampling.BILINEAR), dtype=np.float32
    )
