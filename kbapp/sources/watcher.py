"""Noticing changes in watched folders while the app is open: OS file notifications where the
platform has them (``watchdog``: inotify, FSEvents, ReadDirectoryChangesW), a periodic rescan always.

Notifications miss things by design — a USB stick plugged back in, a network share whose server
changed files, a folder on a filesystem without notify support — so the rescan runs whatever
happens and is the only mechanism where notifications are unavailable. A burst of events (a
folder copied in, an editor saving through a temporary file) is coalesced into one call of
``on_change``, made on the watcher's own thread; a sync of an unchanged folder is cheap, so
calling it on every burst and every rescan costs little.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

DEBOUNCE = 0.25  # seconds of quiet before a burst of events is acted on
RESCAN = 60.0  # seconds between rescans when nothing was notified


class FolderWatcher:
    def __init__(
        self,
        folders: Callable[[], list[str]],
        on_change: Callable[[], None],
        *,
        rescan: float = RESCAN,
        debounce: float = DEBOUNCE,
        notifications: bool = True,
    ) -> None:
        self._folders = folders
        self._on_change = on_change
        self._rescan = rescan
        self._debounce = debounce
        self._use_notifications = notifications
        self._wake = threading.Event()
        self._dirty = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._observer: BaseObserver | None = None
        self._watched: set[str] = set()

    @property
    def notifications(self) -> bool:
        """Whether OS notifications are in use (else changes are seen at the next rescan)."""
        return self._observer is not None

    def start(self) -> None:
        if self._thread is not None:
            return
        self.refresh()
        self._thread = threading.Thread(target=self._run, name="folder-watcher", daemon=True)
        self._thread.start()

    def refresh(self) -> None:
        """Watch exactly the current watched folders (call after adding or removing one)."""
        if not self._use_notifications:
            return
        online = {f for f in self._folders() if os.path.isdir(f)}  # offline ones: the rescan sees them back
        if online == self._watched and self._observer is not None:
            return
        self._stop_observer()
        observer = Observer()
        handler = _Handler(self._changed)
        watched = set()
        for folder in sorted(online):
            try:
                observer.schedule(handler, folder, recursive=True)
                watched.add(folder)
            except OSError:  # gone since, or out of notify watches: the rescan covers it
                continue
        observer.daemon = True
        observer.start()
        self._observer, self._watched = observer, watched

    def rescan_now(self) -> None:
        self._changed()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._stop_observer()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None

    def _stop_observer(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=10)
            self._observer = None

    def _changed(self) -> None:
        self._dirty.set()
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self._rescan)
            if self._stop.is_set():
                return
            if self._dirty.is_set():
                while True:  # wait for the burst to end
                    self._wake.clear()
                    if not self._wake.wait(self._debounce) or self._stop.is_set():
                        break
            self._wake.clear()
            self._dirty.clear()
            self._on_change()
            self.refresh()  # a folder that was offline may be back: watch it again


class _Handler(FileSystemEventHandler):
    def __init__(self, changed: Callable[[], None]) -> None:
        self._changed = changed

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in ("opened", "closed_no_write"):  # reads do not change anything
            self._changed()
