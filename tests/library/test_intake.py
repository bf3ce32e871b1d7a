"""The intake every front end runs: an interrupted import first, then the new files, then embedding;
each stage only if the ones before finished, reported through one progress callback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

from kbapp.contract import (
    EmbedProgress,
    ImportProgress,
    IntakeProgress,
    IntakeStage,
)
from kbapp.embedding import default_pack_dir
from kbapp.library import KnowledgeBase
from kbapp.ocr.models import MODEL_DIR_ENV

PACK = default_pack_dir()
needs_pack = pytest.mark.skipif(not (PACK / "manifest.json").is_file(), reason=f"no model pack at {PACK}")
RESUME, IMPORT, EMBED = IntakeStage.RESUME, IntakeStage.IMPORT, IntakeStage.EMBED


def _notes(folder: Path, count: int, topic: str) -> Path:
    folder.mkdir()
    for i in range(count):
        text = f"{topic} {i}\n\nThe {topic} needs service every {i} weeks.\n"
        (folder / f"{topic}{i}.txt").write_text(text, encoding="utf-8")
    return folder


def _crash_after(files: int) -> Callable[[ImportProgress], None]:
    def progress(p: ImportProgress) -> None:
        if p.report is not None and p.done == files:
            raise KeyboardInterrupt  # the process dies here, as far as the journal can tell

    return progress


def _stages(events: list[IntakeProgress]) -> list[IntakeStage]:
    """The stages in the order they reported, each once."""
    return [e.stage for i, e in enumerate(events) if i == 0 or events[i - 1].stage != e.stage]


@needs_pack
def test_the_interrupted_import_then_the_new_files_then_embedding(tmp_path: Path) -> None:
    pumps, valves = _notes(tmp_path / "pumps", 4, "pump"), _notes(tmp_path / "valves", 2, "valve")
    with KnowledgeBase(tmp_path / "lib", pack_dir=PACK) as kb, pytest.raises(KeyboardInterrupt):
        kb.import_paths([pumps], progress=_crash_after(1))
    events: list[IntakeProgress] = []
    with KnowledgeBase(tmp_path / "lib", pack_dir=PACK) as kb:
        report = kb.intake([valves], resume=True, progress=events.append)
        assert kb.interrupted_import() is None and len(kb.documents()) == 6
    assert _stages(events) == [RESUME, IMPORT, EMBED]
    assert events[0].step == ImportProgress(1, 4, "")  # how far the interrupted import had got
    assert [len(r.files) for r in report.imports] == [3, 2] and report.ok
    # Each stage ends with an event without a step; later events carry the imports' reports.
    ends = [e for e in events if e.step is None]
    assert [e.stage for e in ends] == [RESUME, IMPORT, EMBED]
    assert [len(e.imports) for e in ends] == [1, 2, 2]
    embedding = [e.step for e in events if isinstance(e.step, EmbedProgress)]
    assert embedding[0] == EmbedProgress(0, 6) and embedding[-1] == EmbedProgress(6, 6)
    assert report.embedded is True and report.pending == 0 and report.ocr is None


@needs_pack
def test_a_cancelled_import_ends_the_intake(tmp_path: Path) -> None:
    pumps = _notes(tmp_path / "pumps", 3, "pump")
    imported: list[ImportProgress] = []

    def progress(p: IntakeProgress) -> None:
        if isinstance(p.step, ImportProgress) and p.step.report is not None:
            imported.append(p.step)

    with KnowledgeBase(tmp_path / "lib", pack_dir=PACK) as kb:
        report = kb.intake([pumps], progress=progress, cancel=lambda: len(imported) == 1)
    assert report.cancelled and len(report.imports[0].files) == 1
    assert report.embedded is None and report.pending > 0  # what was imported waits for its vectors


@needs_pack
def test_defer_leaves_embedding_to_a_later_intake(tmp_path: Path) -> None:
    pumps = _notes(tmp_path / "pumps", 2, "pump")
    with KnowledgeBase(tmp_path / "lib", pack_dir=PACK) as kb:
        deferred = kb.intake([pumps], defer=lambda: True)
        assert deferred.embedded is None and deferred.pending == 2 and not deferred.cancelled
        assert deferred.deferred  # so a front end knows a later intake is owed
        events: list[IntakeProgress] = []
        later = kb.intake(progress=events.append)  # nothing to import: embedding alone
        assert later.imports == [] and later.embedded is True and later.pending == 0
        assert not later.deferred
        assert _stages(events) == [EMBED]
        assert kb.intake(progress=events.append).embedded is None  # nothing left: no stage runs


def test_without_a_model_only_the_import_runs(tmp_path: Path) -> None:
    pumps = _notes(tmp_path / "pumps", 2, "pump")
    events: list[IntakeProgress] = []
    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb:
        report = kb.intake([pumps], resume=True, ocr=True, progress=events.append)
    assert _stages(events) == [IMPORT]  # nothing interrupted, nothing to embed, no scanned page
    assert report.ok and report.embedded is None and report.ocr is None and report.stopped is None


def test_without_the_ocr_models_scanned_pages_wait_for_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Image.new("L", (850, 1100), 255).save(tmp_path / "scan.png")
    monkeypatch.setenv(MODEL_DIR_ENV, str(tmp_path / "no-models"))
    events: list[IntakeProgress] = []
    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb:
        report = kb.intake([tmp_path / "scan.png"], ocr=True, progress=events.append)
        assert kb.pending_ocr() == 1  # not failed: read once the models are there
    assert report.ocr is not None and report.ocr.unavailable is not None
    assert "OCR model missing" in report.ocr.unavailable
    assert not report.ok and not report.cancelled
    assert _stages(events) == [IMPORT]  # no OCR stage began
