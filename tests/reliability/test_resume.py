"""The import journal: an interrupted import is reported (done and remaining files) and resumed;
an import another running process owns is left alone; a cancelled one is not offered again."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from kbapp.library import KnowledgeBase
from kbapp.store import journal
from kbapp.store.database import write_transaction
from tests.reliability.conftest import hits, kbapp, orphan_jobs
from tests.reliability.corpus import GoodDoc, write_good


def folder_of(tmp_path: Path, n: int) -> list[GoodDoc]:
    rnd = random.Random(9)
    return [write_good(tmp_path / "docs", i, ("md", "txt", "html")[i % 3], 200, rnd) for i in range(n)]


def crash_after(files: int):  # type: ignore[no-untyped-def]
    """Die once ``files`` files were reported committed. Files are committed in groups, and the
    first file of an import alone, so after the first report exactly one file is in the library."""

    def progress(p) -> None:  # type: ignore[no-untyped-def]
        if p.report is not None and p.done == files:
            raise KeyboardInterrupt  # the process dies here, as far as the journal can tell

    return progress


def test_interrupted_import_is_reported_and_resumed(tmp_path: Path) -> None:
    docs = folder_of(tmp_path, 6)
    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb, pytest.raises(KeyboardInterrupt):
        kb.import_paths([tmp_path / "docs"], progress=crash_after(1))
    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb:
        done, remaining = kb.interrupted_import()  # type: ignore[misc]
        assert [Path(p).name for p in done] == ["doc000.md"]
        assert len(remaining) == 5 and not kb.recovering
        seen = []
        report = kb.resume_import(progress=lambda p: seen.append((p.done, p.total)))
        assert [f.outcome for f in report.files] == ["imported"] * 5
        assert seen[0] == (1, 6) and seen[-1] == (6, 6)
        assert kb.interrupted_import() is None
        assert all(hits(kb, d.end) == {d.path.name} for d in docs)


def test_cli_resumes_before_the_new_paths(tmp_path: Path) -> None:
    folder_of(tmp_path, 5)
    extra = write_good(tmp_path / "extra", 50, "md", 100, random.Random(1))
    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb, pytest.raises(KeyboardInterrupt):
        kb.import_paths([tmp_path / "docs"], progress=crash_after(1))
    orphan_jobs(tmp_path / "lib")
    run = kbapp(tmp_path / "lib", "import", str(extra.path), "--no-embed", env={"KBAPP_MODEL_DIR": "/none"})
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "resuming interrupted import: 1 of 5 files were done"
    names = ["doc001.txt:", "doc002.html:", "doc003.md:", "doc004.txt:", "doc050.md:"]
    assert [line.split()[1] for line in lines[1:6]] == names
    assert lines[-1].startswith("5 imported")


def test_discarded_and_cancelled_imports_are_not_offered_again(tmp_path: Path) -> None:
    folder_of(tmp_path, 4)
    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb, pytest.raises(KeyboardInterrupt):
        kb.import_paths([tmp_path / "docs"], progress=crash_after(1))
    with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb:
        assert kb.interrupted_import() is not None
        kb.discard_interrupted_import()
        assert kb.interrupted_import() is None
        assert len(kb.documents()) == 1  # what it finished stays
        report = kb.import_paths([tmp_path / "docs"], cancel=lambda: True)
        assert report.cancelled and kb.interrupted_import() is None


def test_an_import_owned_by_a_running_process_is_not_interrupted(tmp_path: Path) -> None:
    folder_of(tmp_path, 2)
    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with KnowledgeBase(tmp_path / "lib", pack_dir=None) as kb:
            started = psutil.Process(owner.pid).create_time()
            with write_transaction(kb.engine) as conn:
                job = journal.start_job(conn, "import", [(str(tmp_path / "docs" / "doc000.md"), None)])
                conn.exec_driver_sql(
                    "UPDATE import_jobs SET owner_pid = ?, owner_started = ? WHERE id = ?",
                    (owner.pid, started, job.id),
                )
            assert kb.interrupted_import() is None  # that process may still be importing
            owner.kill()
            owner.wait()
            time.sleep(0.1)
            assert kb.interrupted_import() is not None
    finally:
        owner.kill()
