"""OCR quality and speed on the two development manuals, scanned: CER, pages/s, and page-hit@5.

1. ``rasterise``: every page of ``sdccman.pdf`` (English) and ``exam-zh-doc.pdf`` (Chinese) is
   rendered at 150 dpi into an image-only PDF (no text layer) under ``bench/data/ocr/`` (git-ignored),
   next to copies of the eval sets whose ``docs/`` hold the scans.
2. ``quality``: a sample of scanned pages is OCR'd with 2 threads; the character error rate against
   the original text layer (whitespace-free, NFKC) is printed for the English and the Chinese pages
   separately, with pages/s, the process's CPU seconds per page and the 1-minute load average (other
   work on a 2-core machine moves pages/s by 2x; compare runs made back to back). With the default
   ``--every 4`` the sample is page numbers 1, 5, 9, ...; OCR constants are fitted on other pages
   (3, 11, 19, ...), so these figures are held out. Both texts are put in row order first (lines
   sorted top to bottom, side-by-side lines left to right), so the CER measures recognition, not
   the reading order of tables and two-column index pages; the CER in the text layer's own order
   is printed beside it, and the CER outside the original's raster pictures (screenshots: OCR
   reads text there that no text layer holds, so both sides leave those regions out of that figure),
   and that figure again counting only the text layer's upright lines (the engine reads upright
   lines; the one page sampled with tilted text is the Chinese manual's cover, whose backdrop is an
   exam sheet set at an angle, its text layer partly mojibake).
3. ``pagehit``: ``run_eval.py --mode hybrid`` scores the same questions on the original and on the
   scanned copy of the set; page-hit@5 per question group, and scanned / original per language.

Run:  .venv/bin/python bench/bench_ocr.py [--every 4] [--skip-eval]
      .venv/bin/python bench/bench_ocr.py --library bench/data/ocr/kb-mixed-scanned   (CER of every
      page an import OCR'd, from the text and line boxes the library stored, and how many of the
      text layer's headings ``kbapp.ocr.headings`` finds on those lines: odd pages, where its
      constants were fitted, and even pages, held out)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import unicodedata
from pathlib import Path

import pymupdf

from kbapp.ingest import parse_file
from kbapp.ingest.document import BlockKind
from kbapp.ocr.cer import comparable, edit_distance
from kbapp.ocr.engine import Line, OcrEngine, OcrPage
from kbapp.ocr.geometry import Box
from kbapp.ocr.headings import heading_levels
from kbapp.ocr.raster import OCR_DPI, render_page

ROOT = Path(__file__).resolve().parents[1]
EVAL = Path(os.environ.get("KBAPP_EVAL_DIR", "/work/shared/eval"))
OUT = ROOT / "bench" / "data" / "ocr"
SETS = {"manuals_pdf_dev": EVAL / "manuals_pdf_dev", "manuals_mixed_dev": EVAL / "manuals_mixed_dev"}
LANGUAGE = {"sdccman.pdf": "en", "exam-zh-doc.pdf": "zh"}
TARGETS = {"en": 0.03, "zh": 0.05}


def rasterise(source: Path, dest: Path) -> Path:
    """An image-only copy of ``source``: what a 150 dpi scanner would have produced, page size kept."""
    if dest.exists() and dest.stat().st_mtime >= source.stat().st_mtime:
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    with pymupdf.open(source) as original, pymupdf.open() as scanned:
        for page in original:
            pix = page.get_pixmap(dpi=OCR_DPI, colorspace=pymupdf.csGRAY, alpha=False)
            blank = scanned.new_page(width=page.rect.width, height=page.rect.height)
            blank.insert_image(blank.rect, pixmap=pix)
        partial = dest.with_suffix(".partial")
        scanned.save(partial, deflate=True, garbage=3)
    partial.replace(dest)
    return dest


def scanned_set(name: str) -> Path:
    """A copy of the eval set whose ``docs/`` PDFs are replaced by their scans."""
    source, copy = SETS[name], OUT / name
    (copy / "docs").mkdir(parents=True, exist_ok=True)
    for item in source.iterdir():
        if item.is_file():
            shutil.copy2(item, copy / item.name)
    for pdf in (source / "docs").glob("*.pdf"):
        rasterise(pdf, OUT / "scans" / pdf.name)
        shutil.copy2(OUT / "scans" / pdf.name, copy / "docs" / pdf.name)
    return copy


Row = tuple[float, float, float, str]  # x0, y0, y1, text


def in_rows(lines: list[Row]) -> str:
    """Lines sorted into rows (vertical centres within half a line height) and left to right in a row."""
    ordered = sorted(lines, key=lambda line: (line[1] + line[2]) / 2)
    rows: list[list[Row]] = []
    for line in ordered:
        centre, height = (line[1] + line[2]) / 2, line[2] - line[1]
        if rows and abs(centre - (rows[-1][0][1] + rows[-1][0][2]) / 2) < height / 2:
            rows[-1].append(line)
        else:
            rows.append([line])
    return "\n".join(line[3] for row in rows for line in sorted(row))


def text_layer_rows(
    page: pymupdf.Page, outside: list[pymupdf.Rect] | None = None, upright: bool = False
) -> str:
    """The text layer in row order; with ``outside``, only lines whose centre is in none of those
    rects; with ``upright``, only lines written left to right along the page (see ``quality``)."""
    lines = []
    for block in page.get_text("dict")["blocks"]:
        for line in block.get("lines", []):
            if upright and not _horizontal(line["dir"]):
                continue
            text = "".join(span["text"] for span in line["spans"])
            x0, y0, x1, y1 = line["bbox"]
            if outside is None or not _inside((x0 + x1) / 2, (y0 + y1) / 2, outside):
                lines.append((x0, y0, y1, text))
    return in_rows(lines)


def _horizontal(direction: tuple[float, float]) -> bool:
    return direction[0] > 0 and abs(direction[1]) < 1e-3


def pictures(page: pymupdf.Page) -> list[pymupdf.Rect]:
    """Where the original page shows raster images (screenshots, photos): text there is in no text layer."""
    return [pymupdf.Rect(info["bbox"]) for info in page.get_image_info()]


def _inside(x: float, y: float, rects: list[pymupdf.Rect]) -> bool:
    return any(rect.x0 <= x <= rect.x1 and rect.y0 <= y <= rect.y1 for rect in rects)


def quality(engine: OcrEngine, every: int) -> dict[str, dict[str, float]]:
    totals: dict[str, dict[str, float]] = {}
    for name, language in LANGUAGE.items():
        original_path = SETS["manuals_mixed_dev"] / "docs" / name
        scan_path = rasterise(original_path, OUT / "scans" / name)
        edits = chars = pages = raw_edits = text_edits = text_chars = upright_edits = upright_chars = 0
        seconds = cpu = 0.0
        worst: list[tuple[float, int]] = []
        with pymupdf.open(original_path) as original, pymupdf.open(scan_path) as scanned:
            for number in range(0, len(original), every):
                truth = comparable(text_layer_rows(original[number]))
                if not truth:
                    continue
                started, cpu_started = time.perf_counter(), time.process_time()
                image, scale = render_page(scanned[number])
                page = engine.read(image)
                seconds += time.perf_counter() - started
                cpu += time.process_time() - cpu_started
                ocr_rows = in_rows([(ln.box.x0, ln.box.y0, ln.box.y1, ln.text) for ln in page.lines])
                distance = edit_distance(comparable(ocr_rows), truth)
                # Beside it: the CER outside the original's raster pictures, where the text layer has
                # no text for what OCR reads (a screenshot of a web page, say). Both sides drop them.
                rects = pictures(original[number])
                hidden = [rect * scale for rect in rects]
                shown = [ln for ln in page.lines if not _inside(*_centre(ln.box), hidden)]
                text_truth = comparable(text_layer_rows(original[number], rects))
                text_rows = comparable(in_rows([(ln.box.x0, ln.box.y0, ln.box.y1, ln.text) for ln in shown]))
                text_edits += edit_distance(text_rows, text_truth)
                text_chars += len(text_truth)
                # And without the text layer's tilted lines: the Chinese manual's cover has a faint
                # exam sheet set at an angle behind its title, whose text layer is partly mojibake
                # (fonts without a Unicode map); the engine reads upright lines only.
                upright_truth = comparable(text_layer_rows(original[number], rects, upright=True))
                upright_edits += edit_distance(text_rows, upright_truth)
                upright_chars += len(upright_truth)
                raw_edits += edit_distance(comparable(page.text), comparable(original[number].get_text()))
                edits, chars, pages = edits + distance, chars + len(truth), pages + 1
                worst.append((distance / len(truth), number + 1))
        worst.sort(reverse=True)
        totals[language] = {"pages": pages, "cer": edits / chars, "seconds": seconds}
        print(
            f"{name:16} {language}  {pages:3d} pages  CER {edits / chars:6.2%} "
            f"(target <= {TARGETS[language]:.0%}; {text_edits / max(1, text_chars):.2%} outside pictures, "
            f"{upright_edits / max(1, upright_chars):.2%} of their upright lines; "
            f"{raw_edits / chars:.2%} in text-layer order)  {pages / seconds:5.2f} pages/s "
            f"({cpu / pages:.2f} CPU-s/page; load {os.getloadavg()[0]:.2f})  worst: "
            + ", ".join(f"p{number} {rate:.1%}" for rate, number in worst[:3])
        )
    return totals


def _centre(box: Box) -> tuple[float, float]:
    return (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2


def library_cer(data_dir: Path) -> None:
    """CER of every page an import OCR'd into the library at ``data_dir`` (what search actually sees)."""
    from kbapp.library import KnowledgeBase

    with KnowledgeBase(data_dir, pack_dir=None, parse_limits=None) as kb:
        for doc in kb.documents():
            name = Path(doc.path).name
            texts = dict(kb.pages(doc.id))
            lines = kb.ocr_lines(doc.id)
            edits = chars = 0
            with pymupdf.open(SETS["manuals_mixed_dev"] / "docs" / name) as original:
                for number in range(1, len(original) + 1):
                    truth = comparable(text_layer_rows(original[number - 1]))
                    text = texts.get(number, "")
                    rows = [
                        (x0, y0, y1, text[offset : offset + length])
                        for offset, length, x0, y0, _x1, y1, _edges in json.loads(lines.get(number, "[]"))
                    ]
                    edits += edit_distance(comparable(in_rows(rows)), truth)
                    chars += len(truth)
            language = LANGUAGE.get(name, "?")
            print(
                f"{name:16} {language}  all {len(texts)} OCR'd pages  CER {edits / max(1, chars):6.2%} "
                f"(target <= {TARGETS.get(language, 0):.0%})"
            )
            found = heading_hits(SETS["manuals_mixed_dev"] / "docs" / name, texts, lines)
            for part, (hits, headings, wrong) in zip(
                ("odd pages (fit)", "even pages (held out)"), found, strict=True
            ):
                print(
                    f"{'':16} {language}  headings on {part}: {hits} of {headings} text-layer heading lines "
                    f"found, {wrong} other lines taken for headings"
                )


def heading_hits(original: Path, texts: dict[int, str], lines: dict[int, str]) -> list[tuple[int, int, int]]:
    """(found, text-layer heading lines, other lines marked) on odd and on even pages. An OCR line
    of 3+ characters is a heading line when it spells at least 60 % of one of the page's text-layer
    headings (the detector may box a section number apart from its title)."""
    truth = {
        page.number: [key(page.text[b.start : b.end]) for b in page.blocks if b.kind is BlockKind.HEADING]
        for page in parse_file(original).pages
    }
    with pymupdf.open(original) as document:
        height = document[0].rect.height
    counts = [[0, 0, 0], [0, 0, 0]]
    for number, stored in lines.items():
        rows = json.loads(stored)
        ocr_lines = [
            Line(texts[number][offset : offset + length], Box(x0, y0, x1, y1), 1.0, ())
            for offset, length, x0, y0, x1, y1, _edges in rows
        ]
        marked = heading_levels(OcrPage(0, int(height), ocr_lines))
        tally = counts[number % 2 == 0]
        for index, line in enumerate(ocr_lines):
            spelled = key(line.text)
            if len(spelled) < 3:
                continue
            heading = any(spelled in h and len(spelled) >= 0.6 * len(h) for h in truth.get(number, []))
            tally[0] += heading and index in marked
            tally[1] += heading
            tally[2] += not heading and index in marked
    return [(odd_or_even[0], odd_or_even[1], odd_or_even[2]) for odd_or_even in counts]


def key(text: str) -> str:
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", text).lower())


def page_hits(set_dir: Path, label: str) -> dict[str, dict[str, float]]:
    out = OUT / "results" / f"{set_dir.name}-{label}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    kbapp = f"{sys.executable} -m kbapp.cli.main"
    command = [sys.executable, str(EVAL / "run_eval.py"), "--set", str(set_dir), "--kbapp", kbapp]
    command += ["--mode", "hybrid", "--json-out", str(out), "--timeout", "7200"]
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    print(f"  {set_dir.name} ({label}) scored in {time.perf_counter() - started:.0f} s")
    return json.loads(out.read_text(encoding="utf-8")).get("metrics_by_group", {})


def by_language(groups: dict[str, dict[str, float]]) -> dict[str, float]:
    result = {}
    for language in ("en", "zh"):
        rows = [(m["page_hit@5"], m["n"]) for g, m in groups.items() if g.endswith(f"_{language}")]
        count = sum(n for _, n in rows)
        result[language] = sum(hit * n for hit, n in rows) / count if count else float("nan")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=int, default=4, help="OCR every Nth page for CER (1 = all)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--sets", nargs="+", default=["manuals_mixed_dev"], choices=sorted(SETS))
    parser.add_argument("--skip-eval", action="store_true", help="CER and pages/s only")
    parser.add_argument("--library", type=Path, help="only: CER of all pages OCR'd into this library")
    args = parser.parse_args()
    if args.library:
        library_cer(args.library)
        return
    totals = quality(OcrEngine(threads=args.threads), args.every)
    pages = sum(t["pages"] for t in totals.values())
    print(
        f"overall {pages / sum(t['seconds'] for t in totals.values()):.2f} pages/s at {OCR_DPI} dpi, "
        f"{args.threads} threads (target >= 1)"
    )
    if args.skip_eval:
        return
    for name in args.sets:
        original = by_language(page_hits(SETS[name], "original"))
        scanned_groups = page_hits(scanned_set(name), "scanned")
        scanned = by_language(scanned_groups)
        for group, metrics in sorted(scanned_groups.items()):
            print(f"  {group:10} n={metrics['n']:3d}  scanned page-hit@5 {metrics['page_hit@5']:.3f}")
        for language in ("en", "zh"):
            ratio = scanned[language] / original[language] if original[language] else float("nan")
            print(
                f"{name} {language}: page-hit@5 original {original[language]:.3f}  scanned "
                f"{scanned[language]:.3f}  ratio {ratio:.0%} (target >= 90%)"
            )


if __name__ == "__main__":
    main()
