"""Benchmarks time kbapp as a user runs it: from byte-compiled modules.

An installed kbapp (pip, the frozen bundle, the .deb made from it) loads its modules from bytecode
written at install time. A development checkout run with ``PYTHONDONTWRITEBYTECODE`` set, as on
the machines these benchmarks ran on until 2026-12-04, compiles every kbapp module from source in
every new process: about 60 ms more for each one-shot search, and the same again in each worker
process an import starts. The benchmarks that time new processes call ``as_installed`` first.
"""

from __future__ import annotations

import compileall
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def as_installed() -> None:
    """Write the bytecode of kbapp's modules (new processes read it whatever their environment says
    about writing it); a module that does not compile is an error, not a slower row."""
    if not compileall.compile_dir(ROOT / "kbapp", quiet=1):
        raise RuntimeError("kbapp's modules did not all byte-compile")
