"""The façade's semantic side: loading the model into a searcher, the vector index cache beside the
library, and the embedding job that gives new passages their vectors.

Kept apart from ``KnowledgeBase`` because it has its own lifecycle: nothing is loaded until
something needs vectors (a GUI loads in the background, keyword search works meanwhile), a search
never waits for a load another thread is doing, and the index cache is saved when embedding ends
and when the library closes (a read-only library never writes it).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from kbapp.embedding.handle import ModelHandle
from kbapp.search.searcher import Searcher
from kbapp.store import vectors
from kbapp.store.errors import classify

if TYPE_CHECKING:  # numpy and FAISS load with the vectors: a keyword search never needs them
    from kbapp.index.dense import DenseIndex

_NOT_SAVED = "Could not save the vector index"


class Vectors:
    def __init__(
        self,
        engine: Engine,
        data_dir: Path,
        model: ModelHandle,
        searcher: Searcher,
        *,
        read_only: bool,
        notices: list[str],
    ) -> None:
        """``searcher`` gets the semantic retriever once the model is loaded; ``notices`` hears of a
        vector index that had to be rebuilt or could not be saved."""
        self._engine = engine
        self._data_dir = data_dir
        self._model = model
        self._searcher = searcher
        self._read_only = read_only
        self._notices = notices
        self._lock = threading.Lock()
        self.dense: DenseIndex | None = None
        searcher.semantic_unavailable = model.problem or "the embedding model is still loading"

    def load(self) -> bool:
        with self._lock:
            return self._load()

    def load_unless_loading(self) -> None:
        """Load for a search, unless another thread is loading: the search then uses keywords.
        Without a usable pack the search says why (the pack is first read here, so the reason set
        at start, "still loading", would stand for a pack that is missing or damaged)."""
        if self._searcher.semantic is not None:
            return
        if not self._model.available:
            self._searcher.semantic_unavailable = self._model.problem or "no model pack"
        elif self._lock.acquire(blocking=False):
            try:
                self._load()
            finally:
                self._lock.release()

    def _load(self) -> bool:
        if self._searcher.semantic is not None:
            return True
        encoder = self._model.encoder()
        if encoder is None:
            self._searcher.semantic_unavailable = self._model.problem or "no model pack"
            return False
        from kbapp.index.dense import DenseIndex
        from kbapp.search.semantic import SemanticRetriever

        self._searcher.semantic_unavailable = "the vector index is being checked"
        dense = DenseIndex(self._engine, self._data_dir, encoder.pack_id, encoder.dimension)
        reason = dense.open()
        if reason is not None:
            self._notices.append(f"The vector index was rebuilt from the library ({reason}).")
        self.dense = dense
        self._searcher.semantic = SemanticRetriever(
            encoder, dense, self._engine, self._searcher.document_scripts
        )
        return True

    def save(self) -> None:
        if self.dense is None or self._read_only:
            return
        problem = self.dense.save()
        if problem is not None and not any(n.startswith(_NOT_SAVED) for n in self._notices):
            self._notices.append(f"{_NOT_SAVED}: {problem}; it is rebuilt at the next start.")

    def pending(self) -> int:
        pack = self._model.pack()
        if pack is None:
            return 0
        with self._engine.connect() as conn:
            return vectors.pending_count(conn, pack.manifest.id)

    def progress_by_document(self) -> dict[int, tuple[int, int]]:
        pack = self._model.pack()
        with self._engine.connect() as conn:
            return vectors.progress_by_document(conn, pack.manifest.id if pack else "")

    def embed(self, progress: Callable[[int, int], None] | None, cancel: Callable[[], bool] | None) -> int:
        if self._read_only or not self.load():
            return 0
        from kbapp.importing import embedding_job

        encoder = self._model.encoder()
        assert encoder is not None and self.dense is not None
        try:
            return embedding_job.embed_pending(self._engine, encoder, progress, cancel)
        except DBAPIError as exc:
            storage = classify(exc, self._data_dir)
            if storage is None:
                raise
            raise storage from exc
        finally:
            self.dense.sync()
            self.save()
