"""Small documents are written several to a transaction: what a group changes must not show.

A file whose outcome depends on one not yet written (the same content) waits for it, so it is
still recognised as a duplicate; a stopped import leaves neither a partial group nor staged copies;
every file reported is in the library and marked done in the journal.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kbapp.contract import Outcome
from kbapp.library import KnowledgeBase


def _notes(folder: Path, count: int) -> Path:
    folder.mkdir()
    for i in range(count):
        (folder / f"note{i:02d}.txt").write_text(f"Note {i}\n\nPump zqgroup{i} needs a new seal.\n", "utf-8")
    return folder


def test_the_same_content_twice_in_one_group_is_a_duplicate(tmp_path: Path) -> None:
    folder = _notes(tmp_path / "docs", 6)
    (folder / "note99.txt").write_bytes((folder / "note03.txt").read_bytes())
    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb:
        report = kb.import_paths([folder])
        outcomes = {Path(f.path).name: f.outcome for f in report.files}
        assert outcomes.pop("note99.txt") is Outcome.DUPLICATE
        assert set(outcomes.values()) == {Outcome.IMPORTED}
        assert len(kb.documents()) == 6 and kb.verify().ok


def test_a_stopped_import_keeps_exactly_what_it_reported(tmp_path: Path) -> None:
    folder = _notes(tmp_path / "docs", 30)
    reported: list[str] = []

    def progress(p) -> None:  # type: ignore[no-untyped-def]
        if p.report is not None:
            reported.append(Path(p.report.path).name)
            if len(reported) == 2:
                raise KeyboardInterrupt  # dies with the rest of a group read and not yet written

    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb, pytest.raises(KeyboardInterrupt):
        kb.import_paths([folder], progress=progress)
    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb:
        stored = sorted(Path(d.path).name for d in kb.documents())
        done, remaining = kb.interrupted_import()  # type: ignore[misc]
        assert set(reported) <= set(stored) and sorted(Path(p).name for p in done) == stored
        assert len(done) + len(remaining) == 30
        assert not [p for p in (kb.data_dir / "files").rglob("*") if p.name.endswith(".tmp")]
        assert kb.verify().ok
        report = kb.resume_import()
        assert [f.outcome for f in report.files] == [Outcome.IMPORTED] * len(remaining)
        assert len(kb.documents()) == 30


def test_a_file_changed_and_its_old_content_elsewhere_are_told_apart(tmp_path: Path) -> None:
    """``a`` changes and ``b`` now holds ``a``'s old content: ``b`` is not a duplicate of a version
    that the same group replaces. (``0.txt`` comes first, so ``a`` is not written alone.)"""
    folder = _notes(tmp_path / "docs", 0)
    first, a, b = folder / "0.txt", folder / "a.txt", folder / "b.txt"
    first.write_text("Pump\n\nunchanged zqfirst\n", "utf-8")
    a.write_text("Valve\n\nold text zqold\n", "utf-8")
    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb:
        assert kb.import_paths([folder]).ok
        b.write_bytes(a.read_bytes())
        a.write_text("Valve\n\nnew text zqnew\n", "utf-8")
        os.utime(a, (1, 1))
        outcomes = {Path(f.path).name: f.outcome for f in kb.import_paths([folder]).files}
        assert outcomes == {"0.txt": Outcome.UNCHANGED, "a.txt": Outcome.UPDATED, "b.txt": Outcome.IMPORTED}
        assert kb.verify().ok
