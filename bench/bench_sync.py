"""Watched-folder sync: re-syncing an unchanged folder of 5,000 text files, and how soon a change to
one of them is searchable while the app is open, beside baselines measured in the same run.

Re-sync compares paths, sizes and modification times against the library and reads no file; the
baselines are what the alternatives cost on the same folder: hashing every file (a content check)
and ``import`` of the folder again (today's manual way, one journal entry and lookup per file).
"Searchable after a write" runs the folder watcher (file notifications, debounced) as the open app
does and polls a keyword search for a word the write added; its baseline is the same write
followed by a sync started at once by hand (no notification, no debounce). Targets (issue 14):
re-sync <= 1 s, a change searchable within 2 s. Keyword-only library (no model pack): embedding is
not part of either.

Run:  python -m bench.bench_sync [--files 5000] [--repeat 5] [--json OUT]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from kbapp.library import KnowledgeBase
from kbapp.sources.watcher import FolderWatcher

RESYNC_TARGET_S = 1.0
CHANGE_TARGET_S = 2.0
WORDS = [
    "pump",
    "valve",
    "seal",
    "bearing",
    "motor",
    "coupling",
    "impeller",
    "actuator",
    "pressure",
    "flow",
    "grease",
    "filter",
]


def make_folder(root: Path, files: int) -> None:
    for i in range(files):
        folder = root / f"machine{i % 50:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        body = " ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(150))
        (folder / f"note{i:05d}.txt").write_text(f"Service note {i}\n\n{body}\n", encoding="utf-8")


def hash_all(root: Path) -> float:
    started = time.perf_counter()
    for folder, _, names in os.walk(root):
        for name in names:
            hashlib.sha256(Path(folder, name).read_bytes()).hexdigest()
    return time.perf_counter() - started


def _append(path: Path, word: str) -> float:
    """Add ``word`` to the file; the moment it was written."""
    path.write_text(path.read_text(encoding="utf-8") + f"\n{word}\n", encoding="utf-8")
    return time.perf_counter()


def searchable_after_write(kb: KnowledgeBase, path: Path, word: str) -> float:
    written = _append(path, word)
    while not kb.search(word, mode="lexical").results:
        if time.perf_counter() - written > 60:
            raise RuntimeError(f"{word} not searchable a minute after the write")
        time.sleep(0.01)
    return time.perf_counter() - written


def searchable_after_sync(kb: KnowledgeBase, path: Path, word: str) -> float:
    """The baseline: the same write, then a sync of the watched folders at once, by hand."""
    written = _append(path, word)
    kb.sources.sync()
    if not kb.search(word, mode="lexical").results:
        raise RuntimeError(f"{word} not searchable after a sync")
    return time.perf_counter() - written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", type=Path, help="write the results here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, KnowledgeBase(Path(tmp) / "lib", pack_dir=None) as kb:
        root = Path(tmp) / "notes"
        make_folder(root, args.files)
        kb.sources.add(root)
        started = time.perf_counter()
        first = kb.sources.sync()
        initial = time.perf_counter() - started
        assert first.ok and len(first.changes) == args.files, first.summary()

        resync = []
        for _ in range(args.repeat):
            report = kb.sources.sync()
            assert not report.changes and report.unchanged == args.files, report.summary()
            resync.append(report.seconds)
        hashing = min(hash_all(root) for _ in range(2))
        started = time.perf_counter()
        again = kb.import_paths([root])
        reimport = time.perf_counter() - started
        assert all(f.outcome == "unchanged" for f in again.files)
        by_hand = [
            searchable_after_sync(kb, root / f"machine{n:02d}" / f"note{n:05d}.txt", f"zqhand{n}")
            for n in range(args.repeat)
        ]

        watcher = FolderWatcher(lambda: [s.path for s in kb.sources.list()], kb.sources.sync)
        watcher.start()
        try:
            time.sleep(1)  # the watches are in place
            changes = []
            for n in range(args.repeat):
                changes.append(
                    searchable_after_write(kb, root / f"machine{n:02d}" / f"note{n:05d}.txt", f"zqword{n}")
                )
                time.sleep(0.5)
        finally:
            watcher.stop()

    print(f"{args.files} text files in 50 folders; median of {args.repeat} runs (min–max)")
    print(f"{'':44}{'seconds':>9}")
    print(f"{'first sync (imports everything)':44}{initial:9.2f}")
    print(f"{'baseline: import of the unchanged folder':44}{reimport:9.2f}")
    print(f"{'baseline: hashing every file':44}{hashing:9.2f}")
    print(
        f"{'re-sync of the unchanged folder':44}{statistics.median(resync):9.3f}"
        f"   ({min(resync):.3f}–{max(resync):.3f}) target <= {RESYNC_TARGET_S:.1f} s"
    )
    print(
        f"{'one file changed → searchable (watcher on)':44}{statistics.median(changes):9.3f}"
        f"   ({min(changes):.3f}–{max(changes):.3f}) target <= {CHANGE_TARGET_S:.1f} s"
    )
    print(f"{'baseline: one file changed → sync by hand':44}{statistics.median(by_hand):9.3f}")
    if args.json:
        results = {
            "files": args.files,
            "first_sync_s": initial,
            "reimport_s": reimport,
            "hashing_s": hashing,
            "resync_s": resync,
            "watched_change_s": changes,
            "synced_change_s": by_hand,
        }
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
