"""Passages grouped by the language of their document, and how a question relates to each group.

The embedding model scores text in the question's own language higher across the board: a
Chinese question sits closer to any Chinese sentence than to the English passage that answers
it. So a library is split into pools by document script (a Chinese manual's English code
samples stay with the Chinese manual), each pool is searched on its own, and a passage's
similarity is read against the question's similarity to a random sample of its own pool:
``centred`` (minus the pool's mean) for ranking, ``standout`` (in pool standard deviations)
for deciding whether anything is relevant at all. In a one-language library this changes
nothing in the ranking: every passage is shifted by the same amount.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
from sqlalchemy.engine import Engine

from kbapp.index.dense import DenseIndex
from kbapp.search.scripts import DocumentScripts
from kbapp.store.samples import embedded_passages
from kbapp.text.script import Script

SAMPLE_SIZE = 1024  # vectors per pool for a question's mean and spread: ±0.002 on the mean
SAMPLE_SEED = 0


@dataclass(frozen=True, slots=True)
class PoolStats:
    """A question's cosine with a pool's passages: mean and standard deviation over the sample."""

    mean: float
    spread: float
    size: int  # passages in the pool

    def centred(self, cosine: float) -> float:
        return cosine - self.mean

    def standout(self, cosine: float) -> float:
        return (cosine - self.mean) / max(self.spread, 1e-6)


class LanguagePools:
    """The pools of one vector generation; rebuilt by ``current`` when the library changes."""

    def __init__(self, engine: Engine, index: DenseIndex, scripts: DocumentScripts) -> None:
        self._engine = engine
        self._index = index
        self._document_scripts = scripts
        self._lock = threading.Lock()
        self._generation = -2
        self._ids = np.empty(0, np.int64)  # embedded chunk ids, sorted
        self._codes = np.empty(0, np.int8)  # their pool, as an index into ``scripts``
        self.scripts: list[Script] = []
        self.members: dict[Script, np.ndarray] = {}
        self._samples: dict[Script, np.ndarray] = {}
        self._baselines: dict[Script, float] = {}

    def current(self) -> LanguagePools:
        with self._lock:
            if self._index.generation != self._generation:
                self._build()
        return self

    def _build(self) -> None:
        generation = self._index.generation
        with self._engine.connect() as conn:
            ids, docs = embedded_passages(conn, self._index.pack_id)
            script = self._document_scripts.of(conn)
        self.scripts = sorted({script.get(int(d), Script.LATIN) for d in np.unique(docs)})
        code_of = {s: i for i, s in enumerate(self.scripts)}
        self._ids = ids
        self._codes = np.fromiter(
            (code_of[script.get(int(d), Script.LATIN)] for d in docs), np.int8, len(docs)
        )
        rng = np.random.default_rng(SAMPLE_SEED)
        self.members, self._samples, self._baselines = {}, {}, {}
        for s, code in code_of.items():
            members = ids[self._codes == code]
            self.members[s] = members
            picked = np.sort(rng.choice(members, min(SAMPLE_SIZE, len(members)), replace=False))
            self._samples[s] = self._index.vectors(picked)[1]
        self._generation = generation

    def script_of_chunk(self, chunk_id: int) -> Script | None:
        at = int(np.searchsorted(self._ids, chunk_id))
        if at < len(self._ids) and self._ids[at] == chunk_id:
            return self.scripts[int(self._codes[at])]
        return None

    def baselines(self, reference: np.ndarray) -> dict[Script, float]:
        """Per pool, the mean product of its sampled passages with ``reference`` (the mean of some
        unit vectors): what a passage's own product with it is read against (``hubness``)."""
        with self._lock:
            if not self._baselines:
                self._baselines = {s: float((v @ reference).mean()) for s, v in self._samples.items()}
            return self._baselines

    def stats(self, vector: np.ndarray) -> dict[Script, PoolStats]:
        query = np.asarray(vector, np.float32).ravel()
        out = {}
        for s, sample in self._samples.items():
            sims = sample @ query
            out[s] = PoolStats(float(sims.mean()), float(sims.std()), len(self.members[s]))
        return out
