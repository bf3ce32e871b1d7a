"""Word gaps the recogniser read as nothing get their space back, and letter spacing does not."""

from __future__ import annotations

import numpy as np

from kbapp.ocr.spacing import add_spaces

HEIGHT = 40


def line_crop(widths: list[int], gaps: list[int]) -> tuple[np.ndarray, list[float]]:
    """A white crop with a black bar per character (``widths``), ``gaps`` blank columns after each,
    and the characters' edges as the recogniser gives them (each one up to the next one's start)."""
    columns, edges, x = [], [0.0], 0
    for width, gap in zip(widths, gaps, strict=True):
        columns += [0] * width + [255] * gap
        x += width + gap
        edges.append(float(x))
    row = np.array(columns, dtype=np.uint8)
    crop = np.repeat(np.repeat(row[None, :, None], HEIGHT, axis=0), 3, axis=2)
    crop[:5] = crop[-5:] = 255  # paper above and below the letters
    return crop, edges


def test_a_wide_gap_between_capitals_becomes_a_space() -> None:
    crop, edges = line_crop([12] * 8, [3, 3, 3, 14, 3, 3, 3, 0])  # COOLPUMP, a word gap after L
    text, new_edges = add_spaces("COOLPUMP", edges, crop)
    assert text == "COOL PUMP"
    assert len(new_edges) == len(text) + 1 and new_edges[4] == new_edges[5]  # the space is zero wide


def test_even_letter_spacing_and_spaces_already_read_stay_as_they_are() -> None:
    crop, edges = line_crop([12] * 8, [6] * 7 + [0])
    assert add_spaces("ABCDEFGH", edges, crop) == ("ABCDEFGH", edges)
    crop, edges = line_crop([12] * 5, [3, 14, 14, 3, 0])
    assert add_spaces("AB CD", edges, crop)[0] == "AB CD"  # too few letter pairs to judge: unchanged
