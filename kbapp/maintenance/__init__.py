"""Keeping a library healthy: checking and repairing what lives beside the database (kept copies,
the vector index cache), and opening a damaged database by moving it aside and rebuilding.

The checks of the database itself are SQL and live in ``kbapp.store.checks``/``kbapp.store.repair``.
"""
