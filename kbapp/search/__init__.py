"""Finding passages: keyword (FTS5 BM25), dense vectors, their fusion, and result assembly."""
