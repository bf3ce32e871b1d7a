"""Text-line detection: the PP-OCRv4 DB model's probability map turned into axis-aligned line boxes.

Scanned manuals are near-upright, so a line is the bounding box of one connected blob of the
thresholded map, grown by the DB "unclip" distance. Blobs are labelled from horizontal runs with
a union-find, which keeps post-processing to numpy plus one Python pass over runs (a few thousand
per page) and avoids an OpenCV dependency for contours.

A blob is kept when the mean probability over its own pixels reaches ``_BOX_THRESHOLD``. The mean
over its bounding box (PP-OCR's fast mode) drops whenever the blob is not a filled rectangle: a
line of text touching the rule of a table under it becomes one blob whose box is mostly the rule's
empty surroundings, and the whole line was dropped (the Chinese development manual's fitting
pages, 3, 7, 11, ...: 4.70 % CER with the box mean, 3.17 % with this score; the English manual's
1.32 % and 1.33 %). ``_BOX_THRESHOLD`` is PP-OCR's default box threshold, not fitted: 0.5, 0.6
and 0.7 gave the same text on those pages.
"""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
from PIL import Image

from kbapp.ocr.geometry import Box

_THRESHOLD = 0.3
_BOX_THRESHOLD = 0.6
UNCLIP_RATIO = 1.6
_MIN_SIDE = 3
# The model sees the page with its short side at least this long (the PP-OCR "min" limit), and
# its long side at most _MAX_SIDE: 150 dpi pages pass unscaled, tiny images are enlarged.
_MIN_SHORT_SIDE = 736
_MAX_SIDE = 2048


class Detector:
    def __init__(self, session: ort.InferenceSession) -> None:
        self._session = session
        self._input = session.get_inputs()[0].name

    def __call__(self, image: np.ndarray) -> list[tuple[Box, float]]:
        """Line boxes in ``image`` pixel coordinates with their mean probability, in reading order."""
        height, width = image.shape[:2]
        batch, scale_x, scale_y = _prepare(image)
        prob = self._session.run(None, {self._input: batch})[0][0, 0]
        found = []
        for top, bottom, left, right, score in _blobs(prob, prob > _THRESHOLD):
            if score < _BOX_THRESHOLD or min(bottom - top, right - left) < _MIN_SIDE:
                continue
            w, h = right - left, bottom - top
            grow = w * h * UNCLIP_RATIO / (2 * (w + h))
            box = Box(
                max(0.0, (left - grow) / scale_x),
                max(0.0, (top - grow) / scale_y),
                min(float(width), (right + grow) / scale_x),
                min(float(height), (bottom + grow) / scale_y),
            )
            if box.width > _MIN_SIDE and box.height > _MIN_SIDE:
                found.append((box, score))
        return reading_order(found)


def reading_order(found: list[tuple[Box, float]]) -> list[tuple[Box, float]]:
    """Rows top to bottom, each left to right. A row is boxes whose vertical centres fall inside
    its first box's span: sorting by the top edge alone would put a tall title ahead of the
    section number boxed apart on its left."""
    ordered: list[tuple[Box, float]] = []
    row: list[tuple[Box, float]] = []
    for item in sorted(found, key=lambda item: (item[0].y0 + item[0].y1) / 2):
        if row and not row[0][0].y0 <= (item[0].y0 + item[0].y1) / 2 <= row[0][0].y1:
            ordered.extend(sorted(row, key=lambda member: member[0].x0))
            row = []
        row.append(item)
    ordered.extend(sorted(row, key=lambda member: member[0].x0))
    return ordered


def _prepare(image: np.ndarray) -> tuple[np.ndarray, float, float]:
    height, width = image.shape[:2]
    ratio = max(1.0, _MIN_SHORT_SIDE / min(height, width))
    ratio = min(ratio, _MAX_SIDE / max(height, width))
    new_h = max(32, round(height * ratio / 32) * 32)
    new_w = max(32, round(width * ratio / 32) * 32)
    if (new_h, new_w) != (height, width):
        image = np.asarray(Image.fromarray(image).resize((new_w, new_h), Image.Resampling.BILINEAR))
    # The model was trained on BGR input normalised to [-1, 1].
    batch = (image[:, :, ::-1].astype(np.float32) / 127.5 - 1.0).transpose(2, 0, 1)[np.newaxis]
    return np.ascontiguousarray(batch), new_w / width, new_h / height


def _blobs(prob: np.ndarray, mask: np.ndarray) -> list[tuple[int, int, int, int, float]]:
    """Bounding boxes (top, bottom, left, right; exclusive ends) of the 8-connected blobs of ``mask``,
    each with the mean of ``prob`` over the blob's own pixels."""
    edges = np.diff(mask.astype(np.int8), axis=1, prepend=0, append=0)
    rows, starts = np.nonzero(edges == 1)
    _, ends = np.nonzero(edges == -1)
    count = len(rows)
    if count == 0:
        return []
    parent = list(range(count))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    row_first = np.searchsorted(rows, np.arange(mask.shape[0] + 1))
    rows_l, starts_l, ends_l = rows.tolist(), starts.tolist(), ends.tolist()
    for i in range(count):
        row = rows_l[i]
        if row == 0:
            continue
        # Runs of the previous row that touch this one (diagonal contact counts: 8-connectivity).
        for j in range(row_first[row - 1], row_first[row]):
            if starts_l[j] > ends_l[i]:
                break
            if ends_l[j] >= starts_l[i]:
                a, b = find(i), find(j)
                if a != b:
                    parent[a] = b
    cumulative = np.zeros((prob.shape[0], prob.shape[1] + 1), dtype=np.float64)
    np.cumsum(prob, axis=1, out=cumulative[:, 1:])
    run_sums = (cumulative[rows, ends] - cumulative[rows, starts]).tolist()
    boxes: dict[int, list[float]] = {}
    for i in range(count):
        root = find(i)
        box = boxes.get(root)
        width = ends_l[i] - starts_l[i]
        if box is None:
            boxes[root] = [rows_l[i], rows_l[i] + 1, starts_l[i], ends_l[i], run_sums[i], width]
        else:
            box[0] = min(box[0], rows_l[i])
            box[1] = max(box[1], rows_l[i] + 1)
            box[2] = min(box[2], starts_l[i])
            box[3] = max(box[3], ends_l[i])
            box[4] += run_sums[i]
            box[5] += width
    return [(int(b[0]), int(b[1]), int(b[2]), int(b[3]), b[4] / b[5]) for b in boxes.values()]
