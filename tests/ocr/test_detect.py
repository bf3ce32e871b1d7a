"""Which blobs of the detector's probability map become text lines (the model replaced by a map)."""

from __future__ import annotations

import numpy as np

from kbapp.ocr.detect import Detector

SIDE = 736  # the detector's smallest input side: a page this size reaches the model unscaled


class _Input:
    name = "x"


class _Session:
    """Stands in for the ONNX session: returns a fixed probability map whatever the image."""

    def __init__(self, prob: np.ndarray) -> None:
        self._prob = prob

    def get_inputs(self) -> list[_Input]:
        return [_Input()]

    def run(self, _outputs: None, _feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        return [self._prob[np.newaxis, np.newaxis]]


def _lines(prob: np.ndarray) -> list[tuple[int, int, int, int]]:
    detector = Detector(_Session(prob))  # type: ignore[arg-type]
    page = np.full((SIDE, SIDE, 3), 255, dtype=np.uint8)
    return [(round(b.x0), round(b.y0), round(b.x1), round(b.y1)) for b, _ in detector(page)]


def test_a_line_touching_a_table_rule_is_kept() -> None:
    """The rule under a table row touches the row's text: one blob, whose bounding box is mostly
    the rule's faint band. Scored over the box, the whole row fell under the threshold."""
    prob = np.zeros((SIDE, SIDE), dtype=np.float32)
    prob[200:209, 100:300] = 0.95  # the text of the row
    prob[209:211, 100:700] = 0.35  # the rule below it, faint but above the map's threshold
    assert float(prob[200:211, 100:700].mean()) < 0.5  # what the bounding box alone would say
    assert len(_lines(prob)) == 1


def test_faint_blobs_and_specks_are_not_lines() -> None:
    prob = np.zeros((SIDE, SIDE), dtype=np.float32)
    prob[100:112, 100:400] = 0.45  # a smudge the model is unsure of
    prob[300:302, 300:302] = 0.99  # a speck under the smallest side
    prob[500:512, 100:400] = 0.9  # a line
    lines = _lines(prob)
    assert len(lines) == 1
    top, bottom = lines[0][1], lines[0][3]
    assert 480 <= top <= 500 and 512 <= bottom <= 530  # the line, grown by the unclip distance


def test_a_blank_map_has_no_lines() -> None:
    assert _lines(np.zeros((SIDE, SIDE), dtype=np.float32)) == []
