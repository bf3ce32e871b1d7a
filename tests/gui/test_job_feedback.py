"""What an import leaves on screen: a one-line sum in the status bar, and the report only when
files failed."""

from __future__ import annotations

from kbapp.contract import FileReport, ImportReport, Outcome


def test_import_sum_counts_each_outcome_once(open_window) -> None:  # type: ignore[no-untyped-def]
    window = open_window()
    outcomes = [Outcome.IMPORTED, Outcome.UPDATED, Outcome.UNCHANGED, Outcome.DUPLICATE, Outcome.DUPLICATE]
    report = ImportReport(
        files=[FileReport(f"{n}.md", o, "") for n, o in enumerate(outcomes)], cancelled=True
    )
    window.feedback.report_import(report)
    assert window.status.currentMessage() == "2 files imported · 3 already in the library · cancelled"
    assert window.feedback.report_dialog is None


def test_failed_files_open_the_report(open_window) -> None:  # type: ignore[no-untyped-def]
    window = open_window()
    report = ImportReport(
        files=[FileReport("a.pdf", Outcome.FAILED, "not a PDF")], problems=[("missing/", "no such folder")]
    )
    window.feedback.report_import(report)
    assert window.status.currentMessage() == "0 files imported · 2 could not be imported"
    dialog = window.feedback.report_dialog
    assert dialog is not None and dialog.isVisible()
    assert set(dialog.reasons()) >= {"a.pdf"}
