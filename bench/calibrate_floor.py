"""Calibrate the relevance floor: how many answerable questions keep a result, how many
unanswerable ones are told "nothing relevant", for a grid of thresholds.

For every query, hybrid search runs with the floor switched off; each of the top results
records its cosine similarity and its keyword coverage. A threshold pair (cosine τ, coverage c)
keeps a result when cosine ≥ τ or coverage ≥ c. Printed: the share of in-scope queries that
keep at least one result, and the share of out-of-scope queries that keep none.

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


def signals(kb: KnowledgeBase, path: Path, limit: int | None) -> list[list[tuple[float, float]]]:
    out = []
    with path.open(encoding="utf-8") as f:
        queries = [json.loads(line)["text"] for line in f if line.strip()][:limit]
    for q in queries:
        res = kb.search(q, k=10, mode="hybrid")
        out.append([(r.why.get("similarity", 0.0), r.why.get("keyword_coverage", 0.0)) for r in res.results])
    return out


def kept(rows: list[tuple[float, float]], tau: float, cov: float) -> bool:
    return any(sim >= tau or c >= cov for sim, c in rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", type=Path, required=True)
    ap.add_argument("--in-scope", type=Path, required=True)
    ap.add_argument("--out-of-scope", type=Path, default=HERE / "data" / "out_of_scope.jsonl")
    ap.add_argument("--limit", type=int)
    args = ap.parse_args()
    searcher.DENSE_FLOORS = dict.fromkeys(searcher.DENSE_FLOORS, -1.0)  # floor off: see every candidate
    searcher.COVERAGE_FLOOR = -1.0
    with KnowledgeBase(args.lib) as kb:
        kb.load_model()
        inside = signals(kb, args.in_scope, args.limit)
        outside = signals(kb, args.out_of_scope, None)
    top_in = sorted(max((s for s, _ in rows), default=0) for rows in inside)
    top_out = sorted(max((s for s, _ in rows), default=0) for rows in outside)
    print(f"top-1 cosine, in scope:  p5={top_in[len(top_in) // 20]:.3f} min={top_in[0]:.3f}")
    print(f"top-1 cosine, out:       max={top_out[-1]:.3f} p95={top_out[int(len(top_out) * 0.95)]:.3f}")
    print(f"{'cosine':>7} {'coverage':>9} {'in-scope kept':>14} {'out-of-scope refused':>21}")
    for tau in (0.78, 0.80, 0.82, 0.84, 0.86):
        for cov in (0.4, 0.5, 0.6, 0.7):
            a = sum(kept(r, tau, cov) for r in inside) / len(inside)
            b = sum(not kept(r, tau, cov) for r in outside) / len(outside)
            print(f"{tau:7.2f} {cov:9.1f} {a:14.3f} {b:21.3f}")


if __name__ == "__main__":
    main()
