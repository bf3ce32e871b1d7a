"""Embed queries and passages with a model pack on the CPU (onnxruntime + tokenizers).

Passages are batched by similar length so padding stays small, windows of one long text are
merged back, and results come out in input order, L2-normalised, ready for inner-product search.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import numpy as np
import onnxruntime as ort
import psutil

from kbapp.contract import Cancelled
from kbapp.embedding.pack import ModelPack
from kbapp.embedding.tokens import TextTokenizer, Windower, load_tokenizer

SPIN_MICROSECONDS = 1000  # how long an idle worker spins before it sleeps (not fitted: one millisecond)


def physical_cores() -> int:
    """Hyper-threads share the matmul units, so extra logical threads only add contention."""
    return psutil.cpu_count(logical=False) or os.cpu_count() or 1


def _session(pack: ModelPack, threads: int | None) -> ort.InferenceSession:
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads or physical_cores()
    opts.inter_op_num_threads = 1
    # Workers that sleep between the model's operators must be woken for each of them, a few hundred
    # times per question: spinning for a millisecond after each keeps them awake within one run
    # (question p50 17.5 → 13.0 ms) and burns at most a millisecond of a core once it is done, not
    # the 45 ms ORT's default spin takes, which would starve a desktop app's UI thread between batches.
    opts.add_session_config_entry("session.intra_op.allow_spinning", "1")
    opts.add_session_config_entry("session.intra_op.spin_duration_us", str(SPIN_MICROSECONDS))
    return ort.InferenceSession(str(pack.model_path), opts, providers=["CPUExecutionProvider"])


class Encoder:
    def __init__(
        self, pack: ModelPack, *, threads: int | None = None, tokenizer: TextTokenizer | None = None
    ) -> None:
        """Load the pack's model; ``threads`` defaults to the number of physical cores.

        ``tokenizer`` is the pack's tokenizer if the caller already loaded it (``load_tokenizer``
        of ``pack.tokenizer_path``): loading the vocabulary holds the GIL (0.1-0.3 s, see
        ``covered``), so an app should do it once.
        """
        m = pack.manifest
        self._manifest = m
        self._pad = m.pad_id
        if tokenizer is None:
            tokenizer = load_tokenizer(pack.tokenizer_path)
        self._windower = Windower(tokenizer, max_tokens=m.max_tokens, bos=m.bos_id, eos=m.eos_id)
        self._session = _session(pack, threads)

    @property
    def pack_id(self) -> str:
        return self._manifest.id

    @property
    def dimension(self) -> int:
        return self._manifest.dimension

    @property
    def max_passage_tokens(self) -> int:
        """Largest ``count_tokens`` a passage may have and still be embedded in one window."""
        return self._windower.body_budget(self._manifest.passage_prefix)

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` alone, *without* the passage prefix or ``<s>``/``</s>``.

        Counts of consecutive pieces add up (give or take one at a join), which is what a
        chunker filling a budget needs; compare against ``max_passage_tokens``.
        """
        return self._windower.count(text)

    def word_boundaries(self, text: str) -> frozenset[int]:
        """Offsets in ``text`` where the model's tokenizer splits it. Its vocabulary was learnt
        from web text in a hundred languages, so for Chinese, which has no spaces, these are
        word boundaries that a dictionary lacking a word (最大) cannot find by itself."""
        return self._windower.boundaries(text)

    def embed_query(self, text: str) -> np.ndarray:
        """``(dimension,)`` float32, L2-normalised, with the query prefix applied."""
        return self.embed_queries([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), dimension)``, each row as ``embed_query`` gives it, in one batch: a
        question and its English reading took 14 ms together against 17-18 ms one after the other."""
        return self._embed(texts, self._manifest.query_prefix, len(texts), None, None)

    def embed_passages(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 16,
        progress: Callable[[int, int], None] | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> np.ndarray:
        """``(len(texts), dimension)`` float32, L2-normalised, rows in input order.

        ``progress(done, total)`` is called after each batch with the number of texts fully
        embedded; ``cancel()`` is polled before each batch and raises ``Cancelled``.
        """
        return self._embed(texts, self._manifest.passage_prefix, batch_size, progress, cancel)

    def _embed(
        self,
        texts: Sequence[str],
        prefix: str,
        batch_size: int,
        progress: Callable[[int, int], None] | None,
        cancel: Callable[[], bool] | None,
    ) -> np.ndarray:
        windows = [
            (owner, ids)
            for owner, text_windows in enumerate(self._windower.windows(texts, prefix))
            for ids in text_windows
        ]
        windows.sort(key=lambda w: len(w[1]))  # similar lengths together: little padding
        sums = np.zeros((len(texts), self.dimension), np.float64)
        left = np.bincount([owner for owner, _ in windows], minlength=len(texts))
        done = 0
        for start in range(0, len(windows), batch_size):
            if cancel is not None and cancel():
                raise Cancelled
            batch = windows[start : start + batch_size]
            pooled = self._run([ids for _, ids in batch])
            for (owner, ids), vector in zip(batch, pooled, strict=True):
                # Token-weighted, so a windowed text averages like one long mean-pool would.
                sums[owner] += len(ids) * vector
                left[owner] -= 1
                done += int(left[owner] == 0)
            if progress is not None:
                progress(done, len(texts))
        return _l2_normalise(sums)

    def _run(self, sequences: list[list[int]]) -> np.ndarray:
        """Mean-pooled vectors of one dynamically padded batch."""
        width = max(len(s) for s in sequences)
        ids = np.full((len(sequences), width), self._pad, np.int64)
        mask = np.zeros((len(sequences), width), np.int64)
        for row, seq in enumerate(sequences):
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        (pooled,) = self._session.run(["pooled"], {"input_ids": ids, "attention_mask": mask})
        return pooled


def _l2_normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
