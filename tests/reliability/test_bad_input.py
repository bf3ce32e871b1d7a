"""A corpus of bad input, generated here, imported in one go: no crash, each file its own message,
and the good files of the same import all searchable."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from kbapp.importing.limits import ParseLimits
from kbapp.library import KnowledgeBase
from tests.reliability.conftest import hits
from tests.reliability.corpus import Case, build_bad_corpus, write_good


def _check(case: Case, outcome: str, message: str, kind: str | None, kb: KnowledgeBase) -> None:
    name = Path(case.name).name
    assert outcome == case.outcome, f"{case.name}: {message}"
    assert message.startswith(f"{name}:"), message
    assert all(w in message.lower() for w in case.words), f"{case.name}: {message}"
    if case.kind is not None:
        assert kind == case.kind, f"{case.name}: {kind} {message}"
    if case.present is not None:
        assert name in hits(kb, case.present), f"{case.name}: {case.present} not found"
    if case.absent is not None:
        assert not hits(kb, case.absent), f"{case.name}: {case.absent} should not be indexed"


def run_corpus(tmp_path: Path, *, huge_text: bool, limits: ParseLimits) -> None:
    root = tmp_path / "corpus"
    cases = build_bad_corpus(root, huge_text=huge_text)
    rnd = random.Random(3)
    good = [
        write_good(root / "good", 900 + i, kind, 300, rnd)
        for i, kind in enumerate(("md", "txt", "pdf", "html", "docx"))
    ]
    with KnowledgeBase(tmp_path / "lib", pack_dir=None, parse_limits=limits) as kb:
        report = kb.import_paths([root])
        assert report.error is None
        files = {os.path.relpath(f.path, root): f for f in report.files}
        problems = {os.path.relpath(p, root): why for p, why in report.problems}
        for case in cases:
            if case.outcome == "problem":
                assert all(w in problems[case.name] for w in case.words), problems
                continue
            f = files[case.name]
            _check(case, str(f.outcome), f.message, f.kind, kb)
        for doc in good:
            assert hits(kb, doc.begin) == {doc.path.name} and hits(kb, doc.end) == {doc.path.name}
        assert kb.verify().ok
    kinds = {c.name for c in cases}
    assert len(kinds) >= 30


def test_bad_input_corpus(tmp_path: Path) -> None:
    run_corpus(tmp_path, huge_text=False, limits=ParseLimits(seconds=120, memory_mb=3072))


@pytest.mark.slow
def test_bad_input_corpus_with_50_mb_single_line(tmp_path: Path) -> None:
    """A 50 MB text on one line is read and chunked, its last word searchable. The time limit is
    generous: this checks that such a file is handled, not how fast (under load it took > 30 s)."""
    run_corpus(tmp_path, huge_text=True, limits=ParseLimits(seconds=300, memory_mb=3072))
