"""The sha256 of a model pack's files, read again only when a file has changed since it was hashed.

Hashing the default pack's 91 MB took 0.05 s of every one-shot search and of every start of the
model's process. A file's device, inode, size, modification and change times together change
with any write, truncation or replacement, and the change time cannot be set back by ordinary
tools, so when they are as they were, the bytes hashed then are the bytes there now: the
assumption git's index makes. (On Windows the change time is the creation time; an edit that
keeps the size and sets the modification time back would go unseen there.)

The stamps are kept in the user's cache directory. The pack check still compares every file's
hash with its manifest on every load; only the reading is saved. A cache that cannot be read or
written costs the hashing, nothing else.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from platformdirs import user_cache_path

from kbapp.hashing import sha256_file
from kbapp.index.atomic import atomic_write_bytes

STAMPS_FILE = "pack-file-hashes.json"


def file_hashes(files: list[Path]) -> dict[Path, str]:
    """The sha256 of each of ``files`` (which must exist), from its stamp when it is unchanged."""
    cache = user_cache_path("kbapp") / STAMPS_FILE
    stamps = _read(cache)
    hashes: dict[Path, str] = {}
    hashed = False
    for file in files:
        key = str(file.resolve())
        stamp = _stamp(file)
        known = stamps.get(key)
        if isinstance(known, list) and known[:-1] == stamp and isinstance(known[-1], str):
            hashes[file] = known[-1]
        else:
            hashes[file] = sha256_file(file)
            stamps[key] = [*stamp, hashes[file]]
            hashed = True
    if hashed:  # stamps of files gone (a pack moved or deleted) are dropped, so the file stays small
        _write(cache, {key: stamp for key, stamp in stamps.items() if os.path.exists(key)})
    return hashes


def _stamp(file: Path) -> list[int]:
    st = file.stat()
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _read(cache: Path) -> dict[str, object]:
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(cache: Path, stamps: dict[str, object]) -> None:
    with contextlib.suppress(OSError):
        cache.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(cache, json.dumps(stamps).encode("utf-8"))
