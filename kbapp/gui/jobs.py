"""The library's long jobs, run one writer at a time: import, semantic indexing, OCR, removal.

The ``KnowledgeBase`` supports one writer plus concurrent searches, so imports, embedding, OCR
and removals go through a queue here while searches (``search_runner``) and library listings
run beside them. Import and follow-up jobs run ``KnowledgeBase.intake`` on a worker: an import
is followed by embedding and then OCR of its scanned pages in the same job, unless more jobs
wait, when a follow-up job queued behind them does both once for all. Reading scans takes
seconds a page, so an import or removal queued meanwhile stops it (pages read stay read) and goes
first; the pages left are read by a follow-up job after it. A cancelled job drops the queued ones
of its kind. Nothing here blocks the GUI thread: even "is there a model pack?" is
asked on a worker, because the first answer hashes the pack's files.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from kbapp.contract import (
    EmbedProgress,
    ImportProgress,
    ImportReport,
    IntakeProgress,
    IntakeReport,
    IntakeStage,
    InterruptedImport,
    ModelState,
    OcrProgress,
    OcrReport,
)
from kbapp.gui.operations import Operation, OperationContext
from kbapp.gui.qt_compat import emit

if TYPE_CHECKING:  # the core is imported by whoever opens the library, after the window shows
    from kbapp.library import KnowledgeBase

IMPORT, EMBED, OCR, EDIT = "import", "embed", "ocr", "edit"  # edits: removal, discarding; not cancellable
FOLLOW_UP = (EMBED, OCR)  # jobs that finish what imports left: vectors, then scanned pages
_SHOWN_AS = {
    IntakeStage.RESUME: IMPORT,
    IntakeStage.IMPORT: IMPORT,
    IntakeStage.EMBED: EMBED,
    IntakeStage.OCR: OCR,
}
_CHANGED_THROTTLE_MS = 600


@dataclass(frozen=True, slots=True)
class JobProgress:
    kind: str  # IMPORT, EMBED or OCR
    done: int  # files imported, passages embedded, scanned pages read
    total: int
    current: str = ""  # the file being imported or read by OCR
    page: int = 0  # the page OCR is reading


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
    ocrFinished = Signal(object)  # OcrReport: the scanned pages were read, or why not all
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
        self._refreshing: Operation | None = None  # the keyword copy's rebuild (``refresh_keyword_copy``)
        self.model_state = ModelState.LOADING
        self.model_problem = ""
        self.pending = 0
        self._changed = QTimer(self)
        self._changed.setSingleShot(True)
        self._changed.setInterval(_CHANGED_THROTTLE_MS)
        self._changed.timeout.connect(self._changed_timeout)
        self._changed_pending = False
        self._last_done = 0
        # The running intake job: the stage it last announced (``started``), whether its OCR report
        # was emitted, and whether its OCR was stopped to let a queued job go first.
        self._shown: str | None = None
        self._ocr_told = False
        self._giving_way = False

    # -- public -----------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._current is not None or bool(self._queue)

    @property
    def current_kind(self) -> str | None:
        return self._current[0] if self._current else None

    def load_model(self) -> Operation:
        """Load the encoder and vector index in the background; then embed what is pending and read
        the scanned pages a kill or a cancel left pending."""
        self.model_state = ModelState.LOADING
        emit(self.modelChanged, ModelState.LOADING)

        def work(_ctx: OperationContext) -> tuple[bool, int, int]:
            ok = self._kb.load_model()
            scans = 0 if self._kb.read_only else self._kb.pending_ocr()
            return ok, self._kb.pending_embeddings() if ok else 0, scans

        return Operation(work, on_success=self._model_loaded, on_failure=self._model_failed).start()

    def import_paths(self, paths: Sequence[str]) -> None:
        paths = [str(p) for p in paths]
        self._enqueue(_Job(IMPORT, lambda: self._intake_operation(IMPORT, paths)))

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
        self._enqueue(_Job(IMPORT, lambda: self._intake_operation(IMPORT, None, resume=True)))

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

    def finish_pending(self) -> None:
        """Give every passage without a vector one and read the scanned pages still pending, in one
        job queued after any waiting import (one is enough, however often this is asked). The job
        announces its stages as they begin, so one with nothing to do shows nothing."""
        if not any(job.kind in FOLLOW_UP for job in self._queue):
            kind = EMBED if self.pending and self.model_state != ModelState.UNAVAILABLE else OCR
            self._enqueue(_Job(kind, lambda: self._intake_operation(kind, None)))

    def refresh_keyword_copy(self) -> Operation | None:
        """Build the keyword postings copy of a large library if it is missing or out of date (lost
        in a crash, written by an older release, or the library changed by more than a tenth since):
        imports, removals and syncs keep it up to date, but without one of those since, keyword
        ranking would fall back to FTS5 alone, nine times slower at a million passages (README).
        Searches run meanwhile, on FTS5; a library another window holds is left alone."""
        if self._kb.read_only:
            return None
        self._refreshing = Operation(
            lambda ctx: self._kb.refresh_keyword_index(ctx.cancelled), on_failure=self._failed
        ).start()
        return self._refreshing

    def remove(self, doc_ids: Sequence[int]) -> None:
        ids = list(doc_ids)
        self._enqueue(_Job(EDIT, lambda: self._remove_operation(ids)))

    def cancel(self) -> None:
        """Stop the running import, indexing or OCR and drop queued imports and follow-ups (the pages
        not read yet stay pending: the next import or start reads them)."""
        self._queue = deque(job for job in self._queue if job.kind == EDIT)
        self._giving_way = False
        if self._current is not None and self._current[0] != EDIT:
            self._current[1].cancel()
        if self._refreshing is not None:
            self._refreshing.cancel()

    # -- queue ------------------------------------------------------------------------------

    def _enqueue(self, job: _Job) -> None:
        was_busy = self.busy
        self._queue.append(job)
        if not was_busy:
            emit(self.busyChanged, True)
        self._give_way()
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
        if job.kind not in FOLLOW_UP:  # a follow-up announces the stages it runs, if any
            emit(self.started, job.kind)
        operation.start()

    def _job_done(self) -> None:
        self._current = None
        self._next()

    def _failed(self, err: BaseException) -> None:
        emit(self.error, f"{type(err).__name__}: {err}")

    def _give_way(self) -> None:
        """Reading scans takes seconds a page (hours for an archive): an import or removal queued
        meanwhile stops it, and ``_intake_done`` queues the pages left behind the waiting job."""
        if self._current is None or self._current[0] != OCR or self._giving_way:
            return
        if any(job.kind in (IMPORT, EDIT) for job in self._queue):
            self._giving_way = True
            self._current[1].cancel()

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

    def _intake_operation(self, kind: str, paths: list[str] | None, *, resume: bool = False) -> Operation:
        """An import job's import (of ``paths``, or what an interrupted import left), then its
        embedding and OCR, or a follow-up job's embedding and OCR alone. An import leaves those to
        a follow-up job queued behind the jobs that wait when it is done, so files dropped one after
        another are all keyword-searchable before any embedding or OCR starts."""
        self._last_done = 0
        self._shown = IMPORT if kind == IMPORT else None
        self._ocr_told = self._giving_way = False
        embed = self.model_state != ModelState.UNAVAILABLE

        def work(ctx: OperationContext) -> IntakeReport:
            return self._kb.intake(
                paths,
                resume=resume,
                embed=embed,
                ocr=True,  # the library skips it when read-only or without OCR models
                progress=ctx.report,
                cancel=ctx.cancelled,
                # Read on the worker; a deque's length is read in one step.
                defer=(lambda: bool(self._queue)) if kind == IMPORT else None,
            )

        return Operation(
            work,
            on_success=self._intake_done,
            on_failure=self._failed,
            on_progress=self._intake_progress,
        )

    def _intake_progress(self, progress: IntakeProgress) -> None:
        # Coalescing may merge the ends of earlier stages into this event: they are told first.
        kind = _SHOWN_AS[progress.stage]
        if self._shown == IMPORT and kind != IMPORT:
            self._imported(_import_of(progress.imports), self.pending)
        if progress.ocr is not None:
            self._ocr_read(progress.ocr)
        if kind != self._shown:
            self._stage_starts(kind)
        step = progress.step
        if isinstance(step, ImportProgress):
            self._counted_progress(JobProgress(kind, step.done, step.total, step.current))
        elif isinstance(step, OcrProgress):
            self._counted_progress(JobProgress(kind, step.done, step.total, step.file, step.page))
        elif isinstance(step, EmbedProgress):
            self._embed_progress(JobProgress(EMBED, step.done, step.total))

    def _intake_done(self, report: IntakeReport) -> None:
        if self._shown == IMPORT:  # no later stage was announced: the import is all the job did
            self._imported(_import_of(report.imports), report.pending)
        else:
            self._settled(report.pending)
        if report.ocr is not None:
            self._ocr_read(report.ocr)
        if report.embedded is not None:
            emit(self.embeddingFinished, report.embedded and not report.pending)
        if report.deferred or (self._giving_way and report.cancelled):
            self.finish_pending()

    def _stage_starts(self, kind: str) -> None:
        """The running job moves on to ``kind``: the progress panel shows it, and OCR gives way to
        a job already waiting."""
        self._shown = kind
        self._last_done = 0
        if self._current is not None:
            self._current = (kind, self._current[1])
        emit(self.started, kind)
        self._give_way()

    def _counted_progress(self, progress: JobProgress) -> None:
        if progress.done > self._last_done:  # a file or a page was committed: it is searchable now
            self._last_done = progress.done
            self._library_changed_soon()
        emit(self.progress, progress)

    def _imported(self, report: ImportReport, pending: int) -> None:
        self._shown = None
        self._settled(pending)
        emit(self.importFinished, report)

    def _ocr_read(self, report: OcrReport) -> None:
        """The OCR stage is over: said once, and not when it only gave way (it goes on after)."""
        if self._ocr_told or (report.cancelled and self._giving_way):
            return
        self._ocr_told = True
        emit(self.ocrFinished, report)

    def _embed_progress(self, progress: JobProgress) -> None:
        emit(self.progress, progress)
        self._set_pending(max(progress.total - progress.done, 0))
        self._library_changed_soon()

    def _settled(self, pending: int) -> None:
        """A job's writes are done: the throttled listing gives way to one listing now."""
        self._changed.stop()
        self._changed_pending = False
        self._set_pending(pending)
        emit(self.libraryChanged)

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

    def _model_loaded(self, value: tuple[bool, int, int]) -> None:
        ok, pending, scans = value
        self.model_state = ModelState.READY if ok else ModelState.UNAVAILABLE
        self.model_problem = "" if ok else (self._kb.model_problem or "")
        emit(self.modelChanged, self.model_state)
        self._set_pending(pending)
        if pending or scans:
            self.finish_pending()  # its intake ends by bringing the keyword copy up to date
        else:
            self.refresh_keyword_copy()

    def _model_failed(self, err: BaseException) -> None:
        self.model_state = ModelState.UNAVAILABLE
        self.model_problem = str(err)
        emit(self.modelChanged, ModelState.UNAVAILABLE)
        self.refresh_keyword_copy()


def _import_of(imports: Sequence[ImportReport]) -> ImportReport:
    """What an import job reports: its import, or nothing done when the interrupted import it was
    to resume had been finished meanwhile."""
    return imports[-1] if imports else ImportReport()
