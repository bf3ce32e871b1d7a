"""Keeping the FAISS cache in step with the vectors SQLite holds for the active model pack.

The database is the truth; this module only ever copies from it. ``sync`` compares the
database's vector generation with the one the in-memory index reflects and, when they differ,
applies the difference (ids added and removed) read in one snapshot — so whatever wrote the
vectors (an embedding run, a re-import, a removal, another process), the index catches up
before the next dense search. On open the saved index is used only if its manifest matches
the database exactly; otherwise it is rebuilt from SQLite, without re-embedding anything.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from sqlalchemy.engine import Connection, Engine

from kbapp.index.vector_index import IndexMismatch, IndexState, VectorIndex
from kbapp.store import vectors

log = logging.getLogger(__name__)

READ_BATCH = 4096
TRAIN_SEED = 0
VECTOR_DTYPE = np.float16  # stored form: half the size, cosine error ~1e-4, and the index is built from it


def encode_vector(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=VECTOR_DTYPE).tobytes()


def decode_vectors(blobs: list[bytes], dimension: int) -> np.ndarray:
    return np.frombuffer(b"".join(blobs), dtype=VECTOR_DTYPE).reshape(-1, dimension).astype(np.float32)


def database_state(conn: Connection, pack_id: str, dimension: int) -> IndexState:
    count = vectors.count(conn, pack_id)
    return IndexState(
        vectors.meta_value(conn, "library_id"),
        int(vectors.meta_value(conn, "vector_generation")),
        pack_id,
        dimension,
        count,
    )


class DenseIndex:
    def __init__(self, engine: Engine, folder: Path, pack_id: str, dimension: int) -> None:
        self._engine = engine
        self._folder = folder
        self.pack_id = pack_id
        self.dimension = dimension
        self._index = VectorIndex(dimension)
        self._generation = -1  # the database generation the in-memory index reflects
        self._saved_generation = -2
        self._lock = threading.RLock()  # held through a rebuild, which syncs and saves

    def open(self) -> str | None:
        """Load the saved index, or rebuild it; returns why it was rebuilt (None if it was fine)."""
        with self._engine.connect() as conn:
            state = database_state(conn, self.pack_id, self.dimension)
        try:
            index = VectorIndex.load(self._folder, state)
        except IndexMismatch as err:
            self.rebuild()
            if state.count == 0:  # a new library: nothing was lost, nothing to report
                return None
            reason = str(err)
            log.warning("rebuilt the vector index: %s", reason)
            return reason
        with self._lock:
            self._index, self._generation, self._saved_generation = index, state.generation, state.generation
        return None

    def rebuild(self) -> str | None:
        """Rebuild from the vectors in SQLite (nothing is re-embedded); returns ``save``'s problem.

        The kind and size of index follow the vector count; an IVF index is first trained on a
        random sample read from SQLite. Searches wait meanwhile rather than start a rebuild too.
        """
        with self._lock:
            with self._engine.connect() as conn:
                count = database_state(conn, self.pack_id, self.dimension).count
                index = VectorIndex.for_count(self.dimension, count)
                if index.training_size:
                    index.train(self._training_sample(conn, index.training_size))
            self._index, self._generation = index, -1
            self.sync()
            return self.save()

    def _vector_ids(self, conn: Connection) -> np.ndarray:
        return np.array(vectors.chunk_ids(conn, self.pack_id), dtype=np.int64)

    def _read_vectors(self, conn: Connection, ids: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """``(chunk ids, vectors)`` of the given chunks, a batch at a time."""
        for start in range(0, len(ids), READ_BATCH):
            part = ids[start : start + READ_BATCH].tolist()
            rows = vectors.by_chunk(conn, part)
            yield (
                np.array([r[0] for r in rows], np.int64),
                decode_vectors([r[1] for r in rows], self.dimension),
            )

    def _training_sample(self, conn: Connection, size: int) -> np.ndarray:
        """A random sample of the stored vectors, seeded: the same library always gets the same index."""
        ids = self._vector_ids(conn)
        picked = np.sort(np.random.default_rng(TRAIN_SEED).choice(ids, min(size, len(ids)), replace=False))
        return np.concatenate([batch for _, batch in self._read_vectors(conn, picked)])

    def sync(self) -> bool:
        """Bring the index up to the database's current vectors; True if anything changed.

        When the count has left the range the index suits (``VectorIndex.suits``: flat grown
        past its limit, IVF far past what it was trained for) the index is rebuilt instead.
        """
        with self._lock:
            with self._engine.connect() as conn, conn.begin():
                generation = int(vectors.meta_value(conn, "vector_generation"))
                if generation == self._generation:
                    return False
                db_ids = self._vector_ids(conn)
                refit = not self._index.suits(len(db_ids))
                if not refit:
                    self._apply(conn, db_ids)
                    self._generation = generation
            if refit:
                self.rebuild()
        return True

    def _apply(self, conn: Connection, db_ids: np.ndarray) -> None:
        """Remove the ids the database no longer has, add those the index lacks."""
        held = self._index.ids()
        gone = np.setdiff1d(held, db_ids, assume_unique=True)
        if len(gone):
            self._index.remove(gone)
        for ids, batch in self._read_vectors(conn, np.setdiff1d(db_ids, held, assume_unique=True)):
            self._index.add(ids, batch)

    def save(self) -> str | None:
        """Persist the index if it reflects a generation not yet on disk (after ``sync``).

        Returns why it could not be saved (disk full, read-only): the index is a cache, so that
        costs a rebuild at the next start, not an error.
        """
        with self._lock:
            if self._generation == self._saved_generation or self._generation < 0:
                return None
            with self._engine.connect() as conn:
                library_id = vectors.meta_value(conn, "library_id")
            state = IndexState(library_id, self._generation, self.pack_id, self.dimension, self._index.count)
            try:
                self._index.save(self._folder, state)
            except OSError as err:
                log.warning("could not save the vector index: %s", err)
                return f"could not save the vector index ({err.strerror or err})"
            self._saved_generation = self._generation
        return None

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        self.sync()
        return self._index.search(query, k, allowed)

    def similarities(self, query: np.ndarray, chunk_ids: list[int]) -> dict[int, float]:
        """Cosine of ``query`` with each given chunk's stored vector (chunks without one for this pack
        are left out). Read from SQLite: a handful of rows by key costs far less than a filtered scan
        of the index, and is exact whatever the index kind."""
        if not chunk_ids:
            return {}
        with self._engine.connect() as conn:
            rows = vectors.for_pack(conn, self.pack_id, chunk_ids)
        if not rows:
            return {}
        scores = decode_vectors([r[1] for r in rows], self.dimension) @ np.asarray(query, np.float32).ravel()
        return {int(r[0]): float(s) for r, s in zip(rows, scores, strict=True)}

    def vectors(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(chunk ids, vectors)`` of the given chunks as stored (those without a vector are left out)."""
        with self._engine.connect() as conn:
            batches = list(self._read_vectors(conn, np.asarray(ids, np.int64)))
        if not batches:
            return np.empty(0, np.int64), np.empty((0, self.dimension), np.float32)
        return np.concatenate([b[0] for b in batches]), np.concatenate([b[1] for b in batches])

    @property
    def generation(self) -> int:
        """The database vector generation the index reflects (-1 before the first sync)."""
        return self._generation

    @property
    def count(self) -> int:
        return self._index.count

    @property
    def kind(self) -> str:
        return self._index.kind
