"""File names the library can record.

The library keeps paths as text (the database, the import journal, the catalogue of originals),
and that text must be valid UTF-8. On Linux a file name is bytes: one written in another encoding
(a zip made on Chinese Windows keeps its names in GBK) reaches Python with lone surrogates where
its bytes are not UTF-8, and storing such a path stopped the whole import with a
``UnicodeEncodeError``. Imports and watched folders name such files among their problems, with the
stray bytes written out, and leave them alone; renamed, they import like any other.
"""

from __future__ import annotations

import os

NOT_UTF8 = "its name is not valid UTF-8; rename it first"


def recordable(path: str) -> bool:
    """Whether ``path`` can be stored as text."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown(path: str) -> str:
    """``path`` for a message: the bytes that are not UTF-8 written as ``\\xNN``."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")
