"""What the encoder sees of a passage: the chunk with the context that says what it is about."""

from __future__ import annotations

from kbapp.importing.embedding_job import passage_for_embedding


def test_a_short_passage_gets_its_title_and_heading_path() -> None:
    text = passage_for_embedding("Set it to 24 V.", "Power > Supply", "XK-200 Manual")
    assert text == "XK-200 Manual > Power > Supply\nSet it to 24 V."


def test_the_title_is_not_repeated_when_the_heading_path_starts_with_it() -> None:
    title = "Nutrition and physical activity guidelines for cancer survivors."
    text = passage_for_embedding("Second half of the abstract.", title, title)
    assert text == f"{title}\nSecond half of the abstract."


def test_context_the_passage_already_starts_with_is_left_out() -> None:
    assert passage_for_embedding("Pump Manual\n\nCheck the seal.", "Pump Manual", "Pump Manual") == (
        "Pump Manual\n\nCheck the seal."
    )
    assert passage_for_embedding("Check the seal.", "", "") == "Check the seal."
