"""How many files an import queues on a reader: many small ones, few big ones; and when a backlog
starts a second reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbapp.importing import read_pool
from kbapp.importing.parse_worker import Request
from kbapp.importing.read_pool import DEPTH, DEPTH_BYTES, PoolSession

MB = 1024 * 1024


class _Reader:
    """Takes requests like a reader process; nothing in these tests reads them."""

    def __init__(self) -> None:
        self.requests: list[Request] = []

    def submit(self, request: Request) -> None:
        self.requests.append(request)


def _queued(size: int) -> int:
    """Files of ``size`` bytes one reader is given before the session has no room."""
    reader = _Reader()
    session = PoolSession([reader], None)  # type: ignore[list-item]
    while session.room():
        session.submit(Path(f"file{len(reader.requests)}.txt"), size)
    return len(reader.requests)


def test_small_files_fill_the_queue() -> None:
    assert _queued(1_400) == DEPTH


def test_big_files_stop_at_the_byte_bound() -> None:
    # Answers that wait for their turn are held in memory: big files are queued a few at a time.
    assert _queued(10 * MB) == -(-DEPTH_BYTES // (10 * MB))


def test_a_file_bigger_than_the_bound_is_still_read() -> None:
    assert _queued(DEPTH_BYTES * 3) == 1


def _spread(monkeypatch: pytest.MonkeyPatch, idle_share: float) -> list[int]:
    """Files given to each of two readers when the machine's processors were ``idle_share`` idle."""
    clock = iter(range(1_000_000))  # each look at the machine sees one more second of it
    monkeypatch.setattr(read_pool, "SPARE_WINDOW", 0.0)
    monkeypatch.setattr(read_pool.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(read_pool, "_cpu_times", lambda: (idle_share * (t := next(clock)), float(t)))
    readers = [_Reader(), _Reader()]
    session = PoolSession(readers, None)  # type: ignore[arg-type]
    while session.room():
        session.submit(Path("small.txt"), 1_400)
    return [len(reader.requests) for reader in readers]


def test_a_backlog_starts_a_second_reader_only_where_a_core_is_idle(monkeypatch: pytest.MonkeyPatch) -> None:
    # Half of one of two cores idle is enough; a machine left with less keeps one reader.
    first, second = _spread(monkeypatch, read_pool.SPARE_CORES / 2)
    assert first >= read_pool.SPREAD_FILES and second > 0
    assert _spread(monkeypatch, read_pool.SPARE_CORES / 2 - 0.05) == [DEPTH, 0]
