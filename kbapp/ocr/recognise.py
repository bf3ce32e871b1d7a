"""Text-line recognition: PP-OCRv4 CTC recogniser, with where each character sits along the line.

The character list is read from the model's own metadata (blank first, space last, as PP-OCR
trained it), so the recogniser and its alphabet cannot drift apart. CTC frames tell where each
character was read; those positions become character edges so a search hit can be boxed on
the scan.
"""

from __future__ import annotations

import itertools
import math
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
    def __init__(self, session: ort.InferenceSession) -> None:
        self._session = session
        self._input = session.get_inputs()[0].name
        alphabet = session.get_modelmeta().custom_metadata_map["character"].splitlines()
        self._alphabet = ["", *alphabet, " "]

    def __call__(self, crops: list[np.ndarray]) -> list[Reading]:
        """Read RGB crops one at a time. PP-OCR batches six crops padded to the widest; on two
        CPU threads one at a time read the same lines 40 % faster (101 lines of two SDCC manual
        pages: 1.60-1.75 s against 2.68-3.29 s), and no crop is read beside padding."""
        return [self._read(crop) for crop in crops]

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
