"""Embedding the passages that have no vector for the active model pack yet.

Runs after import (the CLI waits for it; the GUI runs it in the background while keyword
search already works). Vectors are committed to SQLite batch by batch, so a crash or a
cancel loses at most one batch and the next run resumes where this one stopped; passages
embedded by a different pack are treated as missing, so two models' vectors never meet.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np
from sqlalchemy.engine import Engine

from kbapp.index.dense import encode_vector
from kbapp.store import vectors
from kbapp.store.database import write_transaction

BATCH = 128


class PassageEncoder(Protocol):
    @property
    def pack_id(self) -> str: ...

    def embed_passages(
        self, texts: list[str], *, batch_size: int = ..., cancel: Callable[[], bool] | None = ...
    ) -> np.ndarray: ...


def passage_for_embedding(text: str, heading: str, title: str) -> str:
    """The chunk as the encoder sees it: with its document title and heading path in front, which
    tells a short passage ("Set it to 24 V.") what it is about."""
    if heading.startswith(title):
        title = ""  # the heading path already starts with it (a text file's title line)
    context = [part for part in (title, heading) if part and not text.startswith(part)]
    return "\n".join([" > ".join(context), text]) if context else text


def embed_pending(
    engine: Engine,
    encoder: PassageEncoder,
    progress: Callable[[int, int], None] | None = None,
    cancel: Callable[[], bool] | None = None,
) -> int:
    """Embed every pending passage; returns how many were embedded. Raises ``Cancelled`` on cancel."""
    with engine.connect() as conn:
        total = vectors.pending_count(conn, encoder.pack_id)
    done = 0
    while True:
        with engine.connect() as conn:
            rows = vectors.pending_passages(conn, encoder.pack_id, BATCH)
        if not rows:
            return done
        texts = [passage_for_embedding(r.text, r.heading, r.title) for r in rows]
        matrix = encoder.embed_passages(texts, cancel=cancel)
        with write_transaction(engine) as conn:
            vectors.store(
                conn, encoder.pack_id, [(r.id, encode_vector(v)) for r, v in zip(rows, matrix, strict=True)]
            )
        done += len(rows)
        if progress is not None:
            progress(done, max(total, done))
