"""Keeping the postings copy (``postings``) in step with the keyword index SQLite holds.

The copy only speeds ranking up: a search uses it when it reflects the library exactly (same
text generation, same passage and token totals as FTS5's), and FTS5 ranks by itself otherwise,
with the same scores. So a copy that is missing, stale, damaged or being rebuilt costs time,
never a wrong result.

It pays only in a large library: below ``MIN_PASSAGES`` FTS5 ranks a question's matches in a
few milliseconds (hybrid p50 47 ms at 1,000 passages and 54 ms at 10,000, query embedding
included, against 112 ms at 100,000: ``bench/bench_search.py``), so no copy is built there.
Not fitted: a round number between those sizes.

``refresh`` rebuilds it from the whole library after a change (an import, a removal): at
100,000 passages that is about 20 s of one core, which the window spends in its background job.
On disk it is ``keywords-<id>.bin`` (term offsets, postings, frequencies, passage lengths,
terms) plus ``keywords.json``, written as the vector index is: the data atomically, then a
manifest naming the data file, library, generation, totals and the data's checksum, which a
process checks before it serves the copy. Each save writes a new data file and then deletes the
others, so a search still reading the previous copy's postings finds its file gone (and ranks
with FTS5) instead of reading a newer copy's bytes at the older copy's offsets.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
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
    from kbapp.index.postings import Postings

log = logging.getLogger(__name__)

MIN_PASSAGES = 20_000
DATA_PREFIX = "keywords-"
MANIFEST_FILE = "keywords.json"
FORMAT = 1


@dataclass(frozen=True, slots=True)
class KeywordState:
    """What the library's keyword index is now; a copy serves only a state equal to its own."""

    library_id: str
    generation: int
    rows: int
    tokens: int


@dataclass(frozen=True, slots=True)
class Manifest:
    format: int
    data_file: str
    library_id: str
    generation: int
    rows: int
    tokens: int
    last_id: int
    terms: int
    postings: int
    freq_dtype: str
    terms_bytes: int
    sha256: str


def library_state(conn: Connection) -> KeywordState:
    rows, tokens = keywords.fts_totals(conn)
    return KeywordState(meta_value(conn, "library_id"), text_generation(conn), rows, tokens)


class KeywordIndex:
    def __init__(self, engine: Engine, folder: Path, *, read_only: bool = False) -> None:
        self._engine = engine
        self._folder = folder
        self._read_only = read_only
        self._served: tuple[KeywordState, Postings] | None = None
        self._tried: KeywordState | None = None  # the last state a saved copy was looked for
        self._lock = threading.Lock()  # one refresh at a time; searches never wait for it

    def current(self, conn: Connection) -> Postings | None:
        """The copy, if it reflects the library as ``conn`` sees it now; a saved one (written by
        this process or another) is looked for once per library state, never built here."""
        state = library_state(conn)
        served = self._served
        if served is not None and served[0] == state:
            return served[1]
        if state.rows < MIN_PASSAGES or state == self._tried or not self._lock.acquire(blocking=False):
            return None
        try:
            self._tried = state
            self._served = _load(self._folder, state) or self._served
        finally:
            self._lock.release()
        served = self._served
        return served[1] if served is not None and served[0] == state else None

    def refresh(self) -> str | None:
        """Make the copy reflect the library, from disk or by a rebuild, in a library of at least
        ``MIN_PASSAGES``; returns why it could not be saved (it still serves from memory)."""
        with self._lock:
            with self._engine.connect() as conn, conn.begin():  # one snapshot for all reads
                state = library_state(conn)
                if state.rows < MIN_PASSAGES:
                    self._served = None
                    return None
                if self._served is not None and self._served[0] == state:
                    return None
                loaded = _load(self._folder, state)
                if loaded is not None:
                    self._served = loaded
                    return None
                from kbapp.index.postings import PostingsMismatch, Totals, build

                last_id = keywords.last_id(conn)
                try:
                    postings = build(
                        keywords.keyword_rows(conn),
                        keywords.vocabulary_counts(conn),
                        Totals(state.rows, state.tokens, last_id),
                    )
                except PostingsMismatch as err:  # FTS5 reads the text otherwise: it ranks alone
                    log.warning("keyword postings not built: %s", err)
                    self._served = None
                    return None
            self._served = (state, postings)
            if self._read_only:
                return None
            try:
                _save(self._folder, state, postings)
            except OSError as err:
                log.warning("could not save the keyword postings: %s", err)
                return f"could not save the keyword index copy ({err.strerror or err})"
            self._served = _load(self._folder, state) or self._served  # mapped, not held in memory
        return None


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
        state.library_id,
        state.generation,
        state.rows,
        state.tokens,
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


def _load(folder: Path, state: KeywordState) -> tuple[KeywordState, Postings] | None:
    """The saved copy if its manifest names ``state`` and its checksum holds: its term offsets and
    passage lengths in memory, its postings read from the file as searches need them."""
    try:
        manifest = Manifest(**json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError) as err:
        log.warning("keyword postings manifest unreadable: %s", err)
        return None
    path = folder / manifest.data_file
    if (
        manifest.format != FORMAT
        or KeywordState(manifest.library_id, manifest.generation, manifest.rows, manifest.tokens) != state
        or not manifest.data_file.startswith(DATA_PREFIX)
        or not path.is_file()
    ):
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
    totals = Totals(manifest.rows, manifest.tokens, manifest.last_id)
    stored = Stored(path, docs_at, freqs_at, manifest.freq_dtype)
    return state, Postings(terms, starts, lengths, totals, stored=stored)
