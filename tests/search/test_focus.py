"""A result opens on the part of its passage that matches the question best, not on its first
match: a common word early in a passage must not hide the rare words that made it rank."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from kbapp.library import KnowledgeBase
from kbapp.search.focus import focus


def test_the_window_with_the_most_distinct_weight_wins_and_ties_go_to_the_earliest() -> None:
    text = "time " * 10 + "x" * 300 + " usbasp simultaneously time"
    late = text.index("usbasp")
    occurrences = [(i * 5, i * 5 + 4, "time") for i in range(10)]
    occurrences += [(late, late + 6, "usbasp"), (late + 7, late + 21, "simultaneously")]
    occurrences.append((late + 22, late + 26, "time"))
    weights = {"time": 0.3, "usbasp": 4.0, "simultaneously": 2.5}
    assert focus(text, occurrences, weights) == late
    # The same weight in two windows: the first one, so a passage opens where it always did.
    assert focus(text, occurrences, {"time": 1.0}) == 0
    assert focus(text, [], weights) == 0


def test_the_window_chosen_does_not_change_from_process_to_process() -> None:
    """A window's weight is summed over a set of terms, whose order follows each process's string
    hashing: 0.1 + 0.2 + 0.3 is 0.6 in one order and 0.6000000000000001 in another, and the same
    search opened its snippet at another place on every run. Asked in processes with different
    hash seeds, the answer is the same."""
    code = (
        "from kbapp.search.focus import focus\n"
        "text = 'aa bb cc ' + 'x' * 300 + ' dd'\n"
        "late = text.index('dd')\n"
        "occurrences = [(0, 2, 'aa'), (3, 5, 'bb'), (6, 8, 'cc'), (late, late + 2, 'dd')]\n"
        "weights = {'aa': 0.3, 'bb': 0.2, 'cc': 0.1, 'dd': 0.1 + 0.2 + 0.3}\n"
        "print(focus(text, occurrences, weights))\n"
    )
    answers = set()
    for seed in range(12):
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        assert run.returncode == 0, run.stderr
        answers.add(int(run.stdout))
    assert len(answers) == 1


def test_a_result_opens_on_its_rare_words(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(6):  # "time" is common in this library, "USBasp" is not
        (docs / f"log{i}.txt").write_text(
            f"Service log {i}\n\nEach time the unit starts, the time of day and the run time are recorded.\n",
            "utf-8",
        )
    filler = " ".join(f"Line {i} of the wiring table lists the colour of one more lead." for i in range(8))
    (docs / "programmers.txt").write_text(
        "Troubleshooting\n\nThis time the target answers on the first try, and the fuse can be cleared. "
        f"{filler} Problem: Multiple USBasp programmers connected simultaneously are not found. "
        "Solution: add the bus and device numbers to the -P usb option.\n",
        "utf-8",
    )
    with KnowledgeBase(tmp_path / "lib") as kb:
        assert kb.import_paths([docs]).ok
        response = kb.search("USBasp programmers simultaneously time", k=5, mode="lexical")
    top = response.results[0]
    assert Path(top.path).name == "programmers.txt"
    assert top.text[top.focus :].startswith("USBasp"), top.text[top.focus : top.focus + 40]
    first = top.highlights[0][0]
    assert top.text[first:].startswith("time")  # what the snippet used to open on
    start, end = top.snippet_span(60, 260)
    assert "USBasp" in top.text[start:end] and "simultaneously" in top.text[start:end]
