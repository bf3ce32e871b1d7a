"""PyMuPDF, imported without its automatic layout analyser and Markdown helpers.

PyMuPDF 2.x depends on pymupdf_layout and imports it as a side effect of ``import pymupdf``; that
builds an ONNX layout model, which costs about half a second per process. It also imports
pymupdf4llm when installed (for its ``to_markdown`` shortcuts), which brings numpy along: another
0.15 s. The PDF reader uses neither (it does its own reading order and ruled-table detection and
never calls ``find_tables`` or ``to_markdown``), and import time counts against the import budget
(every parse worker pays it), so both automatic imports are skipped. Only the automatic ones: an
explicit ``import pymupdf.layout`` or ``import pymupdf4llm`` afterwards still works for code that
wants them. If PyMuPDF was already imported elsewhere, nothing changes.
"""

from __future__ import annotations

import sys

_OPTIONAL = ("pymupdf.layout", "pymupdf4llm")
_skipped = [] if "pymupdf" in sys.modules else [name for name in _OPTIONAL if name not in sys.modules]
for _name in _skipped:
    sys.modules[_name] = None  # type: ignore[assignment]  # PyMuPDF reads the ImportError as "not installed"
try:
    import pymupdf
finally:
    for _name in _skipped:
        if sys.modules.get(_name, sys) is None:
            del sys.modules[_name]

__all__ = ["pymupdf"]
