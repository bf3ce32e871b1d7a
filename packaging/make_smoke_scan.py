"""Write ``resources/smoke/scanned_label.png``: a page photo-like scan (no text layer) that the
installers' smoke test imports, so the bundled OCR models and their reader are exercised.

    .venv/bin/python packaging/make_smoke_scan.py

Run again only if the text below changes (the PNG is kept in git: about 30 KB).
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

OUT = Path(__file__).resolve().parents[1] / "resources" / "smoke" / "scanned_label.png"
LINES = [
    ("helv", "SERVICE LABEL - COOLANT PUMP CP-40"),
    ("helv", "Prime the coolant pump before the first start-up."),
    ("china-s", "冷却泵首次启动前必须排气。"),
]
DPI = 150


def main() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=420, height=130)
    for row, (font, text) in enumerate(LINES):
        page.insert_text((24, 36 + row * 32), text, fontname=font, fontsize=14)
    pixmap = page.get_pixmap(dpi=DPI, colorspace=pymupdf.csGRAY)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    pixmap.save(OUT)
    print(f"{OUT}: {pixmap.width}x{pixmap.height}, {OUT.stat().st_size} bytes")


if __name__ == "__main__":
    main()
