"""A question word's dictionary translations count as that one word (``crossing.Bridged.weights``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbapp.library import KnowledgeBase
from kbapp.search.crossing import Bridged
from kbapp.search.lexical import TermStats
from kbapp.text.terms import query_terms


def _bridged(translations: dict[str, list[str]]) -> Bridged:
    out = Bridged()
    for source, words in translations.items():
        for word in words:
            for term in query_terms(word):
                out.terms.append(term)
                out.sources[term.text] = source
                out.translations[term.text] = word
    return out


def test_translations_share_the_weight_of_the_word_they_translate() -> None:
    bridged = _bridged(
        {"得到": ["get", "obtain", "receive"], "校准": ["calibrate"], "命令行": ["command line"]}
    )
    terms = {t.text: t for t in bridged.terms}
    assert set(terms) >= {"get", "obtain", "receiv", "calibr", "command", "line"}
    rare = TermStats(1000, {"get": 3, "obtain": 3, "receiv": 3, "calibr": 5, "command": 40, "line": 300})
    common = TermStats(
        1000, {"get": 120, "obtain": 120, "receiv": 120, "calibr": 5, "command": 40, "line": 300}
    )
    weights = bridged.weights(rare)
    # One translation the library holds (a phrase is one translation, however many its words).
    assert "calibr" not in weights and "command" not in weights and "line" not in weights
    assert set(weights) == {"get", "obtain", "receiv"} and len(set(weights.values())) == 1
    # Three translations reach three times the passages: each says less than it would alone, and
    # the more passages they reach together, the less.
    assert 0 < bridged.weights(common)["get"] < weights["get"] < 1


def test_a_translation_the_library_lacks_leaves_the_others_whole() -> None:
    bridged = _bridged({"得到": ["get", "obtain", "receive"]})
    assert bridged.weights(TermStats(1000, {"get": 50, "obtain": 0, "receiv": 0})) == {}


@pytest.fixture
def readings(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Half the notes say how readings are got, obtained or received; one page says all three, and
    one says how to calibrate."""
    docs = tmp_path / "docs"
    docs.mkdir()
    verbs = ["get", "obtain", "receive"]
    for i in range(30):
        verb = verbs[i % 3] if i < 15 else "log"
        (docs / f"note{i:02}.txt").write_text(
            f"Note {i}\n\nOperators {verb} the hourly readings from panel {i}.\n", "utf-8"
        )
    (docs / "logger.txt").write_text("Logger\n\nYou get, obtain and receive the readings here.\n", "utf-8")
    (docs / "sensor.txt").write_text("Sensor\n\nCalibrate the sensor every month.\n", "utf-8")
    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb:
        assert kb.import_paths([docs]).ok
        yield kb


def test_a_common_words_translations_do_not_outweigh_a_rare_one(readings: KnowledgeBase) -> None:
    """怎样得到校准 ("how to get calibrated"): the page that says all three English words for 得到
    had outranked the one page on calibrating, each translation adding its own IDF."""
    response = readings.search("怎样得到校准", mode="lexical")
    assert Path(response.results[0].path).name == "sensor.txt"
    assert Path(response.results[1].path).name == "logger.txt"
