"""Argument parsing and the sub-commands: import, search, docs, remove, verify.

Every command first reports what opening the library found (an index rebuilt, a damaged file
moved aside) and finishes rebuilding a damaged library; ``import`` first resumes an import that
was interrupted. Storage failures end a command with a plain message and exit code 1.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from kbapp.cli.documents import say_unknown, unknown_ids
from kbapp.cli.gui import add_gui_command
from kbapp.cli.model import add_model_commands
from kbapp.cli.output import emit_json, print_response, response_json
from kbapp.cli.progress import IntakeLines, show_file
from kbapp.cli.sources import add_source_commands
from kbapp.contract import (
    MODES,
    CollectionError,
    DocumentStatus,
    ImportReport,
    SourceError,
    StorageError,
)
from kbapp.importing.limits import ParseLimits
from kbapp.library.paths import resolve_data_dir

if TYPE_CHECKING:
    from kbapp.library import KnowledgeBase


@contextmanager
def _collector_paused(first: bool) -> Iterator[None]:
    """Importing the core allocates hundreds of thousands of objects that live as long as the
    process, and Python's cyclic collector would walk them over and over while they are created:
    it is paused for the imports and the opening, and what they made is then frozen out of later
    collections (``gc.freeze``). A one-shot keyword search spent about 30 ms in those collections.
    Only the ``first`` opening in a process, and only if the collector is on: a program calling
    ``main`` again would otherwise freeze its own garbage with it."""
    if not first or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def _open(args: argparse.Namespace, limits: ParseLimits | None = None) -> KnowledgeBase:
    """Open the library, say what opening it found, and finish rebuilding a damaged one first.
    The core is imported here, not with the module, so ``kbapp gui`` puts its window up first.

    The first time, with the cyclic garbage collector paused (``_collector_paused``)."""
    with _collector_paused(first="kbapp.library.knowledge_base" not in sys.modules):
        from kbapp.library import KnowledgeBase

        kb = KnowledgeBase(resolve_data_dir(args.data_dir), parse_limits=limits or ParseLimits())
    for notice in kb.notices:
        print(f"note: {notice}", file=sys.stderr, flush=True)
    if kb.recovering:
        seen = len(kb.notices)
        print("note: rebuilding the library…", file=sys.stderr, flush=True)
        report = kb.resume_import(progress=lambda p: show_file(p, False, sys.stderr))
        for line in [*kb.notices[seen:], *([report.error] if report.error else [])]:
            print(f"note: {line}", file=sys.stderr, flush=True)
    return kb


def _summary(reports: list[ImportReport]) -> str:
    counts: dict[str, int] = {}
    for report in reports:
        for f in report.files:
            counts[str(f.outcome)] = counts.get(str(f.outcome), 0) + 1
    summary = ", ".join(f"{n} {k}" for k, n in counts.items()) or "nothing to import"
    skipped = sum(r.skipped for r in reports)
    note = f"; {skipped} files of unsupported types skipped" if skipped else ""
    # Paths refused before reading (missing, a symlink loop, a name that is not UTF-8) are
    # printed as FAILED too: the count says so, or "1 failed" would stand beside two such lines.
    refused = sum(len(r.problems) for r in reports)
    note += f"; {refused} not imported (above)" if refused else ""
    return f"{summary}{note} in {sum(r.seconds for r in reports):.1f} s"


def cmd_import(args: argparse.Namespace) -> int:
    # The reader's modules (parsers, chunking) are imported by the one command that reads files:
    # ``kbapp gui`` and ``kbapp search`` start 0.1 s sooner without them.
    from kbapp.importing import reader_start

    limits = ParseLimits(seconds=args.parse_timeout, memory_mb=args.parse_memory)
    info = sys.stderr if args.json else sys.stdout
    reader_start.prestart()  # its start-up overlaps opening the library
    try:
        with _open(args, limits) as kb:
            report = kb.intake(
                args.paths,
                resume=True,
                embed=not args.no_embed,
                ocr=not args.no_ocr,
                progress=IntakeLines(args.json, info),
            )
            if not kb.model_available:
                print(f"note: keyword search only ({kb.model_problem})", file=sys.stderr)
            if report.ocr is not None and report.ocr.unavailable:
                print(f"note: scanned pages left unread ({report.ocr.unavailable})", file=sys.stderr)
    finally:
        reader_start.discard()
    for path, why in [p for r in report.imports for p in r.problems]:
        print(f"FAILED    {path}: {why}", file=info)
    if report.stopped is not None:
        print(f"STOPPED   {report.stopped}", file=info)
    print(_summary(report.imports), file=info)
    return 0 if report.ok else 1


def _read_queries(path: str) -> list[tuple[str, str]]:
    """``(id, text)`` of each line of a JSON Lines file; a file saved with a byte order mark (as
    Windows editors do) reads the same. Raises ``ValueError`` naming the file and the first line
    that is not ``{"id": …, "text": "…"}``: a batch is read whole before anything is searched."""
    queries = []
    try:
        with open(path, encoding="utf-8-sig") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"{path}: cannot read the questions ({err})") from err
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path} line {number}: not JSON ({err.msg})") from err
        if not isinstance(obj, dict) or "id" not in obj or not isinstance(obj.get("text"), str):
            raise ValueError(f'{path} line {number}: not an object with "id" and a "text" string')
        queries.append((str(obj["id"]), obj["text"]))
    return queries


EMPTY_LIBRARY = "The library is empty. Import documents with: kbapp import PATH..."


def _at_least_one(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def cmd_search(args: argparse.Namespace) -> int:
    if (args.query is None) == (args.queries is None):
        print("give either a QUERY or --queries FILE", file=sys.stderr)
        return 2
    try:
        batch = _read_queries(args.queries) if args.queries is not None else None
    except ValueError as err:
        print(f"kbapp: {err}", file=sys.stderr)
        return 2
    with _open(args) as kb:
        unknown = unknown_ids(kb, args.doc)
        if unknown:
            say_unknown(unknown)
            return 1
        scope = kb.collections.restrict(args.doc, args.collection)
        if args.collection and not scope:
            among = " among those given by --doc" if args.doc else ""
            names = ", ".join(args.collection)
            print(f"kbapp: {names}: no documents{among}; nothing to search", file=sys.stderr)
            return 1
        if batch is not None:
            for query_id, text in batch:
                response = kb.search(text, args.top_k, args.mode, scope)
                if args.json:
                    emit_json(response_json(response, query_id))
                else:
                    print(f"# {query_id}: {text}")
                    print_response(response)
            return 0
        response = kb.search(args.query, args.top_k, args.mode, scope)
        if args.json:
            emit_json(response_json(response))
        elif not response.results and not kb.documents():
            print(EMPTY_LIBRARY)
        else:
            print_response(response)
    return 0


def cmd_docs(args: argparse.Namespace) -> int:
    with _open(args) as kb:
        docs = kb.documents()
        held = kb.collections.memberships()
        folders = [s.path for s in kb.sources.list()]
    if args.json:
        for d in docs:
            emit_json(
                {
                    "id": d.id,
                    "path": d.path,
                    "title": d.title,
                    "type": d.doc_type,
                    "pages": d.page_count,
                    "chunks": d.chunk_count,
                    "size": d.size,
                    "imported_at": d.imported_at,
                    "status": d.status,
                    "error": d.error,
                    "warnings": d.warnings.splitlines(),
                    "collections": held.get(d.id, []),
                    "source": kb.sources.folder_of(d.path, folders),
                }
            )
        return 0
    if not docs:
        print(EMPTY_LIBRARY)
    for d in docs:
        state = d.status if d.status != DocumentStatus.FAILED else f"failed: {d.error}"
        pages = f"{d.page_count} p." if d.page_count else "-"
        counts = f"{d.id:>5}  {d.doc_type:<8} {pages:>7} {d.chunk_count:>6} passages"
        print(f"{counts}  {state:<10} {d.title}  ({d.path})")
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    with _open(args) as kb:
        docs = kb.documents()
        by_path, held = {d.path: d.id for d in docs}, {d.id for d in docs}
        ids, unknown = [], []
        for item in args.items:
            if item.isdigit() and int(item) in held:
                ids.append(int(item))
            elif str(Path(item).absolute()) in by_path:
                ids.append(by_path[str(Path(item).absolute())])
            else:
                unknown.append(item)
        removed = kb.remove(ids)
    if args.json:
        emit_json({"removed": removed, "unknown": unknown})
    else:
        print(f"removed {removed} document(s)")
        for item in unknown:
            print(f"not in the library: {item}", file=sys.stderr)
    return 0 if not unknown else 1


def cmd_verify(args: argparse.Namespace) -> int:
    with _open(args) as kb:
        report = kb.verify(repair=args.repair)
    if args.json:
        emit_json(
            {
                "ok": report.ok,
                "problems": report.problems,
                "notes": report.notes,
                "repaired": report.repaired,
                "facts": report.facts,
            }
        )
        return 0 if report.ok else 1
    for key, value in report.facts.items():
        print(f"{key}: {value}")
    for title, lines in (("repaired", report.repaired), ("notes", report.notes)):
        if lines:
            print(f"{title}:\n  " + "\n  ".join(lines))
    print("library OK" if report.ok else "problems found:\n  " + "\n  ".join(report.problems))
    if not report.ok and not args.repair:
        print("run `kbapp verify --repair` to fix what can be fixed")
    return 0 if report.ok else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kbapp", description="Offline knowledge base for your manuals.")
    parser.add_argument("--data-dir", help="library folder (default: $KBAPP_DATA_DIR or the user data dir)")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("import", help="import files and folders (recursive)")
    p.add_argument("paths", nargs="+")
    p.add_argument("--json", action="store_true", help="one JSON object per file")
    p.add_argument(
        "--no-embed", action="store_true", help="do not wait for embedding (keyword search only until then)"
    )
    p.add_argument("--no-ocr", action="store_true", help="leave scanned pages pending (OCR them later)")
    p.add_argument(
        "--parse-timeout",
        type=float,
        default=ParseLimits().seconds,
        metavar="SECONDS",
        help="skip a file whose reading takes longer (default: %(default)g)",
    )
    p.add_argument(
        "--parse-memory",
        type=int,
        default=ParseLimits().memory_mb,
        metavar="MB",
        help="skip a file whose reading needs more memory (default: %(default)d)",
    )
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("search", help="search the library")
    p.add_argument("query", nargs="?")
    p.add_argument("--queries", help="JSON Lines file of {id, text}; one JSON line per query is printed")
    p.add_argument("--top-k", type=_at_least_one, default=10)
    p.add_argument("--mode", choices=MODES, default="hybrid")
    p.add_argument("--doc", type=int, action="append", help="restrict to this document id (repeatable)")
    p.add_argument("--collection", action="append", help="restrict to this collection (repeatable)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("docs", help="list documents in the library")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_docs)

    p = sub.add_parser("remove", help="remove documents by id or path")
    p.add_argument("items", nargs="+")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_remove)

    p = sub.add_parser("verify", help="check the library for damage")
    p.add_argument("--repair", action="store_true", help="fix what can be fixed")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_verify)
    add_source_commands(sub, _open)
    add_model_commands(sub)
    add_gui_command(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    # A question's bytes that are not UTF-8 reach Python as lone surrogates, which UTF-8 cannot
    # encode: echoed in a message, they print as "?" instead of ending the command (JSON lines
    # escape them: ``output.emit_json``).
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8", errors="replace")
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (StorageError, CollectionError, SourceError) as err:  # a message, not a traceback
        print(f"kbapp: {err}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader stopped early (``kbapp search … | head``): not an error worth a traceback.
        # Output still buffered would raise again when Python flushes it at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # what a shell reports for a command ended by SIGPIPE


def _nothing_left() -> bool:
    """Whether the interpreter's exit has nothing to wait for or tidy: no thread or child process
    still running, no window (Qt tears its own objects down), and no profiler or tracer (cProfile,
    coverage) that writes its report at exit."""
    # Not imported before the window paints (``kbapp gui``): no child process exists without it.
    processes = sys.modules.get("multiprocessing")
    running = threading.active_count() > 1 or (processes is not None and processes.active_children())
    watched = sys.getprofile() is not None or sys.gettrace() is not None
    return not running and not watched and "PySide6" not in sys.modules


def run() -> NoReturn:
    """The ``kbapp`` command: ``main``, then, when nothing is left running, the process ends at once.

    A command has closed the library (everything durable, workers stopped) by the time it returns;
    what the interpreter's exit would still do is tear down modules: another 0.2-0.3 s on every
    command (PyMuPDF 90 ms, the tokenizer 120 ms, SQLAlchemy and the core 90 ms, measured here),
    about as long as a keyword search."""
    code = main()
    if not _nothing_left():
        sys.exit(code)
    if (logs := sys.modules.get("logging")) is not None:
        logs.shutdown()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader stopped early, as in ``main``
        os._exit(141)
    os._exit(code)


if __name__ == "__main__":
    run()
