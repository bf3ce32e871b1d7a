"""A reader process started ahead of an import (``reader_start.prestart``) is the one the import's
worker uses, with the worker's own parser and limits; one nobody took is stopped; a dead one is
replaced, not used."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from kbapp.chunking import ChunkingConfig
from kbapp.chunking.estimate import estimate_tokens
from kbapp.importing import reader_start
from kbapp.importing.limits import ParseLimits
from kbapp.importing.parse_worker import ParseWorker
from kbapp.ingest import IngestError, IngestErrorKind, parse_file
from tests.reliability.chaos import chaos_parse


def _children() -> set[int]:
    """This process's spawned children still running (not multiprocessing's resource tracker).

    A child just started shows this process's command line, or none, until its exec is done, so
    children are read again until none does (at most 10 s): on a busy machine the reader
    ``prestart`` had started was otherwise missed, and the fixture then failed without stopping it.
    """
    me = psutil.Process()
    own = me.cmdline()
    deadline = time.monotonic() + 10
    while True:
        lines: dict[int, list[str]] = {}
        for child in me.children():
            with contextlib.suppress(psutil.NoSuchProcess):
                if child.status() != psutil.STATUS_ZOMBIE:
                    lines[child.pid] = child.cmdline()
        if all(line and line != own for line in lines.values()) or time.monotonic() > deadline:
            return {pid for pid, line in lines.items() if "spawn_main" in " ".join(line)}
        time.sleep(0.01)


@pytest.fixture
def prestarted() -> Iterator[int]:
    """The pid of a reader started ahead; stopped afterwards if the test left it."""
    before = _children()
    reader_start.prestart()
    try:
        started = _children() - before
        assert len(started) == 1
        yield started.pop()
    finally:
        reader_start.discard()


def _worker(parse, limits: ParseLimits) -> ParseWorker:  # type: ignore[no-untyped-def]
    return ParseWorker(parse, ChunkingConfig(), limits, lambda: estimate_tokens, lambda: None)


def _note(tmp_path: Path) -> Path:
    path = tmp_path / "note.txt"
    path.write_text("Pump notes\n\nThe zqahead valve is replaced yearly.\n", encoding="utf-8")
    return path


def test_the_worker_reads_with_the_reader_started_ahead(tmp_path: Path, prestarted: int) -> None:
    before = _children()
    worker = _worker(parse_file, ParseLimits(seconds=60))
    try:
        result = worker(_note(tmp_path))
        assert any("zqahead" in chunk.text for chunk in result.chunks)
        assert _children() == before  # no other process was started
    finally:
        worker.stop()
    assert not psutil.pid_exists(prestarted) or psutil.Process(prestarted).status() == psutil.STATUS_ZOMBIE


def test_the_reader_started_ahead_keeps_the_workers_memory_limit(tmp_path: Path, prestarted: int) -> None:
    hog = tmp_path / "chaos-hog.txt"
    hog.write_text("x", encoding="utf-8")
    worker = _worker(chaos_parse, ParseLimits(seconds=60, memory_mb=700))
    try:
        with pytest.raises(IngestError) as err:
            worker(hog)
        assert err.value.kind is IngestErrorKind.TOO_LARGE
        assert "memory limit (700 MB)" in err.value.message
    finally:
        worker.stop()


def test_a_reader_nobody_took_is_stopped(prestarted: int) -> None:
    reader_start.discard()
    assert not psutil.pid_exists(prestarted)  # killed and reaped


def test_a_dead_reader_started_ahead_is_replaced(tmp_path: Path, prestarted: int) -> None:
    dead = psutil.Process(prestarted)
    dead.kill()
    while dead.status() != psutil.STATUS_ZOMBIE:  # dead, and left for its parent to reap
        time.sleep(0.05)
    worker = _worker(parse_file, ParseLimits(seconds=60))
    try:
        result = worker(_note(tmp_path))
        assert any("zqahead" in chunk.text for chunk in result.chunks)
    finally:
        worker.stop()
