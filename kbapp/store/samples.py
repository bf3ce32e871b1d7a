"""Reads search needs besides retrieval itself: each document's opening text and which document
every embedded passage belongs to (to group passages by language), and candidates' raw text."""

from __future__ import annotations

from itertools import chain
from typing import TYPE_CHECKING

from sqlalchemy.engine import Connection

from kbapp.store.vectors import meta_value

if TYPE_CHECKING:  # numpy loads with the model: a keyword search never needs it
    import numpy as np

OPENING_PAGES = 8  # enough to tell a Chinese manual that quotes English code from an English one


def document_openings(conn: Connection, chars: int) -> dict[int, str]:
    """The first ``chars`` characters of each document's first pages."""
    rows = conn.exec_driver_sql(
        "SELECT document_id, substr(group_concat(text, ' '), 1, ?) FROM "
        "(SELECT document_id, text FROM pages WHERE page_index < ? ORDER BY document_id, page_index) "
        "GROUP BY document_id",
        (chars, OPENING_PAGES),
    )
    return {int(doc_id): text or "" for doc_id, text in rows}


def chunk_texts(conn: Connection, ids: list[int]) -> dict[int, str]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = conn.exec_driver_sql(f"SELECT id, text FROM chunks WHERE id IN ({marks})", tuple(ids))
    return {int(chunk_id): text for chunk_id, text in rows}


def text_generation(conn: Connection) -> int:
    """Changes whenever a page is stored or removed (``schema.TEXT_GENERATION_TRIGGERS``)."""
    return int(meta_value(conn, "text_generation"))


def embedded_passages(conn: Connection, pack_id: str) -> tuple[np.ndarray, np.ndarray]:
    """``(chunk ids, their document ids)`` of every passage with a vector from ``pack_id``, by chunk id."""
    import numpy as np

    rows = conn.exec_driver_sql(
        "SELECT v.chunk_id, c.document_id FROM vectors v JOIN chunks c ON c.id = v.chunk_id "
        "WHERE v.pack_id = ? ORDER BY v.chunk_id",
        (pack_id,),
    )
    # From flat ints: numpy asks each SQLAlchemy row for array attributes first (0.25 s, 8,409 rows).
    data = np.fromiter(chain.from_iterable(rows), dtype=np.int64).reshape(-1, 2)
    return data[:, 0].copy(), data[:, 1].copy()
