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

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import cast

from kbapp.chunking import ChunkingConfig
from kbapp.contract import (
    DocumentRecord,
    ImportProgress,
    ImportReport,
    IntakeProgress,
    IntakeReport,
    InterruptedImport,
    OcrProgress,
    OcrReport,
    OcrState,
    SearchResponse,
)
from kbapp.embedding import default_pack_dir
from kbapp.embedding.handle import ModelHandle
from kbapp.grouping.collections import Collections
from kbapp.importing.copies import CopyStore
from kbapp.importing.jobs import ImportJobs
from kbapp.importing.limits import ParseLimits
from kbapp.importing.ocr_stage import OcrStage
from kbapp.importing.readers import Readers
from kbapp.importing.reading import Parser
from kbapp.importing.removal import remove_documents
from kbapp.index.keyword_index import KeywordIndex
from kbapp.ingest import SUPPORTED_SUFFIXES, parse_file
from kbapp.library.intake import run_intake
from kbapp.library.vectors import Vectors
from kbapp.maintenance.recovery import Damage, open_folder, open_library, set_aside
from kbapp.search.searcher import Searcher
from kbapp.sources.watched import WatchedFolders
from kbapp.store import repository
from kbapp.store.checks import CheckReport

__all__ = ["DB_NAME", "KnowledgeBase", "ParseLimits"]

DB_NAME = "library.sqlite3"
_DEFAULT = object()


class KnowledgeBase:
    supported_suffixes = SUPPORTED_SUFFIXES  # what folder imports pick up, and file dialogs offer

    def __init__(
        self,
        data_dir: Path,
        *,
        pack_dir: Path | object | None = _DEFAULT,
        parse: Parser = parse_file,
        chunking: ChunkingConfig | None = None,
        autoload_model: bool = True,
        model_process: bool = False,
        keep_copies: bool = True,
        parse_limits: ParseLimits | None = ParseLimits(),  # noqa: B008 - immutable
    ) -> None:
        """Open (creating if needed) the library in ``data_dir``.

        ``pack_dir`` is the model pack to embed with (default: the bundled default pack;
        None: keyword search only). The model is loaded by ``load_model``, or on the first search
        that needs it when ``autoload_model`` is set (a GUI clears it and loads in the background,
        so a search never waits for the model). ``model_process`` runs the model in a child process
        (a window: loading it there neither freezes nor grows the window's process).

        ``keep_copies`` keeps a copy of every imported file in ``data_dir/files`` so the library can
        be rebuilt when the originals are gone. ``parse_limits`` bounds reading one file (in a worker
        process; ``parse`` must then be a module-level function); None reads in this process.

        A damaged library file is moved aside and a rebuild from the kept copies is queued as an
        interrupted import (``recovering``); ``notices`` says what happened.
        """
        self.model = ModelHandle(
            default_pack_dir() if pack_dir is _DEFAULT else cast("Path | None", pack_dir),
            own_process=model_process,
        )
        # Raises for a parse the worker cannot be given, before anything is made.
        self._readers = Readers(parse, chunking or ChunkingConfig(), parse_limits, self.model)
        self.data_dir = Path(data_dir)
        self.notices: list[str] = []
        self.read_only = open_folder(self.data_dir, self.notices)
        self.copies = CopyStore(self.data_dir)
        self.keep_copies = keep_copies
        self._autoload = autoload_model
        self.collections = Collections(lambda: self.engine)
        self.sources = WatchedFolders.of(self)
        self._open()

    def _open(self, damage: Damage | None = None) -> None:
        """Open the library file and what works on it. A damaged file (found now, or ``damage``, found
        by ``verify``) has been moved aside: its rebuild is queued as an interrupted import."""
        path = self.data_dir / DB_NAME
        engine, notice = open_library(path, self.copies, read_only=self.read_only, damage=damage)
        self.engine = engine
        self._imports = ImportJobs(
            engine,
            self.data_dir,
            self.copies,
            keep_copies=self.keep_copies,
            read_only=self.read_only,
            reader=self._readers.files,
            notices=self.notices,
        )
        self._ocr = OcrStage(engine, self.data_dir, self.copies, self._readers.pages)
        self._keywords = KeywordIndex(engine, self.data_dir, read_only=self.read_only)
        self._searcher = Searcher(engine, self._keywords)
        self._vectors = Vectors(
            engine, self.data_dir, self.model, self._searcher, read_only=self.read_only, notices=self.notices
        )
        if notice is not None:
            self.notices.append(notice)

    # -- the model and the vector index ---------------------------------------------------------

    def load_model(self) -> bool:
        """Load the encoder and open (or rebuild) the vector index; False if there is no usable pack.

        The chunking tokenizer is loaded too (unless the model has its own process): that holds the
        GIL for most of a second, which would otherwise happen at the start of the first import."""
        loaded = self._vectors.load()
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

    def pending_embeddings(self) -> int:
        return self._vectors.pending()

    def embed_pending(
        self,
        progress: Callable[[int, int], None] | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> int:
        """Embed every passage that has no vector for the active pack, then save the vector index.

        Raises ``kbapp.contract.Cancelled`` if cancelled and ``StorageError`` if the library cannot
        be written; what was embedded so far is kept (a later run resumes from there).
        """
        return self._vectors.embed(progress, cancel)

    def close(self) -> None:
        self._vectors.save()
        self._readers.stop()
        self.model.close()
        self.copies.close()
        self.engine.dispose()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- OCR of scanned pages -------------------------------------------------------------------

    def ocr_states(self) -> dict[int, OcrState]:
        """Per document with scanned pages: how many are pending, done and failed."""
        return self._ocr.states()

    def ocr_lines(self, doc_id: int) -> dict[int, str]:
        """Page number -> OCR'd lines with boxes (JSON, read by ``kbapp.gui.preview.scan_marks.word_boxes``):
        what the preview marks matched words on a scan with."""
        return self._ocr.lines(doc_id)

    def pending_ocr(self) -> int:
        return self._ocr.pending()

    def run_ocr(
        self,
        progress: Callable[[OcrProgress], None] | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> OcrReport:
        """OCR every pending scanned page in the bounded worker, committing page by page; a kill or
        a cancel leaves the rest pending for the next run."""
        return OcrReport() if self.read_only else self._ocr.run(progress, cancel)

    # -- importing ----------------------------------------------------------------------------

    def import_paths(
        self,
        paths: Iterable[Path | str],
        progress: Callable[[ImportProgress], None] | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> ImportReport:
        return self._imports.import_paths(paths, progress, cancel)

    def intake(
        self,
        paths: Iterable[Path | str] | None = None,
        *,
        resume: bool = False,
        embed: bool = True,
        ocr: bool = False,
        progress: Callable[[IntakeProgress], None] | None = None,
        cancel: Callable[[], bool] | None = None,
        defer: Callable[[], bool] | None = None,
    ) -> IntakeReport:
        """Finish an interrupted import first (``resume``), import ``paths`` (None: none), embed what is
        pending (``embed``), then OCR the scanned pages and embed what they gave (``ocr``): each stage
        only if the ones before finished. ``defer()`` is asked once the imports are done: True leaves
        the rest to a later intake. See ``kbapp.library.intake``."""
        report = run_intake(
            self, paths, resume=resume, embed=embed, ocr=ocr, progress=progress, cancel=cancel, defer=defer
        )
        self.refresh_keyword_index(cancel)
        return report

    def refresh_keyword_index(self, cancel: Callable[[], bool] | None = None) -> None:
        """Bring the keyword postings copy that speeds up ranking in a large library up to date
        (``kbapp.index.keyword_index``); a copy that cannot be saved is a notice, not an error."""
        problem = self._keywords.refresh(cancel)
        if problem is not None:
            self.notices.append(problem)

    def interrupted_import(self) -> InterruptedImport | None:
        """Files of imports that a crash or kill interrupted, done and remaining; None if there are none."""
        return self._imports.interrupted()

    @property
    def recovering(self) -> bool:
        """True while a rebuild of a damaged library waits to be run (by ``resume_import``)."""
        return self._imports.recovering

    def resume_import(
        self,
        progress: Callable[[ImportProgress], None] | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> ImportReport:
        """Import the remaining files of interrupted imports (and of a pending rebuild)."""
        return self._imports.resume(progress, cancel)

    def discard_interrupted_import(self) -> None:
        """Forget interrupted imports (what they finished stays in the library)."""
        self._imports.discard()

    # -- reading the library --------------------------------------------------------------------

    def search(
        self, query: str, k: int = 10, mode: str = "hybrid", document_ids: Sequence[int] | None = None
    ) -> SearchResponse:
        if mode != "lexical" and self._autoload:
            self._vectors.load_unless_loading()
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
        return self._vectors.progress_by_document()

    def remove(self, doc_ids: Iterable[int]) -> int:
        """Remove documents (and their kept copies, unless another document shares them)."""
        removed = self._remove_documents(doc_ids)
        self.refresh_keyword_index()
        return removed

    def _remove_documents(self, doc_ids: Iterable[int]) -> int:
        """``remove`` without the refresh, for a folder sync that refreshes once when it ends."""
        self._imports.writable()
        return remove_documents(self.engine, self.copies, self.data_dir, doc_ids)

    # -- checking and repairing -----------------------------------------------------------------

    def verify(self, repair: bool = False) -> CheckReport:
        """Full checks of the library and what beside it depends on it; ``repair`` fixes what can be
        fixed (rebuilds derived data, re-imports what cannot be fixed in place, rebuilds a damaged
        library from its sources) and returns the checks after repairing, with what was done."""
        from kbapp.maintenance import checkup  # reads the vector index (numpy): loaded when asked for

        def checked() -> checkup.Library:
            return checkup.Library(
                self.engine,
                self.data_dir,
                self.copies,
                self.keep_copies,
                self.model,
                self._imports,
                self._vectors.dense,
            )

        report = checkup.verify_library(checked, repair=repair, rebuild=self._rebuild_damaged)
        if repair:  # a repair may have rewritten the keyword rows: the copy is rebuilt for them
            self.refresh_keyword_index()
        return report

    def _rebuild_damaged(self, problems: str) -> list[str]:
        """The library file is damaged: keep it aside, start afresh and import everything again."""
        damage = set_aside(self.engine, self.data_dir / DB_NAME, problems)
        self._open(damage)
        rebuilt = self.resume_import()
        moved = f"moved the damaged library to {damage.kept_as.name}"
        return [moved, self.notices[-1], *([rebuilt.error] if rebuilt.error else [])]
