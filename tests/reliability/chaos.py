"""Parsers that misbehave on purpose, by file name, in front of the real one.

They run inside the parse worker (so they must be importable module-level functions) and stand
for reader bugs no real file reliably triggers: a hang, a segfault, a hard exit, a memory hog.
"""

from __future__ import annotations

import ctypes
import os
import time
from pathlib import Path

import numpy as np

from kbapp.ingest import ParsedDocument, parse_file


def chaos_parse(path: Path) -> ParsedDocument:
    name = path.stem
    if name == "chaos-hang":
        time.sleep(3600)
    elif name == "chaos-segfault":
        ctypes.string_at(0)
    elif name == "chaos-exit":
        os._exit(7)
    elif name == "chaos-hog":
        # More than any limit the tests set, at once: under RLIMIT_AS this fails at once, however
        # busy the machine (growing to the limit page by page once outlasted a 10 s time limit).
        # Where the limit is not enforced (the resident-size watch) it is only reserved, not
        # resident, and the loop below makes resident memory grow until the watch stops it.
        hoard = [np.empty(4 << 30, np.uint8)]  # uninitialised: address space, nothing resident yet
        while True:  # touch every page: resident memory grows until a limit stops it
            hoard.append(bytearray(64 << 20))
            hoard[-1][::4096] = b"x" * len(range(0, 64 << 20, 4096))
    elif name == "chaos-bug":
        raise RuntimeError("reader bug")
    return parse_file(path)
