"""``KnowledgeBase``: the one object the CLI, the GUI and the tests drive.

It owns a data directory (the SQLite library, kept copies of the imported files, and caches
derived from the library) and exposes the few operations a user has: import, search, list,
remove, verify. Nothing here knows about Qt; long operations take a progress callback and a
cancel predicate so any front end can drive them.

SQLite is the one source of truth; everything else in the data directory is either a kept copy
(the input, for rebuilding) or a cache that is checked against SQLite when it is opened and
rebuilt from it when it does not match. Opening the library runs SQLite's quick check; a damaged
file is moved aside and the library rebuilt from the kept copies (see ``recovery``). Imports
are journaled and resumable (``interrupted_import``, ``resume_import``), and files are read in
a worker process with time and memory limits (``ParseLimits``).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError

from kbapp.chunking import ChunkingConfig
from kbapp.contract import (
    DocumentRecord,
    ImportProgress,
    ImportReport,
    InterruptedImport,
    Outcome,
    SearchResponse,
)
from kbapp.embedding import default_pack_dir
from kbapp.embedding.handle import ModelHandle
from kbapp.importing import embedding_job
from kbapp.importing.copies import CopyStore
from kbapp.importing.discovery import discover
from kbapp.importing.import_run import RunContext, run_files
from kbapp.importing.parse_worker import ParseLimits, ParseWorker
from kbapp.importing.reading import InProcessReader, Parser, Reader
from kbapp.index.dense import DenseIndex
from kbapp.ingest import parse_file
from kbapp.maintenance import verify
from kbapp.maintenance.recovery import Damage, move_aside, open_library, plan_rebuild
from kbapp.search.searcher import Searcher
from kbapp.search.semantic import SemanticRetriever
from kbapp.store import journal, repository
from kbapp.store.checks import CheckReport, check_database
from kbapp.store.database import write_transaction
from kbapp.store.errors import (
    StorageError,
    StorageProblem,
    classify,
    classify_os_error,
    folder_writable,
)
from kbapp.store.repair import repair_database

__all__ = ["DB_NAME", "KnowledgeBase", "ParseLimits"]

DB_NAME = "library.sqlite3"
_DEFAULT = object()


class KnowledgeBase:
    def __init__(
        self,
        data_dir: Path,
        *,
        pack_dir: Path | object | None = _DEFAULT,
        parse: Parser = parse_file,
        chunking: ChunkingConfig | None = None,
        autoload_model: bool = True,
        keep_copies: bool = True,
        parse_limits: ParseLimits | None = ParseLimits(),  # noqa: B008 - immutable
    ) -> None:
        """Open (creating if needed) the library in ``data_dir``.

        ``pack_dir`` is the model pack to embed with (default: the bundled default pack;
        None: keyword search only). The model is loaded by ``load_model``, or on the first search
        that needs it when ``autoload_model`` is set (a GUI clears it and loads in the background,
        so a search never waits for the model).

        ``keep_copies`` keeps a copy of every imported file in ``data_dir/files`` so the library can
        be rebuilt when the originals are gone. ``parse_limits`` bounds reading one file (in a worker
        process; ``parse`` must then be a module-level function); None reads in this process.

        A damaged library file is moved aside and a rebuild from the kept copies is queued as an
        interrupted import (``recovering``); ``notices`` says what happened.
        """
        if parse_limits is not None:
            try:
                pickle.dumps(parse)
            except (pickle.PicklingError, AttributeError, TypeError) as err:
                raise ValueError(
                    "parse must be a module-level function to run in the parse worker "
                    "(or pass parse_limits=None to read in this process)"
                ) from err
        self.data_dir = Path(data_dir)
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise classify_os_error(err, self.data_dir) from err
        self.notices: list[str] = []
        self.read_only = not folder_writable(self.data_dir)
        self.copies = CopyStore(self.data_dir)
        self.keep_copies = keep_copies
        self.model = ModelHandle(default_pack_dir() if pack_dir is _DEFAULT else pack_dir)
        self._parse = parse
        self._chunking = chunking or ChunkingConfig()
        self._limits = parse_limits
        self._worker: ParseWorker | None = None
        self._autoload = autoload_model
        self._model_lock = threading.Lock()
        self._active_jobs: set[int] = set()
        engine, damage = open_library(self.data_dir / DB_NAME, read_only=self.read_only)
        self._attach(engine)
        if damage is not None:
            self._queue_rebuild(damage)
        if self.read_only:
            self.notices.append(
                f"The library folder {self.data_dir} is read-only: "
                "searching works, importing and removing do not."
            )

    def _attach(self, engine: Engine) -> None:
        self.engine = engine
        self._searcher = Searcher(engine)
        self._searcher.semantic_unavailable = self.model.problem or "the embedding model is still loading"
        self._dense: DenseIndex | None = None

    def _queue_rebuild(self, damage: Damage) -> None:
        plan = plan_rebuild(damage.kept_as, self.copies)
        with write_transaction(self.engine) as conn:
            journal.start_job(
                conn, "recovery", plan.files, [(p, Outcome.FAILED, why) for p, why in plan.lost]
            )
        self.notices.append(
            f"The library file was damaged ({damage.reason}); it was kept as {damage.kept_as.name} and the "
            f"library is being rebuilt from {plan.summary()}."
        )

    # -- the model and the vector index ---------------------------------------------------------

    def load_model(self) -> bool:
        """Load the encoder and open (or rebuild) the vector index; False if there is no usable pack.

        The chunking tokenizer is loaded too: that holds the GIL for a second or more, which would
        otherwise freeze a window at the start of its first import."""
        with self._model_lock:
            loaded = self._load_model()
        self.model.token_counter()
        return loaded

    @property
    def model_available(self) -> bool:
        """A verified model pack is installed (the first answer hashes its files)."""
        return self.model.available

    @property
    def model_problem(self) -> str | None:
        """Why semantic search is unavailable, in words for the user; None when it is not."""
        return self.model.problem

    def _load_model(self) -> bool:
        if self._searcher.semantic is not None:
            return True
        encoder = self.model.encoder()
        if encoder is None:
            self._searcher.semantic_unavailable = self.model.problem or "no model pack"
            return False
        self._searcher.semantic_unavailable = "the vector index is being checked"
        dense = DenseIndex(self.engine, self.data_dir, encoder.pack_id, encoder.dimension)
        reason = dense.open()
        if reason is not None:
            self.notices.append(f"The vector index was rebuilt from the library ({reason}).")
        self._dense = dense
        self._searcher.semantic = SemanticRetriever(encoder, dense)
        return True

    def _save_index(self) -> None:
        if self._dense is None or self.read_only:
            return
        problem = self._dense.save()
        if problem is not None and not any(
            n.startswith("Could not save the vector index") for n in self.notices
        ):
            self.notices.append(
                f"Could not save the vector index: {problem}; it is rebuilt at the next start."
            )

    def pending_embeddings(self) -> int:
        pack = self.model.pack()
        return embedding_job.pending_count(self.engine, pack.manifest.id) if pack else 0

    def embed_pending(
        self,
        progress: Callable[[int, int], None] | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> int:
        """Embed every passage that has no vector for the active pack, then save the vector index.

        Raises ``kbapp.embedding.Cancelled`` if cancelled and ``StorageError`` if the library cannot
        be written; what was embedded so far is kept (a later run resumes from there).
        """
        if self.read_only or not self.load_model():
            return 0
        encoder = self.model.encoder()
        assert encoder is not None and self._dense is not None
        try:
            return embedding_job.embed_pending(self.engine, encoder, progress, cancel)
        except DBAPIError as exc:
            storage = classify(exc, self.data_dir)
            if storage is None:
                raise
            raise storage from exc
        finally:
            self._dense.sync()
            self._save_index()

    def close(self) -> None:
        self._save_index()
        if self._worker is not None:
            self._worker.stop()
        self.engine.dispose()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- importing ----------------------------------------------------------------------------

    def _reader(self) -> Reader:
        """The reader of this library's imports; the parse worker is started now (in the background),
        the tokenizer is loaded when the first file is read (an import of unchanged files needs neither)."""
        if self._limits is None:
            return InProcessReader(self._parse, self.model.token_counter, self._chunking)
        if self._worker is None:
            self._worker = ParseWorker(
                self._parse, self._chunking, self._limits, self.model.token_counter, self.model.tokenizer_path
            )
        with contextlib.suppress(OSError):  # reported for the first file, if it persists
            self._worker.start()
        return self._worker

    def _writable(self) -> None:
        if self.read_only:
            raise StorageError(StorageProblem.READ_ONLY, self.data_dir, "read-only file system")

    def _guarded(self, work: Callable[[ImportReport], None]) -> ImportReport:
        """Run ``work`` on a new report, timed; a storage failure ends it with a message saying what
        was kept."""
        started = time.perf_counter()
        report = ImportReport()
        try:
            work(report)
        except (DBAPIError, OSError, StorageError) as exc:
            err = classify(exc, self.data_dir)
            if err is None:
                raise
            hint = (
                " Free some space and import again to resume."
                if err.problem is StorageProblem.DISK_FULL
                else ""
            )
            report.error = (
                f"{err.message}. The import stopped; everything imported until then was kept.{hint}"
            )
        report.seconds = time.perf_counter() - started
        return report

    def _run_jobs(
        self,
        jobs: list[journal.Job],
        report: ImportReport,
        progress: Callable[[ImportProgress], None] | None,
        cancel: Callable[[], bool] | None,
    ) -> None:
        """Import what ``jobs`` (already marked active in this process) have left to do."""
        ctx = RunContext(self.engine, self._reader(), self.copies, self.keep_copies)
        pending: list[tuple[int, journal.JobFile]] = []
        already = 0
        with self.engine.connect() as conn:
            for job in jobs:
                for entry in journal.job_files(conn, job.id):
                    if entry.done:
                        already += 1
                    else:
                        pending.append((job.id, entry))
        try:
            run_files(ctx, pending, report, already_done=already, progress=progress, cancel=cancel)
            # A finished job, or an import the user cancelled, has nothing left to resume; a
            # cancelled rebuild of a damaged library stays, since only it can restore those files.
            with write_transaction(self.engine) as conn:
                for job in jobs:
                    if job.kind == "recovery" and report.cancelled:
                        continue
                    if job.kind == "recovery":
                        self._report_rebuild(conn, job)
                    journal.finish_job(conn, job.id)
        finally:
            self._active_jobs.difference_update(job.id for job in jobs)

    def _report_rebuild(self, conn: Connection, job: journal.Job) -> None:
        files = journal.job_files(conn, job.id)
        restored = [f for f in files if f.outcome in ("imported", "updated", "unchanged", "duplicate")]
        lost = [f for f in files if f not in restored]
        names = ", ".join(Path(f.path).name for f in lost[:5])
        self.notices.append(
            f"The library was rebuilt: {len(restored)} of {len(files)} documents restored"
            + (f"; not restored: {names}." if lost else ".")
        )

    def import_paths(
        self,
        paths: Iterable[Path | str],
        progress: Callable[[ImportProgress], None] | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> ImportReport:
        def work(report: ImportReport) -> None:
            self._writable()
            self._reader()  # the worker starts while the folders are walked
            found = discover([Path(p) for p in paths], self.data_dir)
            report.problems = [(str(p), why) for p, why in found.problems]
            report.skipped = found.skipped
            with write_transaction(self.engine) as conn:
                job = journal.start_job(conn, "import", [(os.path.abspath(p), None) for p in found.files])
                self._active_jobs.add(job.id)  # before anyone can see it: it is not interrupted
            self._run_jobs([job], report, progress, cancel)

        return self._guarded(work)

    def _interrupted_jobs(self) -> list[journal.Job]:
        with self.engine.connect() as conn:
            jobs = journal.jobs(conn)
        return [
            j
            for j in jobs
            if (journal.is_own(j) and j.id not in self._active_jobs)
            or (not journal.is_own(j) and not journal.owner_alive(j))
        ]

    def interrupted_import(self) -> InterruptedImport | None:
        """Files of imports that a crash or kill interrupted, done and remaining; None if there are none."""
        jobs = self._interrupted_jobs()
        if not jobs:
            return None
        done: list[str] = []
        remaining: list[str] = []
        with self.engine.connect() as conn:
            for job in jobs:
                for entry in journal.job_files(conn, job.id):
                    (done if entry.done else remaining).append(entry.path)
        return InterruptedImport(done, remaining)

    @property
    def recovering(self) -> bool:
        """True while a rebuild of a damaged library waits to be run (by ``resume_import``)."""
        return any(j.kind == "recovery" for j in self._interrupted_jobs())

    def resume_import(
        self,
        progress: Callable[[ImportProgress], None] | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> ImportReport:
        """Import the remaining files of interrupted imports (and of a pending rebuild)."""

        def work(report: ImportReport) -> None:
            jobs = self._interrupted_jobs()
            if not jobs:
                return
            self._writable()
            with write_transaction(self.engine) as conn:
                for job in jobs:
                    journal.claim_job(conn, job.id)
                    self._active_jobs.add(job.id)
            self._run_jobs(jobs, report, progress, cancel)

        return self._guarded(work)

    def discard_interrupted_import(self) -> None:
        """Forget interrupted imports (what they finished stays in the library)."""
        jobs = self._interrupted_jobs()
        if jobs:
            with write_transaction(self.engine) as conn:
                for job in jobs:
                    journal.finish_job(conn, job.id)

    # -- reading the library --------------------------------------------------------------------

    def search(
        self, query: str, k: int = 10, mode: str = "hybrid", document_ids: Sequence[int] | None = None
    ) -> SearchResponse:
        wanted = mode != "lexical" and self._autoload and self._searcher.semantic is None
        # Never wait for a load another thread is doing (a rebuild can take a while): answer with
        # keywords meanwhile.
        if wanted and self.model.available and self._model_lock.acquire(blocking=False):
            try:
                self._load_model()
            finally:
                self._model_lock.release()
        return self._searcher.search(query, k, mode, document_ids)

    def documents(self) -> list[DocumentRecord]:
        with self.engine.connect() as conn:
            return repository.list_documents(conn)

    def pages(self, doc_id: int) -> list[tuple[int | None, str]]:
        """``(page number, text)`` of a document's pages: what result offsets point into."""
        with self.engine.connect() as conn:
            return repository.page_texts(conn, doc_id)

    def embedding_progress(self) -> dict[int, tuple[int, int]]:
        """Per document: ``(passages embedded by the active pack, passages)``."""
        pack = self.model.pack()
        with self.engine.connect() as conn:
            rows = conn.exec_driver_sql(
                "SELECT c.document_id, count(v.chunk_id), count(*) FROM chunks c "
                "LEFT JOIN vectors v ON v.chunk_id = c.id AND v.pack_id = ? GROUP BY c.document_id",
                (pack.manifest.id if pack else "",),
            )
            return {r[0]: (r[1], r[2]) for r in rows}

    def remove(self, doc_ids: Iterable[int]) -> int:
        """Remove documents (and their kept copies, unless another document shares them)."""
        self._writable()
        removed: list[DocumentRecord] = []
        try:
            with write_transaction(self.engine) as conn:
                for doc_id in doc_ids:
                    record = repository.get_document(conn, doc_id)
                    if record is not None and repository.delete_document(conn, doc_id):
                        removed.append(record)
            self.copies.catalogue.remove(r.path for r in removed)
        except (DBAPIError, OSError) as exc:
            storage = classify(exc, self.data_dir)
            if storage is None:
                raise
            raise storage from exc
        self.copies.release(self.engine, [r.copy_path for r in removed])
        return len(removed)

    # -- checking and repairing -----------------------------------------------------------------

    def verify(self, repair: bool = False) -> CheckReport:
        """Full checks of the library and what beside it depends on it; ``repair`` fixes what can be
        fixed (rebuilds derived data, re-imports what cannot be fixed in place, rebuilds a damaged
        library from its sources) and returns the checks after repairing, with what was done."""
        report = self._check()
        if not repair:
            return report
        self._writable()
        actions = self._rebuild_damaged(report) if report.damaged else self._repair()
        final = self._check()
        final.repaired = actions
        return final

    def _check(self) -> CheckReport:
        pack = self.model.pack()
        pack_id, dimension = (pack.manifest.id, pack.manifest.dimension) if pack else (None, None)
        with self.engine.connect() as conn:
            report = check_database(conn, full=True, pack_id=pack_id, dimension=dimension)
        if report.damaged:
            return report
        copies = verify.check_copies(self.engine, self.copies, full=True)
        report.problems += copies.problems()
        report.notes += copies.notes(self.keep_copies)
        report.facts["kept_copies"] = len(self.copies.stored())
        if pack_id is not None and dimension is not None:
            reason = verify.check_index(self.engine, self.data_dir, pack_id, dimension)
            if reason is not None:
                report.notes.append(
                    f"{reason}; it is rebuilt from the library on the next search (or by --repair)"
                )
        interrupted = self.interrupted_import()
        if interrupted is not None:
            total = len(interrupted.done) + len(interrupted.remaining)
            report.notes.append(
                f"an import was interrupted: {len(interrupted.done)} of {total} files were done "
                "(import again to resume)"
            )
        return report

    def _repair(self) -> list[str]:
        pack = self.model.pack()
        pack_id, dimension = (pack.manifest.id, pack.manifest.dimension) if pack else (None, None)
        with write_transaction(self.engine) as conn:
            fixed = repair_database(conn, pack_id=pack_id, dimension=dimension)
        actions = list(fixed.actions)
        if fixed.reimport:  # before the copies are checked: theirs are unreferenced until then
            files = [
                (path, str(self.copies.resolve(rel)) if rel and self.copies.resolve(rel).is_file() else None)
                for path, rel in fixed.reimport
            ]
            imported = self._run_new_job("repair", files)
            actions.append(
                "imported again (they had lost their passages): "
                + "; ".join(f.message for f in imported.files)
            )
        copies = verify.check_copies(self.engine, self.copies, full=True)
        actions += verify.repair_copies(self.engine, self.copies, copies, keep_copies=self.keep_copies)
        if pack_id is not None and dimension is not None and self._index_stale(pack_id, dimension):
            dense = self._dense or DenseIndex(self.engine, self.data_dir, pack_id, dimension)
            dense.rebuild()
            actions.append("rebuilt the vector index from the library")
        return actions

    def _index_stale(self, pack_id: str, dimension: int) -> bool:
        return verify.check_index(self.engine, self.data_dir, pack_id, dimension) is not None

    def _run_new_job(self, kind: str, files: list[tuple[str, str | None]]) -> ImportReport:
        report = ImportReport()
        with write_transaction(self.engine) as conn:
            job = journal.start_job(conn, kind, files)
            self._active_jobs.add(job.id)
        self._run_jobs([job], report, None, None)
        return report

    def _rebuild_damaged(self, report: CheckReport) -> list[str]:
        """The library file is damaged: keep it aside, start afresh and import everything again."""
        self.engine.dispose()
        kept = move_aside(self.data_dir / DB_NAME)
        engine, _ = open_library(self.data_dir / DB_NAME, read_only=False)
        self._attach(engine)
        self._queue_rebuild(Damage("; ".join(report.problems), kept))
        rebuilt = self.resume_import()
        return [f"moved the damaged library to {kept.name}", self.notices[-1]] + (
            [rebuilt.error] if rebuilt.error else []
        )
