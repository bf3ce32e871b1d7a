"""Keeping the postings copy (``postings``) in step with the keyword index SQLite holds.

The copy only speeds ranking up, and it never changes a score. It serves the library it was
built from as it is, and a library changed since (``Served``): the passages it holds that remain
are scored from it with the library's present passage count, lengths and term counts (FTS5's),
and those added since, whose ids are all above the copy's (``repository.insert_chunks`` never
gives an id twice), are ranked by FTS5 and added in. Where it cannot tell which passages it
still holds (another library, keyword rows rewritten in place by a repair, a library that gave
ids again before that was prevented), or its file is gone or damaged, FTS5 ranks alone, with the
same scores. So a copy that is missing, stale or being rebuilt costs time, never a wrong result.

It pays only in a large library: below ``MIN_PASSAGES`` FTS5 ranks a question's matches in a
few milliseconds (hybrid p50 47 ms at 1,000 passages and 54 ms at 10,000, query embedding
included, against 112 ms at 100,000: ``bench/bench_search.py``), so no copy is built there.
Not fitted: a round number between those sizes.

``refresh`` (after an import, a removal, a folder sync) rebuilds it from the whole library once
``REBUILD_SHARE`` of it has changed: at 100,000 passages that is about 25 s of one core, which
the window spends in its background job.
On disk it is ``keywords-<id>.bin`` (term offsets, postings, frequencies, passage lengths,
terms) plus ``keywords.json``, written as the vector index is: the data atomically, then a
manifest naming the data file, the library state it was built from and the data's checksum,
which a process checks before it serves the copy. Each save writes a new data file and then
deletes the others, so a search still reading the previous copy's postings finds its file gone
(and ranks with FTS5) instead of reading a newer copy's bytes at the older copy's offsets.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy.engine import Connection, Engine

from kbapp.hashing import sha256_file
from kbapp.index.atomic import atomic_write, atomic_write_bytes
from kbapp.store import keywords
from kbapp.store.samples import text_generation
from kbapp.store.vectors import meta_value

if TYPE_CHECKING:  # numpy loads only for a library large enough to have a copy
    from kbapp.index.postings import Postings, View

log = logging.getLogger(__name__)

MIN_PASSAGES = 20_000
# A copy keeps serving a library that has changed since it was built (``Served``); ``refresh``
# rebuilds it once the passages added and removed since then reach this share of it, as FTS5
# then scores that many passages again. Not fitted: a tenth.
REBUILD_SHARE = 0.1
DATA_PREFIX = "keywords-"
MANIFEST_FILE = "keywords.json"
FORMAT = 2  # 1: served only the library state it was built from


@dataclass(frozen=True, slots=True)
class KeywordState:
    """What the library's keyword index is now: the copy built from it serves it exactly. ``epoch``
    changes when the keyword rows are rewritten in place (a repair), which nothing else shows;
    ``floor`` is the largest passage id ever given (``keywords.id_floor``)."""

    library_id: str
    epoch: int
    generation: int
    rows: int
    tokens: int
    floor: int


@dataclass(frozen=True, slots=True)
class Served:
    """A copy as it serves the library now: ``view`` scores the passages it was built from that
    remain; passages added since (ids above ``added_after``, None if there are none) are FTS5's."""

    view: View
    added_after: int | None


@dataclass(frozen=True, slots=True)
class Manifest:
    format: int
    data_file: str
    built: KeywordState  # the library state the copy was built from
    last_id: int
    terms: int
    postings: int
    freq_dtype: str
    terms_bytes: int
    sha256: str


def library_state(conn: Connection) -> KeywordState:
    rows, tokens = keywords.fts_totals(conn)
    return KeywordState(
        meta_value(conn, "library_id"),
        keywords.epoch(conn),
        text_generation(conn),
        rows,
        tokens,
        keywords.id_floor(conn),
    )


def _serve(
    conn: Connection, state: KeywordState, copy: tuple[KeywordState, Postings]
) -> tuple[Served, int] | None:
    """How ``copy`` serves the library in ``state``, and how many passages were added or removed
    since it was built; None if it cannot: another library or epoch, or a changed library whose
    ids up to the copy's largest may have been given again (a library imported into before the
    ids were kept from being reused: ``repository.insert_chunks``), or were (an id it knew as
    empty holds a passage)."""
    built, postings = copy
    if (state.library_id, state.epoch) != (built.library_id, built.epoch):
        return None
    if state == built:
        return Served(postings.view(state.rows, state.tokens, None), None), 0
    if built.floor < postings.totals.last_id:
        return None
    import numpy as np

    ids = np.array(keywords.passage_ids(conn, postings.totals.last_id), np.int64)
    if len(ids) and bool((postings.lengths[ids] < 0).any()):
        return None
    live = None
    if len(ids) < built.rows:  # every remaining id is one it was built from: these were removed
        live = np.zeros(len(postings.lengths), bool)
        live[ids] = True
    added = state.rows - len(ids)
    view = postings.view(state.rows, state.tokens, live)
    return Served(view, postings.totals.last_id if added else None), added + built.rows - len(ids)


class KeywordIndex:
    def __init__(self, engine: Engine, folder: Path, *, read_only: bool = False) -> None:
        self._engine = engine
        self._folder = folder
        self._read_only = read_only
        self._copy: tuple[KeywordState, Postings] | None = None  # and the state it was built from
        # How the copy serves the last library state seen, and which copy that was (a refresh in
        # another thread may swap the copy while a search works this out).
        self._served: tuple[KeywordState, object, Served | None] | None = None
        self._tried: KeywordState | None = None  # the library state a saved copy was last looked for at
        self._lock = threading.Lock()  # one refresh at a time; searches never wait for it

    def current(self, conn: Connection) -> Served | None:
        """The copy as it serves the library ``conn`` sees now (None: FTS5 ranks alone). A saved one
        (written by this process or another) is looked for once per library state, and again when
        another process's save has replaced the one this process reads; never built here."""
        state = library_state(conn)
        copy = self._copy
        if copy is not None and copy[1].stored is not None and not copy[1].stored.path.exists():
            self._copy = self._served = self._tried = None
        served = self._served
        if served is not None and served[0] == state and served[1] is self._copy:
            return served[2]
        if state.rows < MIN_PASSAGES:
            return None
        if self._copy is None and self._tried != state and self._lock.acquire(blocking=False):
            try:
                self._tried = state
                self._copy = _load(self._folder)
            finally:
                self._lock.release()
        copy = self._copy
        result = _serve(conn, state, copy) if copy is not None else None
        self._served = (state, copy, result[0] if result is not None else None)
        return self._served[2]

    def refresh(self, cancel: Callable[[], bool] | None = None) -> str | None:
        """Keep the copy if it serves the library and at most ``REBUILD_SHARE`` of its passages were
        added or removed since it was built, else rebuild it, in a library of at least
        ``MIN_PASSAGES``; returns why a rebuilt copy could not be saved (it serves from memory).
        ``cancel()`` true stops a rebuild (minutes at a million passages) and keeps what was there."""
        with self._lock:
            with self._engine.connect() as conn, conn.begin():  # one snapshot for all reads
                state = library_state(conn)
                if state.rows < MIN_PASSAGES:
                    self._copy = self._served = None
                    return None
                if self._copy is None and self._tried != state:
                    self._tried = state
                    self._copy = _load(self._folder)
                copy = self._copy
                kept = _serve(conn, state, copy) if copy is not None else None
                if copy is not None and kept is not None and kept[1] <= REBUILD_SHARE * copy[0].rows:
                    return None
                from kbapp.index.postings import PostingsMismatch, Totals, build

                try:
                    postings = build(
                        _until(keywords.keyword_rows(conn), cancel),
                        keywords.vocabulary_counts(conn),
                        Totals(state.rows, state.tokens, keywords.last_id(conn)),
                    )
                except PostingsMismatch as err:  # FTS5 reads the text otherwise: it ranks alone
                    log.warning("keyword postings not built: %s", err)
                    self._copy = self._served = None
                    return None
                except _Cancelled:
                    return None
            self._copy, self._served = (state, postings), None
            if self._read_only:
                return None
            try:
                _save(self._folder, state, postings)
            except OSError as err:
                log.warning("could not save the keyword postings: %s", err)
                return f"could not save the keyword index copy ({err.strerror or err})"
            self._copy = _load(self._folder) or self._copy  # read from the file, not held in memory
        return None


class _Cancelled(Exception):
    """A rebuild was asked to stop."""


_CANCEL_EVERY = 4096  # rows read between two looks at the cancel flag


def _until(
    rows: Iterable[tuple[int, str, str]], cancel: Callable[[], bool] | None
) -> Iterator[tuple[int, str, str]]:
    """``rows``, stopping with ``_Cancelled`` once ``cancel()`` is true."""
    for i, row in enumerate(rows):
        if cancel is not None and i % _CANCEL_EVERY == 0 and cancel():
            raise _Cancelled
        yield row


def _save(folder: Path, state: KeywordState, postings: Postings) -> None:
    assert postings.arrays is not None
    docs, freqs = postings.arrays
    terms = "\n".join(postings.terms).encode()
    name = f"{DATA_PREFIX}{uuid.uuid4().hex[:12]}.bin"

    def write(tmp: Path) -> None:
        with tmp.open("wb") as f:
            for array in (postings.starts, docs, freqs, postings.lengths):
                f.write(array.tobytes())
            f.write(terms)

    atomic_write(folder / name, write)
    manifest = Manifest(
        FORMAT,
        name,
        state,
        postings.totals.last_id,
        len(postings.terms),
        len(docs),
        freqs.dtype.name,
        len(terms),
        sha256_file(folder / name),
    )
    atomic_write_bytes(folder / MANIFEST_FILE, json.dumps(asdict(manifest), indent=1).encode())
    for old in folder.glob(f"{DATA_PREFIX}*.bin"):
        if old.name != name:
            old.unlink(missing_ok=True)


def _load(folder: Path) -> tuple[KeywordState, Postings] | None:
    """The saved copy and the state it was built from, if its checksum holds (``_serve`` says
    whether it serves the library): its term offsets and passage lengths in memory, its postings
    read from the file as searches need them."""
    try:
        data = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:  # an older version's copy: rebuilt, nothing to report
            return None
        manifest = Manifest(**data | {"built": KeywordState(**data["built"])})
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError, AttributeError, KeyError) as err:
        log.warning("keyword postings manifest unreadable: %s", err)
        return None
    path = folder / manifest.data_file
    if not manifest.data_file.startswith(DATA_PREFIX) or not path.is_file():
        return None
    try:
        if sha256_file(path) != manifest.sha256:
            log.warning("keyword postings file is damaged (checksum mismatch); it will be rebuilt")
            return None
        import numpy as np

        from kbapp.index.postings import Postings, Stored, Totals

        freq_size = np.dtype(manifest.freq_dtype).itemsize
        docs_at = 8 * (manifest.terms + 1)
        freqs_at = docs_at + 4 * manifest.postings
        lengths_at = freqs_at + freq_size * manifest.postings
        terms_at = lengths_at + 4 * (manifest.last_id + 1)
        with path.open("rb") as f:
            starts = np.fromfile(f, np.int64, manifest.terms + 1)
            f.seek(lengths_at)
            lengths = np.fromfile(f, np.int32, manifest.last_id + 1)
            f.seek(terms_at)
            blob = f.read(manifest.terms_bytes)
    except OSError as err:
        log.warning("keyword postings file unreadable: %s", err)
        return None
    terms = blob.decode().split("\n") if manifest.terms else []
    totals = Totals(manifest.built.rows, manifest.built.tokens, manifest.last_id)
    stored = Stored(path, docs_at, freqs_at, manifest.freq_dtype)
    return manifest.built, Postings(terms, starts, lengths, totals, stored=stored)
