"""Everything a front end needs to know about the core besides the ``KnowledgeBase`` façade itself.

The GUI and the CLI import only this module and ``kbapp.library``: the records the façade hands
back (search results, import reports, documents), the states and outcomes they carry as enums, the
status of a search response (so nobody compares message strings), cancellation, progress events and
the constants a front end shows. It imports nothing but the standard library, because the window
imports it before it paints: loading SQLAlchemy, numpy, FAISS or onnxruntime there would delay the
first frame by a second (``tests/test_contract.py`` enforces both rules).
"""

from __future__ import annotations

import unicodedata
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, NamedTuple

# -- search -----------------------------------------------------------------------------------

MODES = ("hybrid", "lexical", "dense")
# Candidates per retriever (per language pool for dense), tuned with the blend on the three
# single-language development sets (bench/tune_fusion.py).
LEXICAL_DEPTH = 100
DENSE_DEPTH = 100
# Display columns of the window a result opens on (``SearchResult.focus``): what a results row
# shows after its lead-in. The core picks the window, the front ends cut their snippets around it.
FOCUS_COLUMNS = 200
NOTHING_FOUND = "Nothing in the library matches this query."
NOTHING_RELEVANT = "Nothing relevant found: no passage in the library is close to this question."


def display_columns(char: str) -> int:
    """A CJK (East Asian wide or full-width) character takes two columns on screen."""
    return 2 if unicodedata.east_asian_width(char) in "WF" else 1


def text_columns(text: str) -> int:
    """``display_columns`` summed over ``text`` (ASCII, every character one column, without a look-up)."""
    return len(text) if text.isascii() else sum(display_columns(c) for c in text)


def _is_word_char(char: str) -> bool:
    return char.isalnum() and display_columns(char) == 1


class ResponseStatus(StrEnum):
    """What a search response means, for front ends to word as they like."""

    OK = "ok"  # results, from every retriever the mode asked for
    KEYWORD_ONLY = "keyword_only"  # results, but semantic search was unavailable
    NOTHING_FOUND = "nothing_found"  # no passage matches a keyword
    NOTHING_RELEVANT = "nothing_relevant"  # passages came back, none close enough to the question


@dataclass(slots=True)
class SearchResult:
    rank: int
    citation: int
    doc_id: int
    path: str
    title: str
    page: int | None  # 1-based physical page; None for formats without pages
    page_end: int | None
    heading: str | None
    text: str
    highlights: list[tuple[int, int]]
    score: float
    why: dict[str, Any]
    focus: int = 0  # offset in ``text`` of the part that matches the question best: open there
    chunk_ids: list[int] = field(default_factory=list)
    # Where ``text`` comes from: text == prefix + pages[page_index].text[char_start:] … up to
    # pages[page_end_index].text[:char_end] (pages joined by "\n"); prefix is a repeated table header.
    page_index: int = 0
    page_end_index: int = 0
    prefix_len: int = 0
    char_start: int = 0
    char_end: int = 0

    def translated_terms(self) -> str:
        """ "密封 → seal; 更换 → Replace": which of the passage's words were found for which of the
        question's through the dictionary (``why["translated_terms"]``), so a reader of the other
        language sees why it matched; empty for a match in the question's own words."""
        found = self.why.get("translated_terms") or {}
        return "; ".join(f"{word} → {', '.join(words)}" for word, words in found.items())

    def snippet_span(self, lead: int, width: int) -> tuple[int, int]:
        """``[start, end)`` of ``text`` to show: about ``width`` display columns, starting about
        ``lead`` columns before ``focus``, moved off the middle of a Latin word (CJK text has no
        word boundaries to respect). Offsets are code points, so a surrogate pair is never cut."""
        text, anchor = self.text, self.focus
        start, budget = anchor, lead
        while start > 0 and budget > 0:
            start -= 1
            budget -= display_columns(text[start])
        if start > 0 and _is_word_char(text[start - 1]):
            while start < anchor and _is_word_char(text[start]):
                start += 1
        end, budget = start, width
        while end < len(text) and budget > 0:
            budget -= display_columns(text[end])
            end += 1
        if end < len(text) and _is_word_char(text[end]):
            back = end
            while back > anchor and _is_word_char(text[back - 1]):
                back -= 1
            end = back if back > anchor else end
        return start, end

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["highlights"] = [list(span) for span in self.highlights]
        data["doc_id"] = str(self.doc_id)
        return data


@dataclass(slots=True)
class SearchResponse:
    query: str
    mode: str
    results: list[SearchResult]
    status: ResponseStatus
    message: str | None = None  # e.g. why nothing came back, or that dense search fell back
    took_ms: float = 0.0
    # Words of the question that occur nowhere in the library, in either language: the reason a
    # question is refused as out of scope, worth showing to the user.
    unknown_words: tuple[str, ...] = ()
    # For an unknown word, the other language's words it was also looked for as (叶轮: turbine,
    # wheel): the library may say "impeller", a word the dictionary does not give.
    unknown_translations: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # What the search found but judged not relevant (``NOTHING_RELEVANT``), best first: the answer
    # stays "nothing relevant", and a user who doubts it can still look at the nearest passages.
    closest: list[SearchResult] = field(default_factory=list)


# -- library ----------------------------------------------------------------------------------


class DocumentStatus(StrEnum):
    """A document row: searchable, or recorded only to say why its file could not be read."""

    READY = "ready"
    FAILED = "failed"


class ModelState(StrEnum):
    """The embedding model, as a front end shows it: semantic search works once it is READY."""

    LOADING = "loading"
    READY = "ready"
    UNAVAILABLE = "unavailable"


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    id: int
    path: str
    content_hash: str
    title: str
    doc_type: str
    page_count: int | None
    size: int
    mtime: float
    imported_at: float
    status: DocumentStatus
    error: str | None
    warnings: str
    chunk_count: int
    copy_path: str | None


# -- import -----------------------------------------------------------------------------------


class Outcome(StrEnum):
    IMPORTED = "imported"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    DUPLICATE = "duplicate"
    FAILED = "failed"


@dataclass(slots=True)
class FileReport:
    path: str
    outcome: Outcome
    message: str
    doc_id: int | None = None
    chunks: int = 0
    pages: int | None = None
    warnings: list[str] = field(default_factory=list)
    kind: str | None = None  # why a file failed, an ``IngestErrorKind`` value when the reader said

    @property
    def ok(self) -> bool:
        return self.outcome is not Outcome.FAILED


@dataclass(slots=True)
class ImportProgress:
    """One progress event of an import: sent before each file, and with its report after it."""

    done: int
    total: int
    current: str
    report: FileReport | None = None


@dataclass(slots=True)
class ImportReport:
    files: list[FileReport] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)  # path, reason (folders, missing paths)
    skipped: int = 0
    cancelled: bool = False
    seconds: float = 0.0
    error: str | None = None  # the import stopped: disk full, read-only library (the message says which)

    @property
    def failed(self) -> list[FileReport]:
        return [f for f in self.files if f.outcome is Outcome.FAILED]

    @property
    def ok(self) -> bool:
        return not self.failed and not self.problems and self.error is None


class InterruptedImport(NamedTuple):
    """Files of imports a crash or kill interrupted: those finished and those still to do."""

    done: list[str]
    remaining: list[str]


# -- storage --------------------------------------------------------------------------------


class StorageProblem(StrEnum):
    DISK_FULL = "disk full"
    READ_ONLY = "read-only"
    DAMAGED = "damaged"
    BUSY = "busy"
    WRITE_FAILED = "write failed"


_EXPLAIN = {
    StorageProblem.DISK_FULL: "no space left on the drive that holds the library",
    StorageProblem.READ_ONLY: "the library folder cannot be written",
    StorageProblem.DAMAGED: "the library file is damaged",
    StorageProblem.BUSY: "another kbapp is writing to the library and did not finish in time",
    StorageProblem.WRITE_FAILED: "writing to the library failed",
}


class StorageError(Exception):
    """The library's storage refused a write (or is damaged); ``message`` starts with the problem.

    ``kbapp.store.errors.classify`` turns SQLite's and the OS's many ways of saying so into this."""

    def __init__(self, problem: StorageProblem, folder: Path, detail: str) -> None:
        self.problem = problem
        self.folder = folder
        self.detail = detail
        self.message = f"{problem}: {_EXPLAIN[problem]} ({folder}: {detail})"
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


class Cancelled(Exception):
    """``cancel()`` returned true; raised between batches, so no batch is left half-done."""


# -- watched folders and collections ----------------------------------------------------------


class Change(StrEnum):
    """What a sync did to the library for one file."""

    ADDED = "added"
    UPDATED = "updated"
    MOVED = "moved"
    REMOVED = "removed"
    FAILED = "failed"
    DUPLICATE = "duplicate"  # same content as another document: not imported twice


@dataclass(frozen=True, slots=True)
class SyncChange:
    path: str
    change: Change
    message: str
    doc_id: int | None = None


@dataclass(slots=True)
class SyncProgress:
    done: int
    total: int
    current: str
    change: SyncChange | None = None


@dataclass(slots=True)
class SyncReport:
    changes: list[SyncChange] = field(default_factory=list)
    unchanged: int = 0
    offline: list[tuple[str, str]] = field(default_factory=list)  # folder, reason
    problems: list[tuple[str, str]] = field(default_factory=list)  # path, reason
    cancelled: bool = False
    seconds: float = 0.0
    error: str | None = None  # the sync stopped (disk full, read-only library)

    def count(self, change: Change) -> int:
        return sum(c.change is change for c in self.changes)

    @property
    def ok(self) -> bool:
        return self.error is None and not self.problems and not self.count(Change.FAILED)

    def summary(self) -> str:
        parts = [f"{self.count(c)} {c}" for c in Change if self.count(c)]
        parts.append(f"{self.unchanged} unchanged")
        parts += [f"offline: {folder}" for folder, _ in self.offline]
        return ", ".join(parts) + f" in {self.seconds:.2f} s"


@dataclass(frozen=True, slots=True)
class Source:
    """A watched folder and what its last sync found."""

    id: int
    path: str
    collection: str | None  # the collection its documents go into
    device: int | None
    added_at: float
    state: str  # "new" (never synced) | "ok" | "offline"
    last_sync: float | None
    files: int
    failures: int
    message: str | None  # why it is offline, or the first problems met


@dataclass(frozen=True, slots=True)
class Collection:
    id: int
    name: str
    documents: int


class CollectionError(ValueError):
    """A collection operation that cannot be done as asked (unknown name, name taken, empty name)."""


class SourceError(ValueError):
    """A folder that cannot be watched as asked (not a folder, the library's own folder, not watched)."""


# -- OCR --------------------------------------------------------------------------------------


@dataclass(slots=True)
class OcrProgress:
    done: int
    total: int
    file: str  # the name of the file being read; empty once the last page is done
    page: int  # the 1-based page being read; 0 once the last page is done
    seconds_left: float | None  # None until the first page has been timed


@dataclass(slots=True)
class OcrReport:
    pages: int = 0
    failed: list[str] = field(default_factory=list)  # one message per page that could not be read
    cancelled: bool = False
    seconds: float = 0.0
    unavailable: str | None = None  # why no page was read (the OCR models are missing): they stay pending


@dataclass(frozen=True, slots=True)
class OcrState:
    """A document's scanned pages by OCR status (the library panel shows pending and failed)."""

    pending: int = 0
    done: int = 0
    failed: int = 0


# -- intake: resume, import, embed, OCR -------------------------------------------------------


class IntakeStage(StrEnum):
    """The stages of ``KnowledgeBase.intake``, in the order they run."""

    RESUME = "resume"  # the files an interrupted import did not get to
    IMPORT = "import"
    EMBED = "embed"  # a vector for every passage without one (again after OCR)
    OCR = "ocr"  # the scanned pages


@dataclass(frozen=True, slots=True)
class EmbedProgress:
    done: int
    total: int  # passages without a vector when embedding started


@dataclass(frozen=True, slots=True)
class IntakeProgress:
    """One progress event of an intake: the stage and that stage's own event.

    RESUME, EMBED and OCR start with an event of what is done and to do, before any work, and
    every stage ends with an event whose ``step`` is None. ``imports`` and ``ocr`` are the reports
    of the stages that have finished, carried by every later event: a front end that shows only
    the latest event (the GUI coalesces them) still learns how the import went while embedding runs.
    """

    stage: IntakeStage
    step: ImportProgress | EmbedProgress | OcrProgress | None
    imports: tuple[ImportReport, ...] = ()
    ocr: OcrReport | None = None


@dataclass(slots=True)
class IntakeReport:
    imports: list[ImportReport] = field(default_factory=list)  # the resumed import, then the new one
    # None: no passage needed a vector, or embedding was not run; False: it was cancelled.
    embedded: bool | None = None
    pending: int = 0  # passages without a vector at the end
    ocr: OcrReport | None = None  # None: no scanned page was pending, or OCR was not run
    # The imports were done when ``defer()`` said to leave embedding and OCR to a later intake.
    deferred: bool = False

    @property
    def stopped(self) -> str | None:
        """Why an import stopped before its end (disk full, read-only library), if one did."""
        return next((r.error for r in self.imports if r.error), None)

    @property
    def cancelled(self) -> bool:
        ocr_cancelled = self.ocr is not None and self.ocr.cancelled
        return any(r.cancelled for r in self.imports) or self.embedded is False or ocr_cancelled

    @property
    def ok(self) -> bool:
        """Every file imported and every scanned page read."""
        ocr_ok = self.ocr is None or not (self.ocr.failed or self.ocr.unavailable)
        return all(r.ok for r in self.imports) and ocr_ok
