"""What the user sees of background work: progress, the status bar's word when it ends, the import
report, the model state, and notices that must not be missed (repairs, an import to resume)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from kbapp.contract import ImportReport, InterruptedImport, OcrReport, Outcome
from kbapp.gui.import_report import ImportReportDialog

if TYPE_CHECKING:
    from kbapp.gui.jobs import LibraryJobs
    from kbapp.gui.main_window import MainWindow


class JobFeedback(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._window = window
        self._notices_shown = 0
        self.report_dialog: ImportReportDialog | None = None

    def attach(self, jobs: LibraryJobs) -> None:
        """Follow ``jobs``: progress while they run, cancel on request, their errors and questions."""
        progress, status = self._window.progress, self._window.status
        progress.cancelRequested.connect(jobs.cancel)
        jobs.started.connect(progress.begin)
        jobs.progress.connect(progress.update_progress)
        jobs.pendingChanged.connect(lambda pending: status.set_pending(pending, jobs.model_state))
        jobs.interrupted.connect(self._offer_resume)
        jobs.error.connect(self.job_error)

    def job_error(self, message: str) -> None:
        """A background failure the user did not ask about directly: a status message, not a dialog."""
        self._window.status.showMessage(self.tr("Something went wrong: %1").replace("%1", message), 20000)

    def show_notices(self) -> None:
        """The library's new notices (repairs, rebuilt index, read-only folder) in the notice bar."""
        window = self._window
        fresh = window.kb.notices[self._notices_shown :]
        self._notices_shown = len(window.kb.notices)
        if not fresh:
            return
        if window.notice.isVisible() and window.notice.asks:  # do not hide a question behind news
            for text in fresh:
                window.status.showMessage(text, 15000)
            return
        window.notice.show_notice("\n".join(fresh))

    def _offer_resume(self, interrupted: InterruptedImport) -> None:
        """A crash left an import half done: a question in the notice bar, which stays until answered."""
        jobs = self._window.jobs
        total = len(interrupted.done) + len(interrupted.remaining)
        self._window.notice.show_notice(
            self.tr("An import did not finish last time: %1 of %2 files were read. Import the other %3?")
            .replace("%1", str(len(interrupted.done)))
            .replace("%2", str(total))
            .replace("%3", str(len(interrupted.remaining))),
            [
                (self.tr("Resume import"), jobs.resume),
                (self.tr("Discard"), jobs.discard_interrupted),
            ],
        )

    def report_import(self, report: ImportReport) -> None:
        """Sum the import up in the status bar; files that failed open the report, with reasons."""
        window = self._window
        if report.error:
            window.notice.show_notice(report.error)
        counts = {outcome: sum(1 for f in report.files if f.outcome is outcome) for outcome in Outcome}
        added = counts[Outcome.IMPORTED] + counts[Outcome.UPDATED]
        already = counts[Outcome.UNCHANGED] + counts[Outcome.DUPLICATE]
        parts = [self.tr("%n files imported", "", added)]
        if already:
            parts.append(self.tr("%n already in the library", "", already))
        failed = len(report.failed) + len(report.problems)
        if failed:
            parts.append(self.tr("%n could not be imported", "", failed))
        if report.cancelled:
            parts.append(self.tr("cancelled"))
        window.status.showMessage(" · ".join(parts), 15000)
        if failed:
            self.report_dialog = ImportReportDialog(report, window)
            self.report_dialog.show()

    def report_embedding(self, complete: bool) -> None:
        if complete:
            self._window.status.showMessage(
                self.tr("Semantic indexing finished: questions now also find passages by meaning."), 10000
            )

    def report_ocr(self, report: OcrReport) -> None:
        """How reading the scanned pages went; pages that could not be read are marked in the library."""
        status = self._window.status
        if report.unavailable:
            status.showMessage(
                self.tr("Scanned pages cannot be read yet: %1").replace("%1", report.unavailable), 20000
            )
            return
        parts = [self.tr("%n scanned pages read: their text is searchable now", "", report.pages)]
        if report.failed:
            parts.append(self.tr("%n could not be read", "", len(report.failed)))
        if report.cancelled:
            parts.append(self.tr("stopped: the other pages are read at the next import or start"))
        status.showMessage(" · ".join(parts), 15000)

    def show_model_state(self, state: str) -> None:
        """The model's state, and the passages waiting for it (not counted when no model can come)."""
        jobs = self._window.jobs
        self._window.status.set_model_state(state, jobs.model_problem)
        self._window.status.set_pending(jobs.pending, state)

    def close_report(self) -> None:
        """The window is closing: the import report goes with it."""
        if self.report_dialog is not None:
            self.report_dialog.close()
