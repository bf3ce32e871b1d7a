"""A library no constant was fitted on, asked in both languages: gnuplot's English manual beside
the Chinese Debian Reference, two Debian main packages.

The questions (``bench/data/reference_questions.jsonl``) were written from each manual's table of
contents before any of them was searched. Each names the sections that answer it, by title and
first page as the PDF's outline gives them; its right pages run from a section's first page to the
page where the next section of the same or a higher level starts (that page included, since a
section may end on it). The groups: Chinese questions on the English manual (``gp_zh``), English
questions on the Chinese one (``deb_en``), and the same-language controls (``gp_en``, ``deb_zh``);
some are one word or a command. The out-of-scope questions (``bench/data/reference_oos.jsonl``) are
on subjects neither manual covers. One relevance rule (``search/relevance.py`` ``MOSTLY_UNKNOWN``)
was added after the first 42 of these questions had been searched, so the set is not blind to it.

Run:
    apt-get download gnuplot-doc debian-reference-zh-cn
    for p in gnuplot-doc_*.deb debian-reference-zh-cn_*.deb; do dpkg-deb -x "$p" /tmp/refdocs; done
    .venv/bin/python bench/reference_set.py /tmp/refdocs OUT
    python3 ../shared/eval/run_eval.py --set OUT --kbapp .venv/bin/kbapp --mode hybrid
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pymupdf

DATA = Path(__file__).resolve().parent / "data"
MANUALS = ("gnuplot.pdf", "debian-reference.zh-cn.pdf")


def section_pages(outline: list[list], pages: int, title: str, first: int) -> range:
    """The pages of the outline entry ``title`` starting on ``first`` (1-based), as above."""
    for i, (level, name, page, *_) in enumerate(outline):
        if name == title and page == first:
            later = (p for lvl, _, p, *_ in outline[i + 1 :] if lvl <= level)
            return range(first, max(first, next(later, pages)) + 1)
    raise SystemExit(f"error: no section {title!r} on page {first} in the outline (another version?)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("extracted", type=Path, help="folder the two packages were extracted into")
    parser.add_argument("out", type=Path, help="set folder to write (docs/, queries, page qrels)")
    args = parser.parse_args()
    docs = args.out / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    outlines = {}
    for name in MANUALS:
        found = sorted(args.extracted.rglob(name))
        if not found:
            raise SystemExit(f"error: {name} not found under {args.extracted} (see the Run lines above)")
        shutil.copyfile(found[0], docs / name)
        with pymupdf.open(docs / name) as pdf:
            outlines[name] = (pdf.get_toc(), pdf.page_count)
    with (
        open(args.out / "queries.jsonl", "w", encoding="utf-8") as queries,
        open(args.out / "qrels_pages.tsv", "w", encoding="utf-8") as qrels,
    ):
        for line in (DATA / "reference_questions.jsonl").read_text(encoding="utf-8").splitlines():
            q = json.loads(line)
            queries.write(json.dumps({"id": q["id"], "text": q["text"]}, ensure_ascii=False) + "\n")
            right = {
                page
                for s in q["sections"]
                for page in section_pages(*outlines[q["file"]], s["title"], s["page"])
            }
            qrels.writelines(f"{q['id']}\t{q['file']}\t{page}\n" for page in sorted(right))
    shutil.copyfile(DATA / "reference_oos.jsonl", args.out / "oos_queries.jsonl")


if __name__ == "__main__":
    main()
