"""Bringing files into a library, in the one order every front end uses: finish an interrupted
import, import the new files, give the new passages their vectors, then read the scanned pages
and give their passages vectors too.

A stage runs only if the ones before it finished: an import that stopped (disk full, read-only)
or was cancelled ends the intake with what it kept, and a cancelled embedding leaves OCR for the
next run; without its models OCR leaves every scanned page pending and says why. The CLI's
``import`` runs every stage and waits; the GUI runs one intake per job in the background, and lets
an import waiting in its queue go before embedding and OCR (``defer``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from kbapp.contract import (
    Cancelled,
    EmbedProgress,
    ImportProgress,
    ImportReport,
    IntakeProgress,
    IntakeReport,
    IntakeStage,
    OcrProgress,
    OcrReport,
)
from kbapp.ocr.models import models_problem

if TYPE_CHECKING:
    from kbapp.library.knowledge_base import KnowledgeBase

Step = ImportProgress | EmbedProgress | OcrProgress | None


def run_intake(
    kb: KnowledgeBase,
    paths: Iterable[Path | str] | None,
    *,
    resume: bool,
    embed: bool,
    ocr: bool,
    progress: Callable[[IntakeProgress], None] | None,
    cancel: Callable[[], bool] | None,
    defer: Callable[[], bool] | None,
) -> IntakeReport:
    """See ``KnowledgeBase.intake``."""
    run = _Intake(kb, progress, cancel)
    if run.imports(paths, resume):
        run.report.deferred = defer is not None and defer()
        if not run.report.deferred:
            run.after_imports(embed, ocr)
    run.report.pending = kb.pending_embeddings()
    return run.report


class _Intake:
    """One intake under way: what its stages reported, and the one callback they report progress to."""

    def __init__(
        self,
        kb: KnowledgeBase,
        progress: Callable[[IntakeProgress], None] | None,
        cancel: Callable[[], bool] | None,
    ) -> None:
        self._kb = kb
        self._progress = progress
        self._cancel = cancel
        self.report = IntakeReport()

    def _tell(self, stage: IntakeStage, step: Step) -> None:
        if self._progress is not None:
            self._progress(IntakeProgress(stage, step, tuple(self.report.imports), self.report.ocr))

    def _teller(self, stage: IntakeStage) -> Callable[[Step], None]:
        return lambda step: self._tell(stage, step)

    def imports(self, paths: Iterable[Path | str] | None, resume: bool) -> bool:
        """The interrupted import's remaining files (if ``resume`` and there is one), then ``paths``
        (unless None); True if each ran to its end."""
        interrupted = self._kb.interrupted_import() if resume else None
        if interrupted is not None:
            done, total = len(interrupted.done), len(interrupted.done) + len(interrupted.remaining)
            self._tell(IntakeStage.RESUME, ImportProgress(done, total, ""))
            resumed = self._kb.resume_import(self._teller(IntakeStage.RESUME), self._cancel)
            if not self._finished(IntakeStage.RESUME, resumed):
                return False
        if paths is None:
            return True
        imported = self._kb.import_paths(paths, self._teller(IntakeStage.IMPORT), self._cancel)
        return self._finished(IntakeStage.IMPORT, imported)

    def _finished(self, stage: IntakeStage, report: ImportReport) -> bool:
        self.report.imports.append(report)
        self._tell(stage, None)
        return not report.cancelled and report.error is None

    def after_imports(self, embed: bool, ocr: bool) -> None:
        """Embedding, then OCR and embedding what it read; each only if the one before finished."""
        if embed and not self.embed():
            return
        if ocr and self.ocr() and embed:
            self.embed()

    def embed(self) -> bool:
        """A vector for every passage without one; False if cancelled (what was embedded is kept)."""
        pending = self._kb.pending_embeddings()
        if not pending:
            return True
        self._tell(IntakeStage.EMBED, EmbedProgress(0, pending))
        try:
            self._kb.embed_pending(
                lambda done, total: self._tell(IntakeStage.EMBED, EmbedProgress(done, total)), self._cancel
            )
            self.report.embedded = True
        except Cancelled:
            self.report.embedded = False
        self._tell(IntakeStage.EMBED, None)
        return self.report.embedded

    def ocr(self) -> bool:
        """Read every pending scanned page; False if cancelled or the OCR models are missing (the
        rest, or every page, stays pending)."""
        pages = self._kb.pending_ocr()
        if not pages:
            return True
        problem = models_problem()
        if problem is not None:
            self.report.ocr = OcrReport(unavailable=problem)
            return False
        self._tell(IntakeStage.OCR, OcrProgress(0, pages, "", 0, None))
        self.report.ocr = self._kb.run_ocr(self._teller(IntakeStage.OCR), self._cancel)
        self._tell(IntakeStage.OCR, None)
        return not self.report.ocr.cancelled
