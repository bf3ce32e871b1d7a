"""The FAISS index of passage vectors, keyed by chunk id, saved with a manifest that proves what it holds.

SQLite stores every vector (float16, unit length); this index is a cache of them for fast search.
Both kinds keep float16 codes as well: float32 copies would double the memory and buy nothing,
since decoding float16 is exact — the scores are the stored vectors' cosines either way.

- ``flat`` (up to ``FLAT_LIMIT`` vectors): exact, every vector is scanned, ~0.1 ms per 1000
  vectors on one core (10 ms at 100k).
- ``ivf`` (beyond): the vectors are split into ``lists_for(count)`` k-means cells and a query
  scans only the ``NPROBE`` cells nearest to it: ~3 ms at 1M where an exact scan takes 120+, at
  the cost of exactness (recall@10 >= 0.95 on clustered data). Unlike a graph index it builds in
  under two minutes at 1M on 2 cores, and removes ids for real: nothing to mask or compact.

On disk the index is ``vectors.faiss`` plus ``vectors.json``: the manifest records the
library it belongs to, the vector generation it reflects, the pack, dimension, count, kind and
the file's checksum. ``load`` trusts the file only if all of that matches the database.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from kbapp.hashing import sha256_file
from kbapp.index.atomic import atomic_write, atomic_write_bytes

# FAISS is imported where it is used: keyword search and most commands never touch the vectors,
# and importing it is ~0.2 s of a one-shot command's start.
if TYPE_CHECKING:
    import faiss

# Exact while a scan stays ~15 ms (2 cores idle; up to twice that under load). Hybrid p95, query
# embedding (~13 ms) and keyword search included, measured 55 ms at 100k, 62 ms at 150k and 82 ms at
# 200k exact, 56 ms at 160k with IVF, against a 60 ms budget at 100k. See bench/bench_search.py.
FLAT_LIMIT = 150_000
# IVF cells per square root of the count. More cells keep recall up when the library has many small
# topics (with 1 per root, 4096 tight topics in 200k vectors lost a tenth of the top 10 even at 64
# probes), but training (~cells squared) and adding (~cells) slow down: 2 builds 1M in ~2 minutes.
LISTS_PER_ROOT = 2
TRAIN_PER_LIST = 40  # sample points per k-means centroid (FAISS warns below 39)
# Cells scanned per query. Clustered data (256 topics) reaches recall@10 1.0 with 8-12 probes at
# 200k and 1M; 64 also keeps 4096 tight topics near 0.95 (0.946 at 100k, 0.952 at 200k, 0.997 at
# 1M), and costs ~3 ms at 1M.
NPROBE = 64
INDEX_FILE = "vectors.faiss"
MANIFEST_FILE = "vectors.json"
FORMAT = 2  # 1: float32 flat / HNSW; 2: float16 flat / IVF
KINDS = ("flat", "ivf")


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


def _empty_index(dimension: int, kind: str, lists: int) -> faiss.Index:
    import faiss

    if kind == "flat":
        return faiss.index_factory(dimension, "IDMap2,SQfp16", faiss.METRIC_INNER_PRODUCT)
    index = faiss.index_factory(dimension, f"IVF{lists},SQfp16", faiss.METRIC_INNER_PRODUCT)
    index.by_residual = False  # codes of the vectors themselves: exact scores, no per-cell set-up
    return index


def _ids(ids: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(ids, dtype=np.int64)


class VectorIndex:
    def __init__(
        self, dimension: int, kind: str = "flat", lists: int = 0, raw: faiss.Index | None = None
    ) -> None:
        """An empty index, or one wrapping ``raw`` (as read from disk); ``lists`` is the IVF cell count
        (``lists_for`` the expected count), and an empty IVF index must be ``train``-ed before use."""
        if kind not in KINDS:
            raise ValueError(f"unknown vector index kind {kind!r}")
        self.dimension = dimension
        self.kind = kind
        self._lock = threading.RLock()
        self._index = raw if raw is not None else _empty_index(dimension, kind, lists)
        if kind == "ivf":
            self._index.nprobe = NPROBE  # also when loaded: the saved value is whatever the writer used

    @staticmethod
    def kind_for(count: int) -> str:
        return "flat" if count <= FLAT_LIMIT else "ivf"

    @staticmethod
    def lists_for(count: int) -> int:
        """IVF cells for ``count`` vectors: ~sqrt balances the cells to rank against the vectors to scan."""
        return max(1, round(LISTS_PER_ROOT * math.sqrt(count)))

    @classmethod
    def for_count(cls, dimension: int, count: int) -> VectorIndex:
        """The kind of index a library of ``count`` vectors gets (untrained if IVF)."""
        kind = cls.kind_for(count)
        return cls(dimension, kind, cls.lists_for(count) if kind == "ivf" else 0)

    @property
    def lists(self) -> int:
        return int(self._index.nlist) if self.kind == "ivf" else 0

    @property
    def training_size(self) -> int:
        """How many sample vectors ``train`` wants (0: no training needed)."""
        return 0 if self._index.is_trained else TRAIN_PER_LIST * self.lists

    def train(self, sample: np.ndarray) -> None:
        """Fit the IVF cells to a random sample of the library's vectors (at least ``lists`` of them)."""
        with self._lock:
            self._index.train(np.ascontiguousarray(sample, dtype=np.float32))

    def suits(self, count: int) -> bool:
        """Whether this index should still serve a library of ``count`` vectors, or be rebuilt.

        Flat serves up to ``FLAT_LIMIT``. IVF serves down to half of it, so a library hovering
        around the limit does not flip between kinds on every change, and up to the count at which
        ``lists_for`` would give more than twice its lists: about four times the count it was
        trained for, when each cell holds four times the planned vectors (each search scans four
        times as many) and the cells were fitted to a much smaller library — then it is retrained.
        """
        if self.kind == "flat":
            return count <= FLAT_LIMIT
        return count > FLAT_LIMIT // 2 and self.lists_for(count) <= 2 * self.lists

    @property
    def count(self) -> int:
        with self._lock:
            return int(self._index.ntotal)

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        if len(ids) == 0:
            return
        with self._lock:
            if not self._index.is_trained:
                raise RuntimeError("train the IVF index before adding vectors")
            self._index.add_with_ids(np.ascontiguousarray(vectors, dtype=np.float32), _ids(ids))

    def remove(self, ids: np.ndarray) -> None:
        with self._lock:
            self._index.remove_ids(_ids(ids))

    def ids(self) -> np.ndarray:
        """Chunk ids currently searchable, sorted."""
        import faiss

        with self._lock:
            stored = faiss.vector_to_array(self._index.id_map) if self.kind == "flat" else self._ivf_ids()
        return np.sort(stored.astype(np.int64))

    def _ivf_ids(self) -> np.ndarray:
        """The ids of every inverted list, walked list by list (~30 ms at 1M): a direct id map
        would make this free but cost memory and upkeep on every add and remove."""
        import faiss

        lists = self._index.invlists
        parts = [
            faiss.rev_swig_ptr(lists.get_ids(i), lists.list_size(i)).copy()
            for i in range(self.lists)
            if lists.list_size(i)
        ]
        return np.concatenate(parts) if parts else np.empty(0, np.int64)

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        """Up to ``k`` ``(chunk_id, cosine)`` pairs, best first; ``allowed`` restricts the ids searched."""
        q = np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32)
        with self._lock:
            total = int(self._index.ntotal)
            if total == 0:
                return []
            params = None if allowed is None else self._restricted(_ids(allowed), total)
            with _one_thread():
                scores, ids = self._index.search(q, min(total, k), params=params)
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]

    def _restricted(self, allowed: np.ndarray, total: int) -> faiss.SearchParameters:
        """Search parameters admitting only ``allowed`` ids.

        IVF scans more cells as the allowed share shrinks (``NPROBE / share``, up to all of them),
        so about as many allowed vectors are ranked as in an unrestricted search: a small set —
        a few documents, or the handful of passages whose similarity is asked for — is searched
        exactly, and the extra cells cost only a cheap membership test per vector.
        """
        import faiss

        selector = faiss.IDSelectorBatch(allowed)
        if self.kind == "flat":
            return faiss.SearchParameters(sel=selector)
        nprobe = min(self.lists, math.ceil(NPROBE * total / max(1, len(allowed))))
        return faiss.SearchParametersIVF(sel=selector, nprobe=nprobe)

    def save(self, folder: Path, state: IndexState) -> Manifest:
        """Write index then manifest, each atomically; a crash between the two leaves a manifest
        whose checksum no longer matches, which ``load`` rejects."""
        import faiss

        with self._lock:
            atomic_write(folder / INDEX_FILE, lambda tmp: faiss.write_index(self._index, str(tmp)))
            manifest = Manifest(
                FORMAT,
                state.library_id,
                state.generation,
                state.pack_id,
                self.dimension,
                int(self._index.ntotal),
                self.kind,
                sha256_file(folder / INDEX_FILE),
            )
        atomic_write_bytes(folder / MANIFEST_FILE, json.dumps(asdict(manifest), indent=1).encode())
        return manifest

    @classmethod
    def load(cls, folder: Path, expected: IndexState) -> VectorIndex:
        import faiss

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
        if sha256_file(index_path) != manifest.sha256:
            raise IndexMismatch("vector index file is damaged (checksum mismatch)")
        try:
            raw = faiss.read_index(str(index_path))
        except RuntimeError as err:
            raise IndexMismatch(f"vector index file cannot be read ({err})") from err
        if raw.ntotal != expected.count or raw.d != expected.dimension or not _is_kind(raw, manifest.kind):
            raise IndexMismatch("vector index contents disagree with its manifest")
        return cls(expected.dimension, manifest.kind, raw=raw)


@contextmanager
def _one_thread() -> Iterator[None]:
    """Run FAISS on this thread alone for one query. With its OpenMP team of two, a search waited
    for the second thread to be scheduled: while the machine was busy (an import embedding beside
    it, as in the window), a flat search of 600 passages took 15 ms instead of 0.2 ms, and of
    100,000 passages 24 ms instead of 4. One query gains little from a second core anyway: IVF
    splits its work by query, and a flat scan of 100,000 passages is ~4 ms on one. OpenMP keeps the
    setting per thread, so builds and training elsewhere keep every core."""
    import faiss

    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(threads)


def _is_kind(raw: faiss.Index, kind: str) -> bool:
    import faiss

    if kind == "flat":
        return isinstance(raw, faiss.IndexIDMap2) and isinstance(
            faiss.downcast_index(raw.index), faiss.IndexScalarQuantizer
        )
    return isinstance(raw, faiss.IndexIVFScalarQuantizer)


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
        raise IndexMismatch(
            f"vector index was saved in format {manifest.format!r}; this version of kbapp uses {FORMAT}"
        )
    if manifest.kind not in KINDS:
        raise IndexMismatch(f"vector index is of an unknown kind ({manifest.kind!r})")
    return manifest
