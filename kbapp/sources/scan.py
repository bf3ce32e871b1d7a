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

from kbapp.importing.discovery import discover


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
    found = discover([Path(root)], library_dir)
    scan = FolderScan(root, online=True, device=st.st_dev, skipped=found.skipped)
    for path, why in found.problems:
        scan.problems.append((str(path), why))
        scan.unreadable.append(os.path.abspath(path))
    for path in found.files:
        key = os.path.abspath(path)
        try:
            fst = os.stat(key)
        except OSError as err:  # removed since the walk, or unreadable: not taken as deleted
            scan.problems.append((key, f"cannot read file ({err.strerror})"))
            scan.unreadable.append(key)
            continue
        scan.files[key] = FileStat(fst.st_size, fst.st_mtime)
    return scan
