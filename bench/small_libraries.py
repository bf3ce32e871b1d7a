"""Small libraries for fitting and reporting the relevance decision where the unknown-word rule
has faded out (``kbapp.search.relevance.MARGIN_ALONE``).

The development sets are each one large library, so they cannot show how the decision behaves in
a library of a few documents, where a missing word says little and the margins must do the work
alone. Each small library here holds the documents that answer 8 consecutive questions of a text
development set plus 4 other documents drawn at random (seeded), imported and embedded with the
default model pack. Beside each library, ``<name>.questions.jsonl`` holds its 8 questions.

12 libraries come from ``scifact_train_en`` (English abstracts, 2,000-5,000 keyword terms) and 12
from ``drcd_zh_tw`` (Chinese articles, 10,000-37,000). ``bench/calibrate_relevance.py --small DIR``
asks each its own questions and the out-of-scope files.

Run:  .venv/bin/python bench/small_libraries.py [--out bench/.cache/small_libraries]
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
LIBRARIES = 12  # per set
QUESTIONS = 8  # per library
OTHERS = 4  # documents per library that answer none of its questions
SEED = 7


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
            folder = out / "docs" / label
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            for doc_id in sorted(chosen):
                shutil.copyfile(EVAL / name / "docs" / f"{doc_id}.txt", folder / f"{doc_id}.txt")
            shutil.rmtree(out / label, ignore_errors=True)
            with KnowledgeBase(out / label) as kb:
                report = kb.import_paths([folder])
                if not report.ok:
                    raise RuntimeError(f"{label}: import failed: {report}")
                kb.embed_pending()
            lines = "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in asked)
            (out / f"{label}.questions.jsonl").write_text(lines, encoding="utf-8")
            print(f"{label}: {len(chosen)} documents, {len(asked)} questions", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / ".cache" / "small_libraries")
    build(ap.parse_args().out)


if __name__ == "__main__":
    main()
