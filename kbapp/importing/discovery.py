"""Turning what the user dropped (files, folders) into the list of files to import.

Named files are always attempted (the reader sniffs their content, whatever their name);
inside folders only files with a supported suffix are taken, so a folder of manuals with a
few images and installers in it does not produce a page of "unsupported" errors. Symlink
loops, unreadable folders and names that are not UTF-8 (``ingest.names``) are reported, not fatal.
The library's own folder is never walked; named outright (it or its kept copies), it is refused:
its copies would only come back as duplicates of what they copy.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from kbapp.ingest import SUPPORTED_SUFFIXES
from kbapp.ingest.names import NOT_UTF8, recordable, shown


@dataclass(slots=True)
class Discovery:
    files: list[Path] = field(default_factory=list)
    problems: list[tuple[Path, str]] = field(default_factory=list)  # path, reason
    skipped: int = 0  # files in folders with suffixes we do not read


def within(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies under it (both absolute; no file system access)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def discover(paths: list[Path], library_dir: Path | None = None) -> Discovery:
    """Files to import under ``paths``; ``library_dir`` (the library's own data folder, whose
    database and kept copies must never be imported into itself) is skipped if a walk meets it."""
    found = Discovery()
    skip = os.path.realpath(library_dir) if library_dir is not None else None
    seen: set[str] = set()

    def add(path: Path) -> None:
        if not recordable(str(path)):
            found.problems.append((Path(shown(str(path))), NOT_UTF8))
            return
        key = os.path.realpath(path)  # unlike Path.resolve, does not raise on a symlink loop
        if key not in seen:
            seen.add(key)
            found.files.append(path)

    for root in paths:
        if skip is not None and within(os.path.realpath(root), skip):
            found.problems.append((root, "in the library's own folder (its kept copies); not imported"))
        elif root.is_dir():
            _walk(root, found, add, skip)
        elif root.exists() or root.is_symlink():
            add(root)
        else:
            found.problems.append((root, "no such file or folder"))
    return found


def _walk(root: Path, found: Discovery, add, skip: str | None) -> None:  # type: ignore[no-untyped-def]
    visited: set[tuple[int, int]] = set()

    def on_error(err: OSError) -> None:
        found.problems.append((Path(err.filename or root), f"cannot read folder ({err.strerror})"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=on_error, followlinks=True):
        try:
            st = os.stat(dirpath)
        except OSError as err:  # removed while walking, or a loop the OS refuses to follow
            on_error(err)
            dirnames[:] = []
            continue
        if not recordable(dirpath):  # nothing under it could be recorded either
            found.problems.append((Path(shown(dirpath)), NOT_UTF8))
            dirnames[:] = []
            continue
        if (st.st_dev, st.st_ino) in visited:  # a symlink loop back into a folder already walked
            found.problems.append((Path(dirpath), "symbolic link loop, skipped"))
            dirnames[:] = []
            continue
        visited.add((st.st_dev, st.st_ino))
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not d.startswith(".") and os.path.realpath(os.path.join(dirpath, d)) != skip
        )
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            path = Path(dirpath, name)
            if path.suffix.lower() in SUPPORTED_SUFFIXES:
                add(path)
            else:
                found.skipped += 1
