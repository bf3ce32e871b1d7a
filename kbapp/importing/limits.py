"""How long and how much memory reading one file may take: alone in a module so the command line
can show the defaults in its help without importing the import pipeline."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ParseLimits:
    """How long and how much memory reading one file may take."""

    seconds: float = 120.0
    memory_mb: int = 4096  # the worker's whole address space (Linux) or resident size (elsewhere)
