"""The library's long jobs, run one writer at a time: import, semantic indexing, removal.

The ``KnowledgeBase`` supports one writer plus concurrent searches, so imports, embedding
and removals go through a queue here while searches (``search_runner``) and library listings
run beside them. Import is followed by embedding; a cancelled job drops the queued ones of
its kind. Nothing here blocks the GUI thread: even "is there a model pack?" is asked on a
worker, because the first answer hashes the pack's files.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from kbapp.contract import Cancelled, ImportProgress, ImportReport, InterruptedImport, ModelState
from kbapp.gui.operations import Operation, OperationContext
from kbapp.gui.qt_compat import emit

if TYPE_CHECKING:  # the core is imported by whoever opens the library, after the window shows
    from kbapp.library import KnowledgeBase

IMPORT, EMBED, EDIT = "import", "embed", "edit"  # edits: removal, discarding; not cancellable
_CHANGED_THROTTLE_MS = 600


@dataclass(frozen=True, slots=True)
class JobProgress:
    kind: str  # IMPORT or EMBED
    done: int
    total: int
    current: str = ""  # the file being imported


@dataclass(slots=True)
class _Job:
    kind: str
    make: Callable[[], Operation]


class LibraryJobs(QObject):
    progress = Signal(object)  # JobProgress
    started = Signal(str)  # kind
    busyChanged = Signal(bool)
    importFinished = Signal(object)  # ImportReport
    embeddingFinished = Signal(bool)  # True when every passage got its vector
    libraryChanged = Signal()  # documents appeared, changed or went (throttled while importing)
    removed = Signal()  # documents were removed
    pendingChanged = Signal(int)  # passages waiting for semantic indexing
    modelChanged = Signal(str)  # ModelState.LOADING, ModelState.READY or ModelState.UNAVAILABLE
    interrupted = Signal(object)  # InterruptedImport: an earlier import did not finish
    error = Signal(str)

    def __init__(self, kb: KnowledgeBase, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._kb = kb
        self._queue: deque[_Job] = deque()
        self._current: tuple[str, Operation] | None = None
        self.model_state = ModelState.LOADING
        self.model_problem = ""
        self.pending = 0
        self._changed = QTimer(self)
        self._changed.setSingleShot(True)
        self._changed.setInterval(_CHANGED_THROTTLE_MS)
        self._changed.timeout.connect(self._changed_timeout)
        self._changed_pending = False
        self._last_done = 0

    # -- public -----------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._current is not None or bool(self._queue)

    @property
    def current_kind(self) -> str | None:
        return self._current[0] if self._current else None

    def load_model(self) -> Operation:
        """Load the encoder and vector index in the background; then embed what is pending."""
        self.model_state = ModelState.LOADING
        emit(self.modelChanged, ModelState.LOADING)

        def work(_ctx: OperationContext) -> tuple[bool, int]:
            ok = self._kb.load_model()
            return ok, self._kb.pending_embeddings() if ok else 0

        return Operation(work, on_success=self._model_loaded, on_failure=self._model_failed).start()

    def import_paths(self, paths: Sequence[str]) -> None:
        paths = [str(p) for p in paths]
        self._enqueue(
            _Job(
                IMPORT,
                lambda: self._import_operation(
                    lambda progress, cancel: self._kb.import_paths(paths, progress=progress, cancel=cancel)
                ),
            )
        )

    def check_interrupted(self) -> Operation:
        """Look for an import that a crash or kill interrupted; a library rebuild after damage
        is resumed at once, an ordinary import is offered (``interrupted``)."""

        def work(_ctx: OperationContext) -> tuple[InterruptedImport | None, bool]:
            return self._kb.interrupted_import(), self._kb.recovering

        def found(value: tuple[InterruptedImport | None, bool]) -> None:
            interrupted, recovering = value
            if recovering:
                self.resume()
            elif interrupted is not None:
                emit(self.interrupted, interrupted)

        return Operation(work, on_success=found, on_failure=self._failed).start()

    def resume(self) -> None:
        """Import the files an interrupted import did not get to."""
        self._enqueue(
            _Job(
                IMPORT,
                lambda: self._import_operation(
                    lambda progress, cancel: self._kb.resume_import(progress=progress, cancel=cancel)
                ),
            )
        )

    def discard_interrupted(self) -> None:
        """Forget an interrupted import (what it finished stays in the library)."""
        self._enqueue(
            _Job(
                EDIT,
                lambda: Operation(
                    lambda _ctx: self._kb.discard_interrupted_import(), on_failure=self._failed
                ),
            )
        )

    def embed(self) -> None:
        """Give every passage without a vector one (queued after any running import)."""
        if self.model_state != ModelState.UNAVAILABLE and not any(job.kind == EMBED for job in self._queue):
            self._enqueue(_Job(EMBED, self._embed_operation))

    def remove(self, doc_ids: Sequence[int]) -> None:
        ids = list(doc_ids)
        self._enqueue(_Job(EDIT, lambda: self._remove_operation(ids)))

    def cancel(self) -> None:
        """Stop the running import or indexing and drop queued imports and indexing."""
        self._queue = deque(job for job in self._queue if job.kind == EDIT)
        if self._current is not None and self._current[0] != EDIT:
            self._current[1].cancel()

    # -- queue ------------------------------------------------------------------------------

    def _enqueue(self, job: _Job) -> None:
        was_busy = self.busy
        self._queue.append(job)
        if not was_busy:
            emit(self.busyChanged, True)
        self._next()

    def _next(self) -> None:
        if self._current is not None:
            return
        if not self._queue:
            emit(self.busyChanged, False)
            return
        job = self._queue.popleft()
        operation = job.make()
        self._current = (job.kind, operation)
        operation.done.connect(self._job_done)
        emit(self.started, job.kind)
        operation.start()

    def _job_done(self) -> None:
        self._current = None
        self._next()

    def _failed(self, err: BaseException) -> None:
        emit(self.error, f"{type(err).__name__}: {err}")

    def _library_changed_soon(self) -> None:
        """``libraryChanged`` at once, then at most every 600 ms while changes keep coming: the
        first imported file shows up in the library panel immediately, the hundredth does not
        cost a hundred listings."""
        if self._changed.isActive():
            self._changed_pending = True
            return
        emit(self.libraryChanged)
        self._changed.start()

    def _changed_timeout(self) -> None:
        if self._changed_pending:
            self._changed_pending = False
            emit(self.libraryChanged)
            self._changed.start()

    def _set_pending(self, pending: int) -> None:
        self.pending = pending
        emit(self.pendingChanged, pending)

    # -- operations -------------------------------------------------------------------------

    def _import_operation(
        self, run: Callable[[Callable[[ImportProgress], None], Callable[[], bool]], ImportReport]
    ) -> Operation:
        """``run(progress, cancel)`` is ``KnowledgeBase.import_paths`` or ``resume_import``."""
        self._last_done = 0

        def work(ctx: OperationContext) -> tuple[ImportReport, int]:
            def progress(p: ImportProgress) -> None:
                ctx.report(JobProgress(IMPORT, p.done, p.total, p.current))

            report = run(progress, ctx.cancelled)
            return report, self._kb.pending_embeddings()

        return Operation(
            work, on_success=self._imported, on_failure=self._failed, on_progress=self._import_progress
        )

    def _import_progress(self, progress: JobProgress) -> None:
        if progress.done > self._last_done:  # a file finished: it is keyword-searchable now
            self._last_done = progress.done
            self._library_changed_soon()
        emit(self.progress, progress)

    def _imported(self, value: tuple[ImportReport, int]) -> None:
        report, pending = value
        self._changed.stop()
        self._changed_pending = False
        self._set_pending(pending)
        emit(self.libraryChanged)
        emit(self.importFinished, report)
        if pending and not report.cancelled:
            self.embed()

    def _embed_operation(self) -> Operation:
        def work(ctx: OperationContext) -> tuple[bool, int]:
            ctx.report(JobProgress(EMBED, 0, self._kb.pending_embeddings()))
            try:
                self._kb.embed_pending(
                    progress=lambda done, total: ctx.report(JobProgress(EMBED, done, total)),
                    cancel=ctx.cancelled,
                )
                complete = True
            except Cancelled:
                complete = False
            return complete, self._kb.pending_embeddings()

        return Operation(
            work, on_success=self._embedded, on_failure=self._failed, on_progress=self._embed_progress
        )

    def _embed_progress(self, progress: JobProgress) -> None:
        emit(self.progress, progress)
        self._set_pending(max(progress.total - progress.done, 0))
        self._library_changed_soon()

    def _embedded(self, value: tuple[bool, int]) -> None:
        complete, pending = value
        self._changed.stop()
        self._changed_pending = False
        self._set_pending(pending)
        emit(self.libraryChanged)
        emit(self.embeddingFinished, complete and not pending)

    def _remove_operation(self, ids: list[int]) -> Operation:
        def work(_ctx: OperationContext) -> int:
            self._kb.remove(ids)
            return self._kb.pending_embeddings()

        return Operation(work, on_success=self._removed, on_failure=self._failed)

    def _removed(self, pending: int) -> None:
        self._set_pending(pending)
        emit(self.libraryChanged)
        emit(self.removed)

    # -- model ------------------------------------------------------------------------------

    def _model_loaded(self, value: tuple[bool, int]) -> None:
        ok, pending = value
        self.model_state = ModelState.READY if ok else ModelState.UNAVAILABLE
        self.model_problem = "" if ok else (self._kb.model_problem or "")
        emit(self.modelChanged, self.model_state)
        self._set_pending(pending)
        if pending:
            self.embed()

    def _model_failed(self, err: BaseException) -> None:
        self.model_state = ModelState.UNAVAILABLE
        self.model_problem = str(err)
        emit(self.modelChanged, ModelState.UNAVAILABLE)
