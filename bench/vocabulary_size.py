"""How often an answerable question has words its library lacks, by library size: the evidence
for where ``kbapp.search.relevance`` lets the unknown-word rule fade in (``FULL_STRENGTH_TERMS``,
``NO_STRENGTH_TERMS``).

For each question of a text development set, a library is drawn at random around the documents
that answer it (those plus N others), and the question's words are looked up in its keyword
terms exactly as search does (``kbapp.search.vocabulary``). Printed per N: the library's median
size in keyword terms, and the share of answerable questions whose unknown-word share reaches
``UNKNOWN_SHARE`` (what the rule would refuse without a close-enough passage).

Run:  .venv/bin/python bench/vocabulary_size.py ../shared/eval/scifact_train_en [--questions 300]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from collections import Counter, defaultdict
from pathlib import Path

from kbapp.embedding.encoder import Encoder
from kbapp.embedding.pack import default_pack_dir, load_pack
from kbapp.search.relevance import UNKNOWN_SHARE
from kbapp.search.vocabulary import missing, question_words
from kbapp.text.script import Script, script_of
from kbapp.text.terms import index_terms

SIZES = (0, 3, 10, 30, 100, 300, 1000)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("set", type=Path)
    ap.add_argument("--questions", type=int, default=300)
    args = ap.parse_args()
    encoder = Encoder(load_pack(default_pack_dir()))  # Chinese words split as search splits them
    rng = random.Random(1)
    terms: dict[str, Counter[str]] = {}
    scripts: set[Script] = set()
    for line in (args.set / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        text = doc["title"] + "\n" + doc["text"]
        terms[doc["id"]] = Counter(index_terms(text).split())
        scripts.add(script_of(text))
    answers: dict[str, list[str]] = defaultdict(list)
    for line in (args.set / "qrels.tsv").read_text(encoding="utf-8").splitlines():
        qid, doc_id, _ = line.split("\t")
        answers[qid].append(doc_id)
    lines = (args.set / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    questions = [json.loads(line) for line in lines][: args.questions]
    ids = list(terms)
    print(f"{args.set.name}: {len(questions)} questions, unknown share ≥ {UNKNOWN_SHARE}")
    print(f"{'others':>7} {'median terms':>13} {'flagged':>8}")
    for others in SIZES:
        if others >= len(ids):
            break
        sizes, flagged = [], 0
        for q in questions:
            docs = set(answers[q["id"]]) | set(rng.sample(ids, others))
            library: Counter[str] = Counter()
            for doc_id in docs:
                library.update(terms[doc_id])
            sizes.append(sum(library.values()))
            words = question_words(q["text"], frozenset(scripts), encoder.word_boundaries)
            gone = missing(words, defaultdict(int, {t: 1 for t in library}))
            flagged += bool(gone) and len(gone) / len(words) >= UNKNOWN_SHARE
        print(f"{others:>7} {statistics.median(sizes):>13,.0f} {flagged / len(questions):>8.3f}")


if __name__ == "__main__":
    main()
