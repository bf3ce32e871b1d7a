"""The library façade and the import pipeline behind it."""

from kbapp.library.knowledge_base import KnowledgeBase

__all__ = ["KnowledgeBase"]
