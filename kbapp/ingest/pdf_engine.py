"""PyMuPDF, imported without its automatic layout analyser.

PyMuPDF 2.x depends on pymupdf_layout and imports it as a side effect of ``import pymupdf``; that
builds an ONNX layout model, which costs about half a second per process. The PDF reader never
uses it (it does its own reading order and ruled-table detection and never calls
``find_tables``), and import time counts against the import budget, so the automatic activation
is skipped. Only the automatic one: an explicit ``import pymupdf.layout`` afterwards still works
for code that wants the analyser. If PyMuPDF was already imported elsewhere, nothing changes.
"""

from __future__ import annotations

import sys

_LAYOUT = "pymupdf.layout"
_skip_layout = "pymupdf" not in sys.modules and _LAYOUT not in sys.modules
if _skip_layout:
    sys.modules[_LAYOUT] = None  # type: ignore[assignment]  # PyMuPDF reads the ImportError as "not installed"
try:
    import pymupdf
finally:
    if _skip_layout and sys.modules.get(_LAYOUT, sys) is None:
        del sys.modules[_LAYOUT]

__all__ = ["pymupdf"]
