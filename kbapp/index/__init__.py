"""Caches derived from the library database: the FAISS vector index and its manifest."""
