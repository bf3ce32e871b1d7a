"""``KnowledgeBase``: the one object the CLI, the GUI and the tests drive.

It owns a data directory (the SQLite library plus caches derived from it) and exposes the
few operations a user has: import, search, list, remove, verify. Nothing here knows about Qt;
long operations take a progress callback and a cancel predicate so any front end can drive them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kbapp.chunking import ChunkingConfig
from kbapp.embedding import default_pack_dir
from kbapp.index.dense import DenseIndex
from kbapp.ingest import parse_file
from kbapp.library import embedding_job
from kbapp.library.discovery import discover
from kbapp.library.importer import FileReport, Outcome, Parser, import_file
from kbapp.library.model import ModelHandle
from kbapp.search.results import SearchResponse
from kbapp.search.searcher import Searcher
from kbapp.search.semantic import SemanticRetriever
from kbapp.store import repository
from kbapp.store.checks import CheckReport, check_database
from kbapp.store.database import open_engine, write_transaction

DB_NAME = "library.sqlite3"
_DEFAULT = object()


@dataclass(slots=True)
class ImportProgress:
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

    @property
    def failed(self) -> list[FileReport]:
        return [f for f in self.files if f.outcome is Outcome.FAILED]

    @property
    def ok(self) -> bool:
        return not self.failed and not self.problems


class KnowledgeBase:
    def __init__(
        self,
        data_dir: Path,
        *,
        pack_dir: Path | object | None = _DEFAULT,
        parse: Parser = parse_file,
        chunking: ChunkingConfig | None = None,
        autoload_model: bool = True,
    ) -> None:
        """Open (creating if needed) the library in ``data_dir``.

        ``pack_dir`` is the model pack to embed with (default: the bundled default pack;
        None: keyword search only). The model is loaded by ``load_model``, or on the first search
        that needs it when ``autoload_model`` is set (a GUI clears it and loads in the background,
        so a search never waits for the model).
        """
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.engine = open_engine(self.data_dir / DB_NAME)
        self.model = ModelHandle(default_pack_dir() if pack_dir is _DEFAULT else pack_dir)  # type: ignore[arg-type]
        self._parse = parse
        self._chunking = chunking or ChunkingConfig()
        self._searcher = Searcher(self.engine)
        self._searcher.semantic_unavailable = self.model.problem or "the embedding model is still loading"
        self._dense: DenseIndex | None = None
        self._autoload = autoload_model
        self._model_lock = threading.Lock()
        self.notices: list[str] = []

    def load_model(self) -> bool:
        """Load the encoder and open (or rebuild) the vector index; False if there is no usable pack."""
        with self._model_lock:
            return self._load_model()

    def _load_model(self) -> bool:
        if self._searcher.semantic is not None:
            return True
        encoder = self.model.encoder()
        if encoder is None:
            self._searcher.semantic_unavailable = self.model.problem or "no model pack"
            return False
        dense = DenseIndex(self.engine, self.data_dir, encoder.pack_id, encoder.dimension)
        reason = dense.open()
        if reason is not None:
            self.notices.append(f"The vector index was rebuilt from the library ({reason}).")
        self._dense = dense
        self._searcher.semantic = SemanticRetriever(encoder, dense)
        return True

    def pending_embeddings(self) -> int:
        pack = self.model.pack()
        return embedding_job.pending_count(self.engine, pack.manifest.id) if pack else 0

    def embed_pending(
        self,
        progress: Callable[[int, int], None] | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> int:
        """Embed every passage that has no vector for the active pack, then save the vector index.

        Raises ``kbapp.embedding.Cancelled`` if cancelled; what was embedded so far is kept.
        """
        if not self.load_model():
            return 0
        encoder = self.model.encoder()
        assert encoder is not None and self._dense is not None
        try:
            return embedding_job.embed_pending(self.engine, encoder, progress, cancel)
        finally:
            self._dense.sync()
            self._dense.save()

    def close(self) -> None:
        if self._dense is not None:
            self._dense.save()
        self.engine.dispose()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def import_paths(
        self,
        paths: Iterable[Path | str],
        progress: Callable[[ImportProgress], None] | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> ImportReport:
        started = time.perf_counter()
        found = discover([Path(p) for p in paths])
        report = ImportReport(problems=[(str(p), why) for p, why in found.problems], skipped=found.skipped)
        total = len(found.files)
        for i, path in enumerate(found.files):
            if cancel is not None and cancel():
                report.cancelled = True
                break
            if progress is not None:
                progress(ImportProgress(i, total, str(path)))
            file_report = import_file(
                self.engine,
                path,
                parse=self._parse,
                count_tokens=self.model.token_counter(),
                chunking=self._chunking,
            )
            report.files.append(file_report)
            if progress is not None:
                progress(ImportProgress(i + 1, total, str(path), file_report))
        report.seconds = time.perf_counter() - started
        return report

    def search(
        self, query: str, k: int = 10, mode: str = "hybrid", document_ids: Sequence[int] | None = None
    ) -> SearchResponse:
        if mode != "lexical" and self._autoload and self._searcher.semantic is None and self.model.available:
            self.load_model()
        return self._searcher.search(query, k, mode, document_ids)

    def documents(self) -> list[repository.DocumentRecord]:
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
        removed = 0
        with write_transaction(self.engine) as conn:
            for doc_id in doc_ids:
                removed += repository.delete_document(conn, doc_id)
        return removed

    def verify(self) -> CheckReport:
        with self.engine.connect() as conn:
            return check_database(conn, full=True)
