"""Keyword search without vectors in a library of two languages: the other language's matches are
read against their own best, as hybrid search reads them (``searcher._candidates``, ``fusion``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbapp.library import KnowledgeBase
from kbapp.search.fusion import POOL_FLOOR


@pytest.fixture
def plant(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A Chinese log book whose first five sections note alarms reset (报警, 复位), and an English
    panel guide whose one page says how to reset the alarm."""
    docs = tmp_path / "docs"
    docs.mkdir()
    sections = [
        f"# 记录{i}\n\n" + "每次报警复位以后，" * times + "登记一次。"
        for i, times in enumerate([5, 4, 3, 3, 2])
    ]
    sections += [f"# 润滑{i}\n\n第{i}号轴承每月加注润滑脂，并检查密封圈。" for i in range(30)]
    (docs / "泵站.md").write_text("\n\n".join(sections), "utf-8")
    pages = [
        f"# Pump {i}\n\nCheck the oil level of pump {i} every week."
        + (" Test its alarm." if i < 3 else " Reset its counter." if i < 6 else "")
        for i in range(30)
    ]
    pages.append("# Panel\n\nTo reset the alarm, hold the button for three seconds.")
    (docs / "panel.md").write_text("\n\n".join(pages), "utf-8")
    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb:
        assert kb.import_paths([docs]).ok
        yield kb


def test_the_other_languages_answer_is_not_crowded_out(plant: KnowledgeBase) -> None:
    """怎么复位报警 ("how do I reset the alarm"): the English page matches through the dictionary
    only, on words more of its pages use, and by BM25 alone it came sixth, after every section of
    the log book that names both words."""
    response = plant.search("怎么复位报警", mode="lexical")
    names = [Path(r.path).name for r in response.results]
    assert "panel.md" in names[:3]
    answer = response.results[names.index("panel.md")]
    assert "reset the alarm" in answer.text
    best = response.results[0]
    assert best.score == 1.0 and Path(best.path).name == "泵站.md"
    # Its pool's best is under POOL_FLOOR of the log book's: read against that, not against its own.
    assert answer.score == pytest.approx(answer.why["bm25"] / (POOL_FLOOR * best.why["bm25"]), abs=1e-5)
