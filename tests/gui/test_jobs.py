"""The job queue over a real library and the real model pack: an import is followed by its embedding
and OCR in the same job, and imports dropped one after another are all imported before any embedding."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kbapp.embedding import default_pack_dir
from kbapp.gui.jobs import EMBED, IMPORT, OCR, LibraryJobs
from kbapp.index import keyword_index
from kbapp.library import KnowledgeBase
from tests.gui.conftest import WAIT_MS
from tests.ocr.conftest import scanned_pdf

PACK = default_pack_dir()
pytestmark = pytest.mark.skipif(not (PACK / "manifest.json").is_file(), reason=f"no model pack at {PACK}")


def _notes(folder: Path, count: int) -> str:
    folder.mkdir()
    for i in range(count):
        text = f"{folder.name} {i}\n\nThe {folder.name} needs service every {i} weeks.\n"
        (folder / f"{folder.name}{i}.txt").write_text(text, encoding="utf-8")
    return str(folder)


@pytest.fixture
def jobs(tmp_path: Path) -> Iterator[tuple[LibraryJobs, list[tuple[str, object]]]]:
    """The jobs of a new library, and what they said, in order."""
    kb = KnowledgeBase(tmp_path / "lib", pack_dir=PACK, autoload_model=False)
    jobs = LibraryJobs(kb)
    said: list[tuple[str, object]] = []
    jobs.started.connect(lambda kind: said.append(("started", kind)))
    jobs.importFinished.connect(lambda report: said.append(("imported", len(report.files))))
    jobs.embeddingFinished.connect(lambda complete: said.append(("embedded", complete)))
    jobs.ocrFinished.connect(lambda report: said.append(("read", report.pages)))
    yield jobs, said
    kb.close()


def test_an_import_is_embedded_in_the_same_job(qtbot, jobs, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    queue, said = jobs
    kinds: list[str | None] = []
    queue.progress.connect(lambda _p: kinds.append(queue.current_kind))
    with qtbot.waitSignal(queue.embeddingFinished, timeout=WAIT_MS):
        queue.import_paths([_notes(tmp_path / "pumps", 2)])
    qtbot.waitUntil(lambda: not queue.busy, timeout=WAIT_MS)
    assert said == [("started", IMPORT), ("imported", 2), ("started", EMBED), ("embedded", True)]
    assert kinds[0] == IMPORT and kinds[-1] == EMBED  # the running job says which stage it is in
    assert queue.pending == 0


def test_imports_dropped_together_are_all_imported_before_embedding(qtbot, jobs, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    queue, said = jobs
    with qtbot.waitSignal(queue.embeddingFinished, timeout=WAIT_MS):
        queue.import_paths([_notes(tmp_path / "pumps", 2)])
        queue.import_paths([_notes(tmp_path / "valves", 3)])  # waits while the first one imports
    qtbot.waitUntil(lambda: not queue.busy, timeout=WAIT_MS)
    assert said == [
        ("started", IMPORT),
        ("imported", 2),
        ("started", IMPORT),
        ("imported", 3),
        ("started", EMBED),  # one embedding job for both, queued behind the second import
        ("embedded", True),
    ]
    assert queue.pending == 0


def test_a_scan_is_read_then_what_it_says_embedded_in_the_same_job(qtbot, jobs, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    queue, said = jobs
    pages = [["Chapter 1 Gearbox", "Drain the gearbox oil every 500 hours."], ["Check the seal weekly."]]
    with qtbot.waitSignal(queue.embeddingFinished, timeout=WAIT_MS):
        queue.import_paths([str(scanned_pdf(tmp_path / "scan.pdf", pages))])
    qtbot.waitUntil(lambda: not queue.busy, timeout=WAIT_MS)
    assert said == [
        ("started", IMPORT),
        ("imported", 1),
        ("started", OCR),  # nothing to embed before: the scan has no text layer
        ("read", 2),
        ("started", EMBED),
        ("embedded", True),
    ]
    assert queue.pending == 0


def test_a_large_library_without_a_keyword_copy_gets_one_once_the_model_is_loaded(  # type: ignore[no-untyped-def]
    qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library whose copy was lost (a crash, an older release's format) and that no import,
    removal or sync has changed since: the window builds the copy in the background."""
    monkeypatch.setattr(keyword_index, "MIN_PASSAGES", 0)  # every library counts as large
    with KnowledgeBase(tmp_path / "lib", pack_dir=PACK) as kb:
        assert all(report.ok for report in kb.intake([_notes(tmp_path / "pumps", 3)]).imports)
        assert kb.pending_embeddings() == 0  # nothing left for a job that would refresh it anyway
    manifest = tmp_path / "lib" / keyword_index.MANIFEST_FILE
    for copy in [manifest, *manifest.parent.glob("keywords-*.bin")]:
        copy.unlink()
    with KnowledgeBase(tmp_path / "lib", pack_dir=PACK, autoload_model=False) as kb:
        queue = LibraryJobs(kb)
        with qtbot.waitSignal(queue.modelChanged, timeout=WAIT_MS):
            queue.load_model()
        qtbot.waitUntil(manifest.is_file, timeout=WAIT_MS)
        with kb.engine.connect() as conn:
            assert keyword_index.KeywordIndex(kb.engine, kb.data_dir).current(conn) is not None
