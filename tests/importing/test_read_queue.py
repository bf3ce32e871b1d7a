"""How many files an import queues on a reader: many small ones, few big ones."""

from __future__ import annotations

from pathlib import Path

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
