"""Cutting parsed documents into retrieval passages that follow the document's own structure."""

from kbapp.chunking.chunker import Chunk, ChunkingConfig, chunk_document

__all__ = ["Chunk", "ChunkingConfig", "chunk_document"]
