"""The library façade and the import pipeline behind it.

``KnowledgeBase`` is imported on first use: the parse worker process imports modules of this
package and must not pay for loading the whole façade (SQLAlchemy, FAISS, search).
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
