"""``kbapp watch add|list|remove``, ``kbapp sync`` and ``kbapp collection ...``: watched folders and
collections from the command line, for scripts and scheduled syncs (cron, a login script).

``sync`` prints one line per change as soon as it is committed (like ``import``), then who was
offline and a summary; it exits 1 when a file failed or the sync stopped, 0 otherwise (an offline
folder is not an error: its documents are kept and it is synced when it is back).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from kbapp.cli.documents import say_unknown, unknown_ids
from kbapp.cli.output import emit_json
from kbapp.cli.progress import IntakeLines
from kbapp.contract import SyncProgress

if TYPE_CHECKING:
    from kbapp.library import KnowledgeBase

Opener = Callable[[argparse.Namespace], "KnowledgeBase"]


def _when(stamp: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp)) if stamp else "never"


def _show_change(p: SyncProgress, as_json: bool) -> None:
    if p.change is None:
        return
    if as_json:
        c = p.change
        emit_json({"path": c.path, "change": str(c.change), "message": c.message, "doc_id": c.doc_id})
    else:
        print(f"{p.change.change.upper():<9} {p.change.message}", flush=True)


def cmd_sync(args: argparse.Namespace, opener: Opener) -> int:
    info = sys.stderr if args.json else sys.stdout
    with opener(args) as kb:
        if not kb.sources.list():
            print("no watched folders; add one with: kbapp watch add DIR", file=info)
            return 0
        report = kb.sources.sync(progress=lambda p: _show_change(p, args.json))
        if report.error is None and not args.no_embed:
            kb.intake(progress=IntakeLines(args.json, info))  # embedding what the sync brought in
    for folder, why in report.offline:
        print(f"OFFLINE   {folder}: {why} (its documents are kept)", file=info)
    for path, why in report.problems:
        print(f"PROBLEM   {path}: {why}", file=info)
    if report.error is not None:
        print(f"STOPPED   {report.error}", file=info)
    print(report.summary(), file=info)
    return 0 if report.ok else 1


def cmd_watch_add(args: argparse.Namespace, opener: Opener) -> int:
    with opener(args) as kb:
        source = kb.sources.add(args.dir, args.collection)
    feeds = f" into collection {source.collection!r}" if source.collection else ""
    print(f"watching {source.path}{feeds}; `kbapp sync` (or the app) brings its files in")
    return 0


def cmd_watch_list(args: argparse.Namespace, opener: Opener) -> int:
    with opener(args) as kb:
        folders = kb.sources.list()
    for s in folders:
        if args.json:
            emit_json(
                {
                    "path": s.path,
                    "collection": s.collection,
                    "state": s.state,
                    "last_sync": s.last_sync,
                    "files": s.files,
                    "failures": s.failures,
                    "message": s.message,
                }
            )
        else:
            into = f"  → {s.collection}" if s.collection else ""
            counts = f"{s.files:>6} files {s.failures:>4} failed"
            print(f"{s.state:<8} {counts}  {_when(s.last_sync)}  {s.path}{into}")
    if not folders and not args.json:
        print("no watched folders; add one with: kbapp watch add DIR")
    return 0


def cmd_watch_remove(args: argparse.Namespace, opener: Opener) -> int:
    with opener(args) as kb:
        kb.sources.remove(args.dir)
    print(f"no longer watching {args.dir}; its documents stay in the library")
    return 0


def cmd_collection(args: argparse.Namespace, opener: Opener) -> int:
    with opener(args) as kb:
        c = kb.collections
        if args.action == "create":
            c.create(args.name)
            print(f"created collection {args.name!r}")
        elif args.action == "rename":
            c.rename(args.name, args.new_name)
            print(f"renamed collection {args.name!r} to {args.new_name!r}")
        elif args.action == "delete":
            c.delete(args.name)
            print(f"deleted collection {args.name!r}; its documents stay in the library")
        elif args.action in ("add", "remove"):
            unknown = unknown_ids(kb, args.ids)
            if unknown:
                say_unknown(unknown)
                return 1
            changed = (c.add if args.action == "add" else c.remove)(args.name, args.ids)
            print(f"{'added' if args.action == 'add' else 'removed'} {changed} document(s)")
        else:
            for entry in c.list():
                if args.json:
                    emit_json({"name": entry.name, "documents": entry.documents})
                else:
                    print(f"{entry.documents:>6} documents  {entry.name}")
    return 0


def add_source_commands(sub: argparse._SubParsersAction, opener: Opener) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("sync", help="one pass over every watched folder: import, update, move, remove")
    p.add_argument("--json", action="store_true", help="one JSON object per change")
    p.add_argument("--no-embed", action="store_true", help="do not wait for embedding")
    p.set_defaults(func=lambda a: cmd_sync(a, opener))

    watch = sub.add_parser("watch", help="folders the library keeps itself equal to").add_subparsers(
        dest="watch_command", required=True
    )
    p = watch.add_parser("add", help="watch a folder (files come in at the next sync)")
    p.add_argument("dir")
    p.add_argument("--collection", help="put the folder's documents in this collection (created if new)")
    p.set_defaults(func=lambda a: cmd_watch_add(a, opener))
    p = watch.add_parser("list", help="watched folders and their last sync")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=lambda a: cmd_watch_list(a, opener))
    p = watch.add_parser("remove", help="stop watching a folder (its documents stay)")
    p.add_argument("dir")
    p.set_defaults(func=lambda a: cmd_watch_remove(a, opener))

    coll = sub.add_parser("collection", help="named groups of documents to search within").add_subparsers(
        dest="action", required=True
    )
    for action, what in (
        ("create", "create a collection"),
        ("delete", "delete a collection (not its documents)"),
    ):
        coll.add_parser(action, help=what).add_argument("name")
    p = coll.add_parser("rename", help="rename a collection")
    p.add_argument("name")
    p.add_argument("new_name")
    for action in ("add", "remove"):
        p = coll.add_parser(action, help=f"{action} documents (by id)")
        p.add_argument("name")
        p.add_argument("ids", nargs="+", type=int)
    coll.add_parser("list", help="collections and their sizes").add_argument("--json", action="store_true")
    for action in ("create", "delete", "rename", "add", "remove", "list"):
        coll.choices[action].set_defaults(func=lambda a: cmd_collection(a, opener))
