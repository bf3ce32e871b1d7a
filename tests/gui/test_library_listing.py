"""Listing the library: refreshes asked for while a listing runs collapse into one more listing."""

from __future__ import annotations

import threading

from kbapp.gui.library_listing import LibraryListing
from tests.gui.conftest import WAIT_MS


class SlowLibrary:
    """Stands in for ``KnowledgeBase``: its document list waits until the test lets it go."""

    model_available = False

    def __init__(self) -> None:
        self.release = threading.Event()
        self.listings = 0

    def documents(self) -> list[object]:
        self.release.wait(WAIT_MS / 1000)
        self.listings += 1
        return []

    def embedding_progress(self) -> dict[int, tuple[int, int]]:
        return {}

    def ocr_states(self) -> dict[int, object]:
        return {}


class BrokenLibrary(SlowLibrary):
    def documents(self) -> list[object]:
        raise OSError("disk gone")


def test_refreshes_during_a_listing_are_done_once_after_it(qtbot) -> None:  # type: ignore[no-untyped-def]
    kb = SlowLibrary()
    listing = LibraryListing(kb)  # type: ignore[arg-type]
    listed: list[object] = []
    listing.listed.connect(listed.append)
    listing.refresh()
    listing.refresh()
    listing.refresh()
    kb.release.set()
    qtbot.waitUntil(lambda: len(listed) == 2, timeout=WAIT_MS)
    qtbot.wait(100)  # no third listing follows
    assert kb.listings == 2 and len(listed) == 2
    assert listed[0] == ([], {}, False, {})


def test_a_failed_listing_says_why_and_the_next_refresh_runs(qtbot) -> None:  # type: ignore[no-untyped-def]
    listing = LibraryListing(BrokenLibrary())  # type: ignore[arg-type]
    with qtbot.waitSignal(listing.failed, timeout=WAIT_MS) as failed:
        listing.refresh()
    assert failed.args == ["disk gone"]
    with qtbot.waitSignal(listing.failed, timeout=WAIT_MS):
        listing.refresh()
