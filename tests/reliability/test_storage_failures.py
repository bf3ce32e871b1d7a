"""A full disk and a read-only library folder: a clear error naming the problem, and a library that
opens intact afterwards with everything committed before."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kbapp.contract import StorageError
from kbapp.library import KnowledgeBase
from tests.reliability.conftest import hits, kbapp, orphan_jobs, remount
from tests.reliability.corpus import write_good

NO_PACK = {"KBAPP_MODEL_DIR": "/nonexistent"}


def test_disk_full_stops_the_import_and_keeps_what_was_committed(tmp_path: Path, tmpfs) -> None:  # type: ignore[no-untyped-def]
    rnd = random.Random(5)
    docs = [write_good(tmp_path / "docs", i, "txt", 40000, rnd) for i in range(10)]  # ~300 KB each
    lib = tmpfs("3m") / "lib"
    run = kbapp(lib, "import", str(tmp_path / "docs"), "--no-embed", env=NO_PACK)
    assert run.returncode == 1
    stopped = [line for line in run.stdout.splitlines() if line.startswith("STOPPED")]
    assert stopped and stopped[0].startswith("STOPPED   disk full: no space left on the drive"), run.stdout
    assert "Free some space and import again to resume." in stopped[0]
    imported = [
        line.split()[1].rstrip(":") for line in run.stdout.splitlines() if line.startswith("IMPORTED")
    ]
    assert 0 < len(imported) < len(docs)
    with KnowledgeBase(lib, pack_dir=None) as kb:
        assert kb.verify().ok
        assert {Path(d.path).name for d in kb.documents()} == set(imported)
        for doc in docs:
            expected = {doc.path.name} if doc.path.name in imported else set()
            assert hits(kb, doc.begin) == expected and hits(kb, doc.end) == expected
        done, remaining = kb.interrupted_import()  # type: ignore[misc]
        assert len(done) == len(imported) and len(done) + len(remaining) == len(docs)
        report = kb.resume_import()  # the disk is still full
        assert report.error is not None and report.error.startswith("disk full:")
    # Whether that resume could claim the job depends on the exact bytes left (the schema's size moves
    # it); a claimed job belongs to this still-running process. The next start must find it as after
    # a crash, so make its owner look gone, as it would be once this process ended.
    orphan_jobs(lib)
    run = kbapp(lib, "import", str(tmp_path / "docs"), "--no-embed", env=NO_PACK)
    assert run.returncode == 1
    assert f"resuming interrupted import: {len(imported)} of {len(docs)} files were done" in run.stdout
    assert "STOPPED   disk full:" in run.stdout, run.stdout


def test_read_only_library_is_searchable_and_refuses_changes(tmp_path: Path, tmpfs) -> None:  # type: ignore[no-untyped-def]
    rnd = random.Random(6)
    docs = [write_good(tmp_path / "docs", i, kind, 300, rnd) for i, kind in enumerate(("md", "pdf", "docx"))]
    later = write_good(tmp_path / "later", 9, "txt", 300, rnd)
    mount = tmpfs("20m")
    lib = mount / "lib"
    with KnowledgeBase(lib, pack_dir=None) as kb:
        assert kb.import_paths([tmp_path / "docs"]).ok
    remount(mount, "ro")
    try:
        with KnowledgeBase(lib, pack_dir=None) as kb:
            assert kb.read_only and "read-only" in kb.notices[0]
            for doc in docs:
                assert hits(kb, doc.end) == {doc.path.name}
            report = kb.import_paths([tmp_path / "later"])
            assert report.error is not None and report.error.startswith(
                "read-only: the library folder cannot be written"
            )
            with pytest.raises(StorageError, match=r"^read-only"):
                kb.remove([kb.documents()[0].id])
        run = kbapp(lib, "import", str(tmp_path / "later"), "--no-embed", env=NO_PACK)
        assert run.returncode == 1 and "STOPPED   read-only:" in run.stdout, run.stdout + run.stderr
        run = kbapp(lib, "search", docs[1].begin, "--mode", "lexical", env=NO_PACK)
        assert run.returncode == 0 and docs[1].path.name in run.stdout
    finally:
        remount(mount, "rw")
    with KnowledgeBase(lib, pack_dir=None) as kb:
        assert not kb.read_only and kb.verify().ok
        assert kb.import_paths([tmp_path / "later"]).ok
        assert hits(kb, later.end) == {later.path.name}
        assert len(kb.documents()) == 4
