"""Cutting parsed documents into retrieval passages that follow the document's own structure."""

from kbapp.chunking.chunker import HEADING_SEPARATOR, Chunk, ChunkingConfig, chunk_document

__all__ = ["HEADING_SEPARATOR", "Chunk", "ChunkingConfig", "chunk_document"]
