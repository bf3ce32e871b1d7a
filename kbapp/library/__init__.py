"""The library façade: ``KnowledgeBase``, the one object the CLI, the GUI and the tests drive,
and where a library lives on disk.

``KnowledgeBase`` is imported on first use: ``kbapp.library.paths`` is needed before the window
paints and must not pay for loading the whole façade (SQLAlchemy, FAISS, search).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kbapp.library.knowledge_base import KnowledgeBase

__all__ = ["KnowledgeBase"]


def __getattr__(name: str) -> Any:
    if name == "KnowledgeBase":
        from kbapp.library.knowledge_base import KnowledgeBase

        return KnowledgeBase
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
