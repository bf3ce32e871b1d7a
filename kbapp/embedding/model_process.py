"""The embedding model in a process of its own, for a desktop window.

Measured in the window's process: building the tokenizer's 250,002-piece vocabulary holds the GIL
for 0.6-1.0 s (the window freezes that long while the model "loads in the background") and keeps
about 280 MB resident; the ONNX session adds about 80 MB. The small vocabulary of ``covered``
(Latin and CJK pieces) cuts that to 0.15 s and 146 MB, still a visible stall. In a child
process neither touches the window: it waits on a pipe, which releases the GIL, and its memory
is the child's.

The child answers three pipes, each from its own thread, so that a search's query or an import's
token counts never wait behind passages being embedded (onnxruntime runs a query beside a
batch, as it did in one process). Passages report progress after each batch, and a cancel
(a shared event) stops them at the next, as in one process.
A child that dies (killed, out of memory) is started again for the next request; a request it
died on is sent once more, then reported as ``ModelProcessError``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Sequence
from multiprocessing import Pipe, get_context
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kbapp.child_process import exit_with_parent, spawn
from kbapp.contract import Cancelled
from kbapp.embedding.pack import ModelPack

if TYPE_CHECKING:
    from multiprocessing.synchronize import Event

    import numpy as np

PASSAGES, QUERIES, TEXT = range(3)  # the pipes: passage vectors, query vectors, tokenizer answers
_CANCEL_POLL_SECONDS = 0.1  # how often a wait for passages asks whether to cancel
_START_SECONDS = 300.0  # loading takes about a second; a child not ready by then is stuck
_REMEMBERED, _REMEMBERED_CHARS = 20_000, 200  # token counts of short texts kept (a few MB at most)


class ModelProcessError(RuntimeError):
    """The model process could not start or stopped answering."""


class ModelProcess:
    def __init__(self, pack: ModelPack, threads: int | None = None) -> None:
        self._pack = pack
        self._threads = threads
        self._start_lock = threading.Lock()
        self._locks = [threading.Lock() for _ in range(3)]
        self._proc: BaseProcess | None = None
        self._conns: list[Connection] | None = None
        self._cancel = get_context("spawn").Event()  # shared with every child started

    def start(self) -> None:
        """Start the child and wait until its model is loaded (returns at once if it is running)."""
        self._running()

    def call(
        self,
        pipe: int,
        op: str,
        arg: object,
        progress: Callable[[int], None] | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> Any:
        """``op(arg)`` in the child, over ``pipe`` (``PASSAGES``, ``QUERIES`` or ``TEXT``). Passages
        report ``progress`` after each batch and stop at the next batch once ``cancel()`` is true
        (``Cancelled``)."""
        for attempt in (1, 2):
            conns = self._running()
            try:
                with self._locks[pipe]:
                    if cancel is not None:  # only passages are cancelled: a query must not clear it
                        self._cancel.clear()
                    conns[pipe].send((op, arg))
                    status, value = self._await(conns[pipe], progress, cancel)
            except (EOFError, OSError) as exc:
                self._forget(conns)
                if attempt == 2:
                    raise ModelProcessError(
                        f"the embedding model process stopped ({exc or 'no answer'})"
                    ) from exc
                continue
            if status == "cancelled":
                raise Cancelled
            if status != "ok":
                raise ModelProcessError(value)
            return value
        raise AssertionError("unreachable")

    def _await(
        self, conn: Connection, progress: Callable[[int], None] | None, cancel: Callable[[], bool] | None
    ) -> tuple[str, Any]:
        # Asked after every message as well as every poll: batches that each take less than a poll
        # would otherwise keep the answer coming and never let a cancel through.
        while True:
            if cancel is not None and cancel():
                self._cancel.set()
            if cancel is not None and not conn.poll(_CANCEL_POLL_SECONDS):
                continue
            status, value = conn.recv()
            if status != "progress":
                return status, value
            if progress is not None:
                progress(value)

    def stop(self) -> None:
        with self._start_lock:
            self._stop()

    def _running(self) -> list[Connection]:
        with self._start_lock:
            if self._conns is not None and self._proc is not None and self._proc.is_alive():
                return self._conns
            self._stop()
            pipes = [Pipe() for _ in self._locks]
            children = [c for _, c in pipes]
            proc = spawn(serve, (children, self._cancel, str(self._pack.path), self._threads), "kbapp-model")
            for _, child in pipes:
                child.close()
            self._proc, self._conns = proc, [parent for parent, _ in pipes]
            first = self._conns[0]
            try:
                ready = first.poll(_START_SECONDS) and first.recv()
            except (EOFError, OSError):
                ready = ("failed", f"it exited while loading (exit code {proc.exitcode})")
            if ready != ("ready",):
                self._stop()
                reason = ready[1] if ready else f"not ready after {_START_SECONDS:.0f} s"
                raise ModelProcessError(f"the embedding model could not be loaded: {reason}")
            return self._conns

    def _forget(self, conns: list[Connection]) -> None:
        """Drop the child these pipes lead to, unless another thread already replaced it."""
        with self._start_lock:
            if self._conns is conns:
                self._stop()

    def _stop(self) -> None:
        if self._conns is not None:
            for conn in self._conns:
                conn.close()
        if self._proc is not None:
            if self._proc.is_alive():
                self._proc.kill()
            self._proc.join(5)
        self._proc, self._conns = None, None


class RemoteEncoder:
    """An ``Encoder``'s interface, answered by the model process."""

    def __init__(self, process: ModelProcess, pack: ModelPack) -> None:
        self._process = process
        self.pack_id = pack.manifest.id
        self.dimension = pack.manifest.dimension

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.embed_queries([text])[0]
        return vector

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        vectors: np.ndarray = self._process.call(QUERIES, "queries", list(texts))
        return vectors

    def embed_passages(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 16,
        progress: Callable[[int, int], None] | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> np.ndarray:
        """As ``Encoder.embed_passages``, in one request: the encoder orders all the texts' windows
        by length before batching them, and slices of one batch each cost 20-25 % more padding."""
        total = len(texts)
        vectors: np.ndarray = self._process.call(
            PASSAGES,
            "passages",
            (list(texts), batch_size),
            progress=None if progress is None else lambda done: progress(done, total),
            cancel=cancel,
        )
        return vectors

    def word_boundaries(self, text: str) -> frozenset[int]:
        boundaries: frozenset[int] = self._process.call(TEXT, "boundaries", text)
        return boundaries


class RemoteCounter:
    """A chunker's token counter (``chunking.spans.TokenizerCounter``'s interface) answered by the
    model process. Counts of short texts are remembered: a document's heading paths and table
    headers are counted again for every passage under them."""

    def __init__(self, process: ModelProcess) -> None:
        self._process = process
        self._known: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        count = self._known.get(text)
        if count is None:
            count = self._process.call(TEXT, "count", text)
            if len(text) <= _REMEMBERED_CHARS:
                if len(self._known) >= _REMEMBERED:
                    self._known.clear()
                self._known[text] = count
        return count

    def offsets(self, text: str) -> list[tuple[int, int]]:
        offsets: list[tuple[int, int]] = self._process.call(TEXT, "offsets", text)
        return offsets

    def offsets_many(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        """One request for a document's pages: one round trip, and the model process encodes
        them as a batch on its threads (``spans.span_counters``)."""
        offsets: list[list[tuple[int, int]]] = self._process.call(TEXT, "offsets_many", list(texts))
        return offsets


def serve(pipes: list[Connection], cancel: Event, pack_dir: str, threads: int | None) -> None:
    """The child: load the model, say "ready" on the first pipe (or why not), then answer every
    pipe from its own thread until the window closes them or dies."""
    from kbapp.embedding.budget import counter_for
    from kbapp.embedding.encoder import Encoder
    from kbapp.embedding.pack import load_pack
    from kbapp.embedding.tokens import load_tokenizer

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the app to handle
    exit_with_parent()
    try:
        pack = load_pack(Path(pack_dir))
        tokenizer = load_tokenizer(pack.tokenizer_path)
        encoder = Encoder(pack, threads=threads, tokenizer=tokenizer)
    except Exception as exc:  # a damaged pack, no memory: said in the window, keyword search goes on
        pipes[0].send(("failed", f"{type(exc).__name__}: {exc}"))
        return
    counter = counter_for(tokenizer)
    ops: dict[str, Callable[[Any], Any]] = {
        "passages": lambda arg: encoder.embed_passages(
            arg[0],
            batch_size=arg[1],
            progress=lambda done, _total: pipes[PASSAGES].send(("progress", done)),
            cancel=cancel.is_set,
        ),
        "queries": encoder.embed_queries,
        "count": counter,
        "offsets": counter.offsets,
        "offsets_many": counter.offsets_many,
        "boundaries": encoder.word_boundaries,
    }
    pipes[0].send(("ready",))
    for pipe in pipes[1:]:
        threading.Thread(target=_answer, args=(pipe, ops), daemon=True).start()
    _answer(pipes[0], ops)


def _answer(conn: Connection, ops: dict[str, Callable[[Any], Any]]) -> None:
    while True:
        try:
            op, arg = conn.recv()
        except (EOFError, OSError):
            os._exit(0)  # the window closed the pipe: nothing more will be asked
        try:
            reply = ("ok", ops[op](arg))
        except Cancelled:
            reply = ("cancelled", None)
        except Exception as exc:  # this request fails, the model stays loaded
            reply = ("error", f"{type(exc).__name__}: {exc}")
        with contextlib.suppress(OSError):
            conn.send(reply)
