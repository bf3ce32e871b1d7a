from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from kbapp.ocr.cer import cer
from kbapp.ocr.engine import OcrEngine
from kbapp.ocr.raster import ImageInputError, frame_count, image_frames, render_page
from tests.ocr.conftest import EN_LINES, ZH_LINES, scan, text_pdf


@pytest.mark.parametrize("suffix", [".png", ".jpg", ".tif"])
def test_image_files_decode_to_rgb_pages_that_read(engine: OcrEngine, tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"label{suffix}"
    Image.fromarray(scan(EN_LINES)).convert("L").save(path)
    frames = list(image_frames(path))
    assert len(frames) == 1 and frames[0].dtype == np.uint8 and frames[0].shape[2] == 3
    assert cer(engine.read(frames[0]).text, "".join(EN_LINES)) <= 0.03


def test_multi_page_tiff_yields_every_page(engine: OcrEngine, tmp_path: Path) -> None:
    path = tmp_path / "manual.tiff"
    first, second = (
        Image.fromarray(scan(EN_LINES[:1])),
        Image.fromarray(scan(ZH_LINES[:1], fontname="china-s")),
    )
    first.save(path, save_all=True, append_images=[second], compression="tiff_deflate")
    assert frame_count(path) == 2
    texts = [engine.read(frame).text for frame in image_frames(path)]
    assert len(texts) == 2
    assert cer(texts[0], EN_LINES[0]) <= 0.05 and cer(texts[1], ZH_LINES[0]) <= 0.05


def test_transparent_png_is_read_on_white(engine: OcrEngine, tmp_path: Path) -> None:
    ink = 255 - scan(EN_LINES[:1])[:, :, 0]
    rgba = np.zeros((*ink.shape, 4), dtype=np.uint8)
    rgba[:, :, 3] = ink  # black text whose only signal is alpha: unreadable unless composited on white
    path = tmp_path / "clear.png"
    Image.fromarray(rgba, "RGBA").save(path)
    assert cer(engine.read(next(image_frames(path))).text, EN_LINES[0]) <= 0.05


def test_corrupt_image_names_the_file_and_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "broken.png"
    good = tmp_path / "good.png"
    Image.fromarray(scan(EN_LINES[:1])).save(good)
    path.write_bytes(good.read_bytes()[:2000])
    with pytest.raises(ImageInputError, match=r"broken\.png: the image is damaged"):
        list(image_frames(path))
    (tmp_path / "noise.jpg").write_bytes(b"\x00not an image at all" * 50)
    with pytest.raises(ImageInputError, match=r"noise\.jpg: not a readable image"):
        list(image_frames(tmp_path / "noise.jpg"))


def test_a_ten_thousand_pixel_square_is_refused_without_decoding(tmp_path: Path) -> None:
    path = tmp_path / "poster.png"
    Image.new("1", (10_000, 10_000), 1).save(path)  # small on disk, 100 MP once decoded
    with pytest.raises(ImageInputError, match=r"poster\.png: image is 10000×10000 pixels \(100 MP\)"):
        list(image_frames(path))


def test_pdf_pages_render_at_150_dpi_and_huge_pages_are_scaled_down() -> None:
    page = text_pdf(EN_LINES)[0]
    image, scale = render_page(page)
    assert scale == pytest.approx(150 / 72)
    assert (
        abs(image.shape[0] - page.rect.height * scale) <= 1
        and abs(image.shape[1] - page.rect.width * scale) <= 1
    )
    poster = text_pdf(EN_LINES)
    poster[0].set_mediabox(poster[0].rect * 8)  # 68 × 88 inches
    image, scale = render_page(poster[0])
    assert image.shape[0] * image.shape[1] <= 36_000_000 and scale < 150 / 72
