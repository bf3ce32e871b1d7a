"""Tables of the library database and the forward migrations that create them.

Plain SQLAlchemy Core tables; the FTS5 table is raw DDL because SQLAlchemy has no notion of
virtual tables. ``MIGRATIONS[n]`` takes a library from schema version n to n + 1; a library is
only ever migrated forward, each step in its own transaction.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)
from sqlalchemy.engine import Connection

metadata = MetaData()

meta = Table(
    "meta",
    metadata,
    Column("key", String, primary_key=True),
    Column("value", Text, nullable=False),
)

documents = Table(
    "documents",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("path", Text, nullable=False, unique=True),
    Column("content_hash", String, nullable=False, index=True),
    Column("title", Text, nullable=False),
    Column("doc_type", String, nullable=False),
    Column("page_count", Integer),
    Column("size", Integer, nullable=False),
    Column("mtime", Float, nullable=False),
    Column("imported_at", Float, nullable=False),
    Column("status", String, nullable=False),  # "ready" | "failed"
    Column("error", Text),
    Column("warnings", Text, nullable=False, default=""),
    Column("copy_path", Text),
)

pages = Table(
    "pages",
    metadata,
    Column("document_id", Integer, ForeignKey("documents.id", ondelete="CASCADE"), primary_key=True),
    Column("page_index", Integer, primary_key=True),
    Column("number", Integer),
    Column("text", Text, nullable=False),
)

chunks = Table(
    "chunks",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("document_id", Integer, ForeignKey("documents.id", ondelete="CASCADE"), nullable=False),
    Column("ord", Integer, nullable=False),
    Column("page_start", Integer, nullable=False),
    Column("char_start", Integer, nullable=False),
    Column("page_end", Integer, nullable=False),
    Column("char_end", Integer, nullable=False),
    Column("heading", Text, nullable=False),
    Column("kind", String, nullable=False),
    Column("prefix", Text, nullable=False),
    Column("text", Text, nullable=False),
    Column("tokens", Integer, nullable=False),
    Index("ix_chunks_document", "document_id", "ord"),
    sqlite_autoincrement=True,  # chunk ids key the vector index: never reuse a deleted one
)

# The journal of a running import: the files it was asked to read, each marked done as it is
# finished. Rows exist only while the import runs; rows left behind by a killed process are what
# the next start offers to resume. ``source`` is the file actually read when it differs from
# ``path`` (a kept copy, when the library is rebuilt after the original is gone).
import_jobs = Table(
    "import_jobs",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("kind", String, nullable=False),  # "import" | "recovery" | "repair"
    Column("owner_pid", Integer, nullable=False),
    Column("owner_started", Float, nullable=False),  # the owner's process start time: pids get reused
    Column("created_at", Float, nullable=False),
)

import_files = Table(
    "import_files",
    metadata,
    Column("job_id", Integer, ForeignKey("import_jobs.id", ondelete="CASCADE"), primary_key=True),
    Column("ord", Integer, primary_key=True),
    Column("path", Text, nullable=False),
    Column("source", Text),
    Column("done", Integer, nullable=False, default=0),
    Column("outcome", String),
    Column("message", Text),
)

vectors = Table(
    "vectors",
    metadata,
    Column("chunk_id", Integer, ForeignKey("chunks.id", ondelete="CASCADE"), primary_key=True),
    Column("pack_id", String, nullable=False),
    Column("vector", LargeBinary, nullable=False),
    Index("ix_vectors_pack", "pack_id"),
)

# Watched folders: a folder the library keeps equal to (new, changed, moved and deleted files
# followed), with what its last sync found. ``device`` is the folder's filesystem at the last
# sync that saw it online: an empty folder on another device is an unplugged mount point, not a
# folder whose files were all deleted. ``state``: "new" (never synced), "ok", "offline".
sources = Table(
    "sources",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("path", Text, nullable=False, unique=True),
    Column("collection_id", Integer, ForeignKey("collections.id", ondelete="SET NULL")),
    Column("device", Integer),
    Column("added_at", Float, nullable=False),
    Column("state", String, nullable=False, default="new"),
    Column("last_sync", Float),
    Column("files", Integer, nullable=False, default=0),
    Column("failures", Integer, nullable=False, default=0),
    Column("message", Text),
)

collections = Table(
    "collections",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", Text, nullable=False, unique=True),
    Column("created_at", Float, nullable=False),
)

document_collections = Table(
    "document_collections",
    metadata,
    Column("collection_id", Integer, ForeignKey("collections.id", ondelete="CASCADE"), primary_key=True),
    Column("document_id", Integer, ForeignKey("documents.id", ondelete="CASCADE"), primary_key=True),
    Index("ix_document_collections_document", "document_id"),
)

# Pages waiting for, or read by, the OCR stage. A row is written "pending" with its document and
# turned "done" (with the page's text stored and chunked) or "failed" (with the reason) in the
# same transaction as the result, so a killed OCR run resumes at the first page still pending.
# ``lines`` is the OCR'd lines with their boxes (JSON, see kbapp.ocr.layout) for highlights.
ocr_pages = Table(
    "ocr_pages",
    metadata,
    Column("document_id", Integer, ForeignKey("documents.id", ondelete="CASCADE"), primary_key=True),
    Column("number", Integer, primary_key=True),  # 1-based physical page (image frame)
    Column("status", String, nullable=False),  # "pending" | "done" | "failed"
    Column("message", Text),
    Column("lines", Text),
)

FTS_DDL = (
    'CREATE VIRTUAL TABLE chunk_fts USING fts5(body, context, tokenize = "unicode61 remove_diacritics 0")'
)

# Keep FTS rows in step with chunks inside the same transaction, whoever deletes the chunk
# (a re-import, a remove, or the cascade from deleting its document).
FTS_DELETE_TRIGGER = (
    "CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN "
    "DELETE FROM chunk_fts WHERE rowid = old.id; END"
)


# Every change to the stored vectors bumps a generation number, in the same transaction, whatever
# caused it (an embedding run, a re-import, a cascade from removing a document). The saved FAISS
# index records the generation it was built from, so a stale index is recognised on open.
VECTOR_GENERATION_TRIGGERS = [
    f"CREATE TRIGGER vectors_generation_{event.lower()} AFTER {event} ON vectors BEGIN "
    "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'vector_generation'; END"
    for event in ("INSERT", "UPDATE", "DELETE")
]


# The same for the library's text: every page stored or removed (an import, a remove, OCR adding a
# scanned page's text) bumps it, so what search keeps of the library as a whole (its languages, its
# size in words) is read again when, and only when, the text changed.
TEXT_GENERATION_TRIGGERS = [
    f"CREATE TRIGGER pages_generation_{event.lower()} AFTER {event} ON pages BEGIN "
    "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'text_generation'; END"
    for event in ("INSERT", "UPDATE", "DELETE")
]


def _v0_to_v1(conn: Connection) -> None:
    metadata.create_all(conn, tables=[meta, documents, pages, chunks, vectors])
    conn.exec_driver_sql(FTS_DDL)
    conn.exec_driver_sql(FTS_DELETE_TRIGGER)
    for ddl in VECTOR_GENERATION_TRIGGERS:
        conn.exec_driver_sql(ddl)
    conn.execute(
        meta.insert(),
        [
            {"key": "library_id", "value": uuid.uuid4().hex},
            {"key": "vector_generation", "value": "0"},
        ],
    )


def _v1_to_v2(conn: Connection) -> None:
    metadata.create_all(conn, tables=[import_jobs, import_files])
    # Deciding whether a kept copy is still referenced must not scan every document.
    conn.exec_driver_sql("CREATE INDEX ix_documents_copy_path ON documents(copy_path)")


def _v2_to_v3(conn: Connection) -> None:
    metadata.create_all(conn, tables=[collections, sources, document_collections])


def _v3_to_v4(conn: Connection) -> None:
    metadata.create_all(conn, tables=[ocr_pages])


def _v4_to_v5(conn: Connection) -> None:
    conn.execute(meta.insert(), [{"key": "text_generation", "value": "0"}])
    for ddl in TEXT_GENERATION_TRIGGERS:
        conn.exec_driver_sql(ddl)


MIGRATIONS: list[Callable[[Connection], None]] = [_v0_to_v1, _v1_to_v2, _v2_to_v3, _v3_to_v4, _v4_to_v5]
SCHEMA_VERSION = len(MIGRATIONS)
