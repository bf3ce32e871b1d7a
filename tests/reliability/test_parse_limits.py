"""The parse worker: a file that hangs the reader, crashes it, exits it or eats memory costs that
file only, with a message naming it; the files around it are imported; the worker never outlives
the importing process."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from kbapp.chunking import ChunkingConfig
from kbapp.chunking.estimate import estimate_tokens
from kbapp.importing.limits import ParseLimits
from kbapp.importing.parse_worker import ParseWorker
from kbapp.importing.reading import ImportCancelled
from kbapp.ingest import IngestError, IngestErrorKind
from kbapp.library import KnowledgeBase
from tests.reliability.chaos import chaos_parse
from tests.reliability.conftest import REPO, hits

EXPECTED = {
    "chaos-hang.txt": ("timeout", "chaos-hang.txt: parser exceeded 10 s, skipped"),
    "chaos-segfault.txt": ("parser crashed", "chaos-segfault.txt: the reader crashed (SIGSEGV), skipped"),
    "chaos-exit.txt": ("parser crashed", "chaos-exit.txt: the reader crashed (exit code 7), skipped"),
    "chaos-hog.txt": ("too large", "chaos-hog.txt: parser exceeded the memory limit (1536 MB), skipped"),
    "chaos-bug.txt": ("parser crashed", "chaos-bug.txt: the reader crashed (RuntimeError: reader bug)"),
}


def _worker(**kwargs) -> ParseWorker:  # type: ignore[no-untyped-def]
    return ParseWorker(
        chaos_parse, ChunkingConfig(), kwargs.pop("limits"), lambda: estimate_tokens, lambda: None, **kwargs
    )


def test_misbehaving_reader_costs_one_file(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    good = []
    for n, bad in enumerate(sorted(EXPECTED)):
        (folder / bad).write_text(f"Bad\n\nthis one misbehaves {n}\n", encoding="utf-8")
        name = f"{bad.removesuffix('.txt')}-good.txt"  # sorts right after the bad one
        (folder / name).write_text(f"Good\n\ntoken zqgood{'abcde'[n]}\n", encoding="utf-8")
        good.append((name, f"zqgood{'abcde'[n]}"))
    # The hog must reach the memory limit before the time limit: 4 s was too short for 1.5 GB on
    # a two-core machine busy with other work (it was stopped as a hang instead).
    limits = ParseLimits(seconds=10, memory_mb=1536)
    with KnowledgeBase(tmp_path / "lib", pack_dir=None, parse=chaos_parse, parse_limits=limits) as kb:
        report = kb.import_paths([folder])
        got = {Path(f.path).name: (f.kind, f.message) for f in report.files if not f.ok}
        assert got == EXPECTED
        for name, token in good:
            assert hits(kb, token) == {name}
        assert kb.verify().ok


def test_memory_watch_fallback_kills_a_growing_reader(tmp_path: Path) -> None:
    """Where RLIMIT_AS is unavailable (Windows, macOS) the worker's resident size is watched."""
    (tmp_path / "chaos-hog.txt").write_text("x", encoding="utf-8")
    worker = _worker(limits=ParseLimits(seconds=60, memory_mb=700), watch_memory=True)
    try:
        with pytest.raises(IngestError) as err:
            worker(tmp_path / "chaos-hog.txt")
        assert err.value.kind is IngestErrorKind.TOO_LARGE
        assert "memory limit (700 MB)" in err.value.message
    finally:
        worker.stop()


def test_cancel_stops_a_hanging_read(tmp_path: Path) -> None:
    (tmp_path / "chaos-hang.txt").write_text("x", encoding="utf-8")
    worker = _worker(limits=ParseLimits(seconds=600))
    asked = time.monotonic() + 1.0
    try:
        with pytest.raises(ImportCancelled):
            worker(tmp_path / "chaos-hang.txt", lambda: time.monotonic() > asked)
        assert time.monotonic() - asked < 2
    finally:
        worker.stop()


def test_worker_exits_when_the_importer_is_killed(tmp_path: Path) -> None:
    (tmp_path / "chaos-hang.txt").write_text("x", encoding="utf-8")
    script = textwrap.dedent(
        f"""
        import os, sys
        from pathlib import Path
        sys.path.insert(0, {str(REPO)!r})
        from kbapp.chunking import ChunkingConfig
        from kbapp.chunking.estimate import estimate_tokens
        from kbapp.importing.limits import ParseLimits
        from kbapp.importing.parse_worker import ParseWorker
        from tests.reliability.chaos import chaos_parse
        if __name__ == "__main__":
            limits = ParseLimits(seconds=600)
            w = ParseWorker(chaos_parse, ChunkingConfig(), limits, lambda: estimate_tokens, lambda: None)
            w.start()
            print(w._proc.pid, flush=True)
            w(Path({str(tmp_path / "chaos-hang.txt")!r}))
        """
    )
    host = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        worker = psutil.Process(int(host.stdout.readline()))  # type: ignore[union-attr]
        time.sleep(1)
        host.kill()
        host.wait()
        worker.wait(timeout=10)  # raises TimeoutExpired if it outlived its parent
    finally:
        host.kill()
