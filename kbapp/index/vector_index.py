"""The FAISS index of passage vectors, keyed by chunk id, saved with a manifest that proves what it holds.

SQLite stores every vector; this index is a cache of them for fast search. Up to
``FLAT_LIMIT`` vectors it is exact (inner product over all of them — a few milliseconds at
100k); beyond that an HNSW graph answers in about a millisecond at the cost of exactness.
HNSW cannot delete, so removed ids are masked at search time and the graph is rebuilt once
they pile up.

On disk the index is ``vectors.faiss`` plus ``vectors.json``: the manifest records the
library it belongs to, the vector generation it reflects, the pack, dimension, count and
the file's checksum. ``load`` trusts the file only if all of that matches the database.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import asdict, dataclass
from pathlib import Path

import faiss
import numpy as np

from kbapp.index.atomic import atomic_write, atomic_write_bytes

FLAT_LIMIT = 200_000
INDEX_FILE = "vectors.faiss"
MANIFEST_FILE = "vectors.json"
FORMAT = 1


@dataclass(frozen=True, slots=True)
class IndexState:
    """What the database says the index must reflect."""

    library_id: str
    generation: int
    pack_id: str
    dimension: int
    count: int


@dataclass(frozen=True, slots=True)
class Manifest:
    format: int
    library_id: str
    generation: int
    pack_id: str
    dimension: int
    count: int
    kind: str
    sha256: str


class IndexMismatch(Exception):
    """The saved index cannot be trusted; the message says why (for the log and the status line)."""


def _file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 22):
            h.update(block)
    return h.hexdigest()


class VectorIndex:
    def __init__(self, dimension: int, kind: str = "flat") -> None:
        self.dimension = dimension
        self.kind = kind
        self._lock = threading.RLock()
        self._masked: set[int] = set()
        if kind == "flat":
            self._index = faiss.IndexIDMap2(faiss.IndexFlatIP(dimension))
        else:
            hnsw = faiss.IndexHNSWFlat(dimension, 32, faiss.METRIC_INNER_PRODUCT)
            hnsw.hnsw.efConstruction = 64
            hnsw.hnsw.efSearch = 96
            self._index = faiss.IndexIDMap2(hnsw)

    @staticmethod
    def kind_for(count: int) -> str:
        return "flat" if count <= FLAT_LIMIT else "hnsw"

    @property
    def count(self) -> int:
        with self._lock:
            return int(self._index.ntotal) - len(self._masked)

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        if len(ids) == 0:
            return
        with self._lock:
            self._masked.difference_update(int(i) for i in ids)
            self._index.add_with_ids(
                np.ascontiguousarray(vectors, dtype=np.float32), np.ascontiguousarray(ids, dtype=np.int64)
            )

    def remove(self, ids: np.ndarray) -> None:
        with self._lock:
            if self.kind == "flat":
                self._index.remove_ids(np.ascontiguousarray(ids, dtype=np.int64))
            else:
                self._masked.update(int(i) for i in ids)

    @property
    def masked(self) -> int:
        return len(self._masked)

    @property
    def needs_compaction(self) -> bool:
        return len(self._masked) > 0.1 * max(1, int(self._index.ntotal))

    def ids(self) -> np.ndarray:
        """Chunk ids currently searchable, sorted."""
        with self._lock:
            stored = faiss.vector_to_array(self._index.id_map).astype(np.int64)
            if self._masked:
                stored = stored[~np.isin(stored, np.fromiter(self._masked, np.int64))]
            return np.sort(stored)

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        """Up to ``k`` ``(chunk_id, cosine)`` pairs, best first; ``allowed`` restricts the ids searched."""
        q = np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32)
        with self._lock:
            if self._index.ntotal == 0:
                return []
            fetch = min(int(self._index.ntotal), k + len(self._masked))
            params = None
            if allowed is not None:
                params = faiss.SearchParameters(
                    sel=faiss.IDSelectorBatch(np.ascontiguousarray(allowed, np.int64))
                )
            scores, ids = self._index.search(q, fetch, params=params)
        out = [
            (int(i), float(s))
            for i, s in zip(ids[0], scores[0], strict=True)
            if i >= 0 and i not in self._masked
        ]
        return out[:k]

    def save(self, folder: Path, state: IndexState) -> Manifest:
        """Write index then manifest, each atomically; a crash between the two leaves a manifest
        whose checksum no longer matches, which ``load`` rejects."""
        with self._lock:
            if self._masked:
                raise RuntimeError("compact the index before saving it")
            atomic_write(folder / INDEX_FILE, lambda tmp: faiss.write_index(self._index, str(tmp)))
            manifest = Manifest(
                FORMAT,
                state.library_id,
                state.generation,
                state.pack_id,
                self.dimension,
                int(self._index.ntotal),
                self.kind,
                _file_sha256(folder / INDEX_FILE),
            )
        atomic_write_bytes(folder / MANIFEST_FILE, json.dumps(asdict(manifest), indent=1).encode())
        return manifest

    @classmethod
    def load(cls, folder: Path, expected: IndexState) -> VectorIndex:
        manifest = read_manifest(folder)
        problems = [
            ("library", manifest.library_id, expected.library_id),
            ("generation", manifest.generation, expected.generation),
            ("model pack", manifest.pack_id, expected.pack_id),
            ("dimension", manifest.dimension, expected.dimension),
            ("vector count", manifest.count, expected.count),
        ]
        for what, found, wanted in problems:
            if found != wanted:
                raise IndexMismatch(f"vector index is for another {what} ({found!r}, library has {wanted!r})")
        index_path = folder / INDEX_FILE
        if not index_path.exists():
            raise IndexMismatch("vector index file is missing")
        if _file_sha256(index_path) != manifest.sha256:
            raise IndexMismatch("vector index file is damaged (checksum mismatch)")
        try:
            raw = faiss.read_index(str(index_path))
        except RuntimeError as err:
            raise IndexMismatch(f"vector index file cannot be read ({err})") from err
        if raw.ntotal != expected.count or raw.d != expected.dimension:
            raise IndexMismatch("vector index contents disagree with its manifest")
        index = cls(expected.dimension, manifest.kind)
        index._index = raw
        return index


def read_manifest(folder: Path) -> Manifest:
    path = folder / MANIFEST_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        manifest = Manifest(**data)
    except FileNotFoundError as err:
        raise IndexMismatch("vector index manifest is missing") from err
    except (OSError, ValueError, TypeError) as err:
        raise IndexMismatch(f"vector index manifest is unreadable ({err})") from err
    if manifest.format != FORMAT:
        raise IndexMismatch(f"vector index format {manifest.format} is not {FORMAT}")
    return manifest
