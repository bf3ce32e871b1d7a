"""What the CLI prints while long work runs: a line per file as soon as it is committed, and the
stages of an intake as they start and end."""

from __future__ import annotations

import sys
from typing import TextIO

from kbapp.cli.output import emit_json
from kbapp.contract import EmbedProgress, ImportProgress, IntakeProgress, IntakeStage, OcrProgress


def show_file(p: ImportProgress, as_json: bool, stream: TextIO | None = None) -> None:
    """One line per finished file, printed (and flushed) only after its document is committed."""
    if p.report is None:
        return
    if as_json:
        emit_json(
            {
                "path": p.report.path,
                "outcome": str(p.report.outcome),
                "message": p.report.message,
                "doc_id": p.report.doc_id,
                "chunks": p.report.chunks,
                "warnings": p.report.warnings,
            }
        )
    else:
        print(f"{p.report.outcome.upper():<9} {p.report.message}", file=stream or sys.stdout, flush=True)


class IntakeLines:
    """What an intake prints while it runs (``import``, and the embedding after ``sync``): a line per
    file as soon as it is committed, and for the later stages a first line saying what they have
    to do, then (OCR) a line per page and what it read; a resumed import first says how far it
    had got."""

    def __init__(self, as_json: bool, info: TextIO) -> None:
        self._json = as_json
        self._info = info
        self._stage: IntakeStage | None = None

    def __call__(self, p: IntakeProgress) -> None:
        begins = p.stage != self._stage
        self._stage = p.stage
        step = p.step
        if isinstance(step, ImportProgress):
            if begins and p.stage is IntakeStage.RESUME:
                self._say(f"resuming interrupted import: {step.done} of {step.total} files were done")
            show_file(step, self._json)
        elif isinstance(step, EmbedProgress) and begins:
            self._say(f"embedding {step.total} passages…")
        elif isinstance(step, OcrProgress):
            if begins:
                self._say(f"OCR of {step.total} scanned pages (Ctrl-C stops; the next import resumes)…")
            elif step.page:
                left = f", about {_duration(step.seconds_left)} left" if step.seconds_left is not None else ""
                self._say(f"OCR       {step.done + 1}/{step.total} {step.file} page {step.page}{left}")
        elif step is None and p.stage is IntakeStage.OCR and p.ocr is not None:
            for message in p.ocr.failed:
                self._say(f"FAILED    {message}")
            self._say(f"OCR read {p.ocr.pages} pages in {p.ocr.seconds:.0f} s")

    def _say(self, line: str) -> None:
        print(line, file=self._info, flush=True)


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"
