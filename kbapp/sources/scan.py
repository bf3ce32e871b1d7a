"""Reading a watched folder: the files it holds with their size and modification time, or why it
cannot be read at all.

A folder that cannot be read must never look like a folder whose files were deleted, or the
library would be emptied whenever a USB stick is unplugged or a share is down. So the scan says
"offline" when the folder is gone or unreadable, and when it is empty on another filesystem than
the one last seen there (an empty mount point left by an unmounted drive) while the library still
holds documents from it. Subfolders that could not be read are named, and nothing under them is
taken as deleted.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from kbapp.ingest import SUPPORTED_SUFFIXES
from kbapp.ingest.names import NOT_UTF8, recordable, shown


@dataclass(frozen=True, slots=True)
class FileStat:
    size: int
    mtime: float


@dataclass(slots=True)
class FolderScan:
    root: str
    online: bool
    device: int | None = None
    reason: str | None = None  # why the folder is offline
    files: dict[str, FileStat] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)  # subfolders (or files) that could not be read
    problems: list[tuple[str, str]] = field(default_factory=list)
    skipped: int = 0


def _offline(root: str, reason: str) -> FolderScan:
    return FolderScan(root, online=False, reason=reason)


def scan_folder(
    root: str, *, last_device: int | None, holds_documents: bool, library_dir: Path
) -> FolderScan:
    try:
        st = os.stat(root)
        if not os.path.isdir(root):
            return _offline(root, "not a folder any more")
        with os.scandir(root) as entries:
            empty = next(entries, None) is None
    except FileNotFoundError:
        return _offline(root, "folder not found (drive unplugged or share not mounted?)")
    except OSError as err:
        return _offline(root, f"cannot read folder ({err.strerror})")
    if empty and holds_documents and last_device is not None and st.st_dev != last_device:
        return _offline(
            root, "the folder is empty and on another drive than before: the medium is not mounted"
        )
    scan = FolderScan(root, online=True, device=st.st_dev)
    _walk(scan, os.path.realpath(library_dir))
    return scan


def _walk(scan: FolderScan, skip: str) -> None:
    """Every supported file under the folder with its stat, one ``scandir`` per folder and one
    ``stat`` per file: what an unchanged re-sync costs, so no per-file path resolution. The rules
    are those of an import (``discovery``): hidden files and folders are left out, folders only
    yield supported suffixes, a symlink loop is walked once."""
    seen: set[tuple[int, int]] = set()
    stack = [scan.root]
    while stack:
        folder = stack.pop()
        try:
            st = os.stat(folder)
            if (st.st_dev, st.st_ino) in seen:
                scan.problems.append((folder, "symbolic link loop, skipped"))
                continue
            seen.add((st.st_dev, st.st_ino))
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError as err:
            scan.problems.append((folder, f"cannot read folder ({err.strerror})"))
            scan.unreadable.append(folder)
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if not recordable(entry.path):
                scan.problems.append((shown(entry.path), NOT_UTF8))
                continue
            try:
                if entry.is_dir():
                    if os.path.realpath(entry.path) != skip:
                        stack.append(entry.path)
                    continue
                if os.path.splitext(entry.name)[1].lower() not in SUPPORTED_SUFFIXES:
                    scan.skipped += 1
                    continue
                fst = entry.stat()
            except OSError as err:  # removed since the listing, or unreadable: not taken as deleted
                scan.problems.append((entry.path, f"cannot read file ({err.strerror})"))
                scan.unreadable.append(entry.path)
                continue
            scan.files[entry.path] = FileStat(fst.st_size, fst.st_mtime)
