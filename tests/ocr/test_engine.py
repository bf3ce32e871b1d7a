from __future__ import annotations

import itertools

import numpy as np
import pytest

from kbapp.ocr.cer import cer
from kbapp.ocr.engine import OcrEngine, OcrInputError
from kbapp.ocr.geometry import MAX_PIXELS
from kbapp.ocr.models import OcrModelError, locate_models
from tests.ocr.conftest import EN_LINES, ZH_LINES, scan, text_pdf


def test_english_lines_are_read_in_order(engine: OcrEngine) -> None:
    page = engine.read(scan(EN_LINES))
    assert len(page.lines) == len(EN_LINES)
    assert all(cer(got.text, want) <= 0.05 for got, want in zip(page.lines, EN_LINES, strict=True))
    assert page.rotation == 0


def test_chinese_lines_are_read(engine: OcrEngine) -> None:
    page = engine.read(scan(ZH_LINES, fontname="china-s"))
    assert len(page.lines) == len(ZH_LINES)
    assert all(cer(got.text, want) <= 0.05 for got, want in zip(page.lines, ZH_LINES, strict=True))


def test_word_boxes_land_on_the_printed_word(engine: OcrEngine) -> None:
    dpi = 150
    page = engine.read(scan(EN_LINES, dpi=dpi))
    words = [word for line in page.lines for word in line.words()]
    word = next(word for word in words if word.text == "E5021")
    truth = text_pdf(EN_LINES)[0].search_for("E5021")[0]
    box = word.box.scaled(72 / dpi)
    # Within a few points of where PyMuPDF drew it: enough to highlight the right word.
    assert abs(box.x0 - truth.x0) < 6 and abs(box.x1 - truth.x1) < 6
    assert box.y0 < (truth.y0 + truth.y1) / 2 < box.y1


def test_chinese_characters_are_words_of_their_own(engine: OcrEngine) -> None:
    page = engine.read(scan(ZH_LINES[:1], fontname="china-s"))
    words = page.lines[0].words()
    assert [word.text for word in words if word.text != "第"][:2] == ["三", "章"]
    assert all(a.box.x1 <= b.box.x0 + 1 for a, b in itertools.pairwise(words))


@pytest.mark.parametrize("turns", [1, 2, 3])
def test_a_scan_lying_on_its_side_or_upside_down_is_read(engine: OcrEngine, turns: int) -> None:
    upright = scan(EN_LINES)
    page = engine.read(np.ascontiguousarray(np.rot90(upright, turns)))
    assert cer(page.text, "".join(EN_LINES)) <= 0.03
    assert page.rotation == (360 - 90 * turns) % 360
    # Boxes are in the coordinates of the image as given: inside it, and the turned lines'
    # long side follows the turned page.
    for line in page.lines:
        assert 0 <= line.box.x0 < line.box.x1 <= page.width and 0 <= line.box.y0 < line.box.y1 <= page.height
    long_line = max(page.lines, key=lambda line: len(line.text)).box
    assert (long_line.height > long_line.width) == (turns % 2 == 1)


def test_an_empty_white_page_has_no_lines(engine: OcrEngine) -> None:
    page = engine.read(np.full((1650, 1275, 3), 255, dtype=np.uint8))
    assert page.lines == [] and page.text == ""


def test_tiny_and_malformed_images(engine: OcrEngine) -> None:
    assert engine.read(np.zeros((4, 4, 3), dtype=np.uint8)).lines == []
    with pytest.raises(OcrInputError, match="RGB uint8"):
        engine.read(np.zeros((100, 100), dtype=np.uint8))


def test_oversized_images_are_refused_before_any_work(engine: OcrEngine) -> None:
    side = int(MAX_PIXELS**0.5) + 10
    huge = np.broadcast_to(np.uint8(255), (side, side, 3))
    with pytest.raises(OcrInputError, match="MP OCR limit"):
        engine.read(huge)


def test_a_tampered_model_is_rejected(tmp_path) -> None:
    models = locate_models()
    (tmp_path / models.detector.name).write_bytes(models.detector.read_bytes()[:-10])
    (tmp_path / models.recogniser.name).write_bytes(b"x")
    with pytest.raises(OcrModelError, match="sha256"):
        locate_models(tmp_path)


def test_lines_read_in_one_batch_read_as_they_do_one_by_one(engine: OcrEngine) -> None:
    image = scan([*EN_LINES, "Page 12", "OK"])
    boxes = engine._detect(image)
    crops = [
        np.ascontiguousarray(image[int(b.y0) : int(b.y1) + 1, int(b.x0) : int(b.x1) + 1]) for b, _ in boxes
    ]
    together = engine._recognise(crops)
    alone = [engine._recognise([crop])[0] for crop in crops]
    assert [r.text for r in together] == [r.text for r in alone]
    assert "OK" in [r.text for r in alone]  # a crop far narrower than PP-OCR's 320 px minimum
    # Padding beside a shorter crop can move a CTC peak by a frame (8 model columns), no more.
    for a, b, crop in zip(together, alone, crops, strict=True):
        assert np.allclose(a.edges, b.edges, atol=2 * 8 * crop.shape[0] / 48)
