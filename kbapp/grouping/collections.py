"""The collections of one library, as the façade exposes them (``KnowledgeBase.collections``).

Each operation is one transaction. Names are matched exactly after collapsing whitespace; an
unknown name or a name already taken raises ``CollectionError`` with a message meant for the
user. Searches name collections; ``document_ids`` turns those names into the document ids the
searcher already knows how to restrict to, in all three modes and inside the vector index.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Sequence

from sqlalchemy.engine import Engine

from kbapp.contract import Collection, CollectionError
from kbapp.store import collections
from kbapp.store.database import write_transaction

__all__ = ["Collection", "CollectionError", "Collections"]


class Collections:
    def __init__(self, engine: Callable[[], Engine]) -> None:
        self._engine = engine  # a callable: the library's engine is replaced when it is rebuilt

    def create(self, name: str) -> None:
        with write_transaction(self._engine()) as conn:
            collections.create(conn, name)

    def rename(self, old: str, new: str) -> None:
        with write_transaction(self._engine()) as conn:
            collections.rename(conn, old, new)

    def delete(self, name: str) -> None:
        """Forget the collection; its documents stay in the library (and in their other collections)."""
        with write_transaction(self._engine()) as conn:
            collections.remove_collection(conn, name)

    def list(self) -> list[Collection]:
        with self._engine().connect() as conn:
            return collections.listing(conn)

    def add(self, name: str, doc_ids: Iterable[int]) -> int:
        """Add documents (unknown ids are ignored); returns how many were not members before."""
        with write_transaction(self._engine()) as conn:
            return collections.add_documents(conn, collections.require(conn, name), doc_ids)

    def remove(self, name: str, doc_ids: Iterable[int]) -> int:
        with write_transaction(self._engine()) as conn:
            return collections.remove_documents(conn, collections.require(conn, name), doc_ids)

    def memberships(self) -> dict[int, builtins.list[str]]:
        """Collection names of each document that is in any."""
        with self._engine().connect() as conn:
            return collections.memberships(conn)

    def document_ids(self, names: Sequence[str]) -> builtins.list[int]:
        with self._engine().connect() as conn:
            return collections.document_ids(conn, names)

    def restrict(
        self, document_ids: Sequence[int] | None, names: Sequence[str] | None
    ) -> Sequence[int] | None:
        """The ``document_ids`` a search in the named collections passes on (None: the whole library):
        those in any of them, and among the ones asked for by id when ids are given too."""
        if not names:
            return document_ids
        inside = self.document_ids(names)
        if document_ids is None:
            return inside
        wanted: set[int] = set(inside)
        return [d for d in document_ids if d in wanted]
