"""Small libraries for fitting and reporting the relevance decision where the unknown-word rule
has faded out (``kbapp.search.relevance.MARGIN_ALONE``).

The development sets are each one large library, so they cannot show how the decision behaves in
a library of a few documents, where a missing word says little and the margins must do the work
alone. Each small library here holds the documents that answer 8 consecutive questions of a text
development set plus 4 other documents drawn at random (seeded), imported and embedded with the
default model pack. Beside each library, ``<name>.questions.jsonl`` holds its 8 questions.

12 libraries come from ``scifact_train_en`` (English abstracts, 2,000-5,000 keyword terms) and 12
from ``drcd_zh_tw`` (Chinese articles, 10,000-37,000). 9 more come from ``manuals_mixed_dev``, whose
questions ask in one language about a manual in the other as often as not: each holds, as one text
file per page, the pages that answer its 8 questions plus 4 other pages of each manual, so both
languages are always there. ``bench/calibrate_relevance.py --small DIR`` asks each library its own
questions and the out-of-scope files.

With ``--tiny``, 35 libraries of a few pages each instead (the size of the bundled sample
library): the ``manuals_mixed_dev`` pages that answer 2 consecutive questions plus 1 other page of
each manual, as one text file per page. They show the decision where the unknown-word rule has
faded out completely (``kbapp.search.relevance.NEARLY_ALL_UNKNOWN``).

Run:  .venv/bin/python bench/small_libraries.py [--out bench/.cache/small_libraries] [--tiny]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
from collections import defaultdict
from pathlib import Path

from kbapp.library import KnowledgeBase

ROOT = Path(__file__).resolve().parents[1]
EVAL = Path(os.environ.get("KBAPP_EVAL_DIR", "/work/shared/eval"))
SETS = ("scifact_train_en", "drcd_zh_tw")
MANUALS = "manuals_mixed_dev"
LIBRARIES = 12  # per set
QUESTIONS = 8  # per library
OTHERS = 4  # documents per library that answer none of its questions
SEED = 7
TINY_SEED = 11


def _import(out: Path, label: str, folder: Path, asked: list[dict[str, str]]) -> None:
    shutil.rmtree(out / label, ignore_errors=True)
    with KnowledgeBase(out / label) as kb:
        report = kb.import_paths([folder])
        if not report.ok:
            raise RuntimeError(f"{label}: import failed: {report}")
        kb.embed_pending()
    lines = "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in asked)
    (out / f"{label}.questions.jsonl").write_text(lines, encoding="utf-8")
    print(f"{label}: {sum(1 for _ in folder.iterdir())} documents, {len(asked)} questions", flush=True)


def _fresh(folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def build_manual_pages(
    out: Path, rng: random.Random, per_library: int = QUESTIONS, others: int = OTHERS
) -> None:
    """Libraries of ``manuals_mixed_dev`` pages: those answering ``per_library`` consecutive
    questions and ``others`` more of each manual."""
    root = EVAL / MANUALS
    pages = {}
    for line in (root / "pages.jsonl").read_text("utf-8").splitlines():
        page = json.loads(line)
        pages[(page["file"], page["page"])] = page["text"]
    gold: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for line in (root / "qrels_pages.tsv").read_text("utf-8").splitlines():
        qid, file, number = line.split("\t")
        gold[qid].append((file, int(number)))
    questions = [json.loads(line) for line in (root / "queries.jsonl").read_text("utf-8").splitlines()]
    manuals = sorted({file for file, _ in pages})
    for i in range(0, len(questions), per_library):
        asked = questions[i : i + per_library]
        chosen = {key for q in asked for key in gold[q["id"]]}
        for manual in manuals:
            chosen |= set(rng.sample(sorted(key for key in pages if key[0] == manual), others))
        label = f"{MANUALS}_{i // per_library:02d}"
        folder = _fresh(out / "docs" / label)
        for file, number in sorted(chosen):
            (folder / f"{Path(file).stem}_p{number:03d}.txt").write_text(pages[(file, number)], "utf-8")
        _import(out, label, folder, asked)


def build(out: Path) -> None:
    rng = random.Random(SEED)
    for name in SETS:
        questions = [
            json.loads(line) for line in (EVAL / name / "queries.jsonl").read_text("utf-8").splitlines()
        ]
        answers: dict[str, list[str]] = defaultdict(list)
        for line in (EVAL / name / "qrels.tsv").read_text("utf-8").splitlines():
            qid, doc_id, _ = line.split("\t")
            answers[qid].append(doc_id)
        docs = sorted(p.stem for p in (EVAL / name / "docs").glob("*.txt"))
        for i in range(LIBRARIES):
            asked = questions[i * QUESTIONS : (i + 1) * QUESTIONS]
            chosen = {d for q in asked for d in answers[q["id"]]} | set(rng.sample(docs, OTHERS))
            label = f"{name}_{i:02d}"
            folder = _fresh(out / "docs" / label)
            for doc_id in sorted(chosen):
                shutil.copyfile(EVAL / name / "docs" / f"{doc_id}.txt", folder / f"{doc_id}.txt")
            _import(out, label, folder, asked)
    build_manual_pages(out, rng)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / ".cache" / "small_libraries")
    ap.add_argument("--tiny", action="store_true", help="35 libraries of a few manual pages each")
    args = ap.parse_args()
    if args.tiny:
        build_manual_pages(args.out, random.Random(TINY_SEED), per_library=2, others=1)
    else:
        build(args.out)


if __name__ == "__main__":
    main()
