"""Ranked chunks → results: neighbouring chunks of one passage are shown once."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

from kbapp.library import KnowledgeBase
from tests.conftest import write_pdf


def _sentences(topic: str, count: int) -> str:
    """Long sentences (over the chunker's overlap budget), so neighbouring chunks only touch."""
    return " ".join(
        f"Step {i}: when the {topic} flange is serviced, the technician records the torque, the gasket "
        f"batch, the ambient temperature, the humidity, the operator's badge number and the time of day "
        f"in the maintenance log before the line is restarted for inspection round {i}."
        for i in range(count)
    )


def test_touching_neighbours_are_one_result(tmp_path: Path) -> None:
    doc = tmp_path / "flange.txt"
    doc.write_text(f"Flange service\n\n{_sentences('intake', 12)}\n\n{_sentences('outlet', 12)}\n", "utf-8")
    with KnowledgeBase(tmp_path / "lib") as kb:
        assert kb.import_paths([doc]).ok
        with kb.engine.connect() as conn:
            spans = conn.exec_driver_sql("SELECT char_start, char_end FROM chunks ORDER BY ord").all()
        assert len(spans) >= 3
        touching = [(a, b) for a, b in pairwise(spans) if a[1] <= b[0]]
        assert touching, f"the text should give chunks that touch without overlapping: {spans}"

        res = kb.search("flange torque gasket", k=10, mode="lexical")
        assert len(res.results) == 1, [(r.char_start, r.char_end) for r in res.results]
        (result,) = res.results
        assert result.why["merged_chunks"] == len(spans)
        assert (result.char_start, result.char_end) == (spans[0][0], spans[-1][1])
        assert "intake" in result.text and "outlet" in result.text


def test_touching_sections_stay_separate_results(tmp_path: Path) -> None:
    doc = tmp_path / "pump.md"
    intake = _sentences("intake", 6) + " The zebra valve closes last."
    outlet = "The zebra valve opens first. " + _sentences("outlet", 6)
    doc.write_text(f"# Intake\n\n{intake}\n\n# Outlet\n\n{outlet}\n", "utf-8")
    with KnowledgeBase(tmp_path / "lib") as kb:
        assert kb.import_paths([doc]).ok
        with kb.engine.connect() as conn:
            rows = conn.exec_driver_sql(
                "SELECT ord, char_start, char_end, heading FROM chunks WHERE text LIKE '%zebra%' ORDER BY ord"
            ).all()
        (first, second) = rows
        assert second.ord == first.ord + 1 and second.char_start - first.char_end <= 2, rows  # they touch
        assert (first.heading, second.heading) == ("Intake", "Outlet")
        res = kb.search("zebra", k=10, mode="lexical")
    assert sorted(r.heading for r in res.results) == ["Intake", "Outlet"]


def test_every_page_is_listed_once_before_any_page_twice(tmp_path: Path) -> None:
    """A second passage from a page already listed waits until the other matching pages have had
    their first; it is not dropped."""

    def log(page: int, n: int) -> list[str]:
        return [
            f"Line {page}.{i}: the operator logs torque, gasket batch, humidity and badge." for i in range(n)
        ]

    pdf = write_pdf(
        tmp_path / "service.pdf",
        [
            ["Service log", "The zebra valve and its seat.", *log(1, 28), "Zebra valve spring.", *log(1, 10)],
            [*log(2, 20), "Page two mentions the zebra once.", *log(2, 20)],
            [*log(3, 20), "Page three mentions the zebra too.", *log(3, 20)],
        ],
    )
    with KnowledgeBase(tmp_path / "lib") as kb:
        assert kb.import_paths([pdf]).ok
        res = kb.search("zebra valve", k=10, mode="lexical")
    pages = [r.page for r in res.results]
    # Both passages of page 1 match both words and outrank the other pages' one word.
    assert all(r.why["keyword_coverage"] == 1.0 for r in res.results if r.page == 1)
    assert pages == [1, 2, 3, 1], pages
