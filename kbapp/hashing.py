"""The sha256 of a file, read in blocks: what names kept copies, checks model packs and the index cache.

One helper, so the three places that compare file hashes cannot drift apart in how they read.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

_BLOCK = 1 << 20


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()
