"""Watched folders: sources the library keeps itself equal to (scan, compare, apply)."""
