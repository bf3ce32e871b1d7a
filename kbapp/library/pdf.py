"""PyMuPDF for front ends that show the pages of a kept PDF, loaded the way the reader loads it.

The preview draws the very pages the reader read, so it uses the same module, with the same
switch that skips PyMuPDF's automatic layout analyser (``kbapp.ingest.pdf_engine`` says why).
Importing this module loads PyMuPDF: front ends import it when the first PDF is shown.
"""

from __future__ import annotations

from kbapp.ingest.pdf_engine import pymupdf

__all__ = ["pymupdf"]
