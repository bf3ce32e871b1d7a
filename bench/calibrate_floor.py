"""Calibrate the relevance floor: per (query script, passage script) pair, how similar the best
passage is for questions the library answers and for everyday questions it cannot answer, and
how many of each the current floors (for this library's size) keep.

For every query, hybrid search runs with the floor switched off and each top result records its
cosine similarity, keyword coverage and script pair. Printed per pair: the lowest best-passage
cosine among answerable questions and the highest among unanswerable ones (the floor belongs
between them), then the share of answerable questions that keep a result and the share of
unanswerable ones refused under the floors in ``kbapp.search.searcher``.

Run:  .venv/bin/python bench/calibrate_floor.py --lib DATA_DIR --in-scope queries.jsonl
          [--out-of-scope bench/data/out_of_scope.jsonl]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from kbapp.library import KnowledgeBase
from kbapp.search import searcher

HERE = Path(__file__).resolve().parent
Row = tuple[float, float, tuple[str, str]]
Signals = tuple[list[Row], dict[str, float]]  # top results; similarity to unrelated text per script


def signals(kb: KnowledgeBase, path: Path, limit: int | None) -> list[Signals]:
    with path.open(encoding="utf-8") as f:
        queries = [json.loads(line)["text"] for line in f if line.strip()][:limit]
    out = []
    for q in queries:
        script = searcher.script_of(q)
        res = kb.search(q, k=10, mode="hybrid")
        rows = [
            (
                r.why.get("similarity", 0.0),
                r.why.get("keyword_coverage", 0.0),
                (script, searcher.script_of(r.text)),
            )
            for r in res.results
        ]
        semantic = kb._searcher.semantic
        assert semantic is not None
        out.append((rows, semantic.unrelated_similarity(semantic.embed(q))))
    return out


def kept(query: Signals, floors: dict[tuple[str, str], float]) -> bool:
    rows, unrelated = query
    return any(
        (sim >= floors[pair] and sim > unrelated[pair[1]]) or cov >= searcher.COVERAGE_FLOOR
        for sim, cov, pair in rows
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", type=Path, required=True)
    ap.add_argument("--in-scope", type=Path, required=True)
    ap.add_argument("--out-of-scope", type=Path, default=HERE / "data" / "out_of_scope.jsonl")
    ap.add_argument("--limit", type=int)
    args = ap.parse_args()
    with KnowledgeBase(args.lib) as kb:
        kb.load_model()
        passages = kb.pending_embeddings() + sum(done for done, _ in kb.embedding_progress().values())
        floors = {pair: searcher.dense_floor(*pair, passages) for pair in searcher.UNRELATED_COSINE}
        searcher.FLOOR_RANGE = (-1.0, -1.0)  # floor off: see every candidate
        inside = signals(kb, args.in_scope, args.limit)
        outside = signals(kb, args.out_of_scope, None)
    print(f"{'pair':14} {'answerable min':>15} {'unanswerable max':>17} {'floor':>6}")
    for pair, floor in floors.items():
        best_in = [
            max(s for s, _, p in rows if p == pair) for rows, _ in inside if any(p == pair for *_, p in rows)
        ]
        best_out = [
            max(s for s, _, p in rows if p == pair) for rows, _ in outside if any(p == pair for *_, p in rows)
        ]
        lo = f"{min(best_in):.3f}" if best_in else "-"
        hi = f"{max(best_out):.3f}" if best_out else "-"
        print(f"{'→'.join(pair):14} {lo:>15} {hi:>17} {floor:6.2f}")
    a = sum(kept(r, floors) for r in inside) / len(inside)
    b = sum(not kept(r, floors) for r in outside) / len(outside)
    print(f"answerable questions keeping a result: {a:.3f}; unanswerable questions refused: {b:.3f}")


if __name__ == "__main__":
    main()
