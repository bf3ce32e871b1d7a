"""Comparing what the watched folders hold with what the library holds for them.

Only paths and stat facts are compared here, so re-syncing an unchanged folder reads no file:
a file whose size and modification time match its document is unchanged. Files that differ are
hashed later (``apply``), which is where a move (same content, new path) is told apart from a
new file, and a rewrite with the same bytes from a change.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kbapp.importing.discovery import within
from kbapp.sources.scan import FileStat, FolderScan
from kbapp.store.sources import StoredFile


@dataclass(slots=True)
class SyncPlan:
    new: dict[str, FileStat] = field(default_factory=dict)  # on disk, not in the library
    changed: dict[str, tuple[FileStat, StoredFile]] = field(default_factory=dict)
    gone: dict[str, StoredFile] = field(default_factory=dict)  # in the library, not on disk
    unchanged: int = 0

    @property
    def empty(self) -> bool:
        return not (self.new or self.changed or self.gone)


def _inside(path: str, folders: list[str]) -> bool:
    return any(within(path, f) for f in folders)


def make_plan(scans: list[FolderScan], stored: dict[str, StoredFile]) -> SyncPlan:
    """``stored``: the library's files under every scanned folder, online or not."""
    plan = SyncPlan()
    on_disk: dict[str, FileStat] = {}
    for scan in scans:
        if scan.online:
            on_disk.update(scan.files)
    keep = [s.root for s in scans if not s.online] + [u for s in scans for u in s.unreadable]
    online = [s.root for s in scans if s.online]
    for path, stat in on_disk.items():
        record = stored.get(path)
        if record is None:
            plan.new[path] = stat
        elif record.size == stat.size and record.mtime == stat.mtime:
            plan.unchanged += 1
        else:
            plan.changed[path] = (stat, record)
    for path, record in stored.items():
        if path not in on_disk and _inside(path, online) and not _inside(path, keep):
            plan.gone[path] = record
    return plan
