"""The SQLite library file: the single source of truth for documents, chunks, terms and vectors."""
