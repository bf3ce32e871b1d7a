"""Fit and report the relevance margins (``kbapp.search.relevance.MARGIN``) on held-apart data.

Each question is searched in hybrid mode with the relevance decision recorded, not applied: per
language pool, its best cosine minus its best everyday cosine in that language, and whether a
result covers enough of its keywords. Questions are split by the parity of the number their id
ends in: the odd ones fit the margins (the largest that still answer every answerable odd
question, with ties kept by keyword coverage), the even ones and any ``--report`` files are only
scored with them. Printed: answered (share of answerable questions kept) and refused (share of
out-of-scope questions that get nothing) on each part.

Run:  .venv/bin/python bench/calibrate_floor.py --lib DATA_DIR --answerable queries.jsonl \\
          --out-of-scope oos_queries.jsonl [--report more_oos.jsonl ...]
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass
from pathlib import Path

from kbapp.library import KnowledgeBase
from kbapp.search import relevance, searcher
from kbapp.text.script import Script


@dataclass
class Signal:
    qid: str
    answerable: bool
    covered: bool
    bridged: float  # best bridge coverage among the results
    margins: dict[bool, float]  # best (cosine - everyday cosine) over the pools, by "same language"


def collect(kb: KnowledgeBase, path: Path, answerable: bool) -> list[Signal]:
    out: list[Signal] = []

    def spy(results, best, everyday, query):  # type: ignore[no-untyped-def]
        covered = any(r.why.get("keyword_coverage", 0.0) >= relevance.COVERAGE_FLOOR for r in results)
        margins = {True: -1.0, False: -1.0}
        for script, sim in best.items():
            same = script == query
            margins[same] = max(margins[same], sim - everyday[script])
        bridged = max((r.why.get("bridge_coverage", 0.0) for r in results), default=0.0)
        out.append(Signal("", answerable, covered, bridged, margins))
        return True

    searcher.relevant = spy
    for line in path.read_text(encoding="utf-8").splitlines():
        query = json.loads(line)
        before = len(out)
        kb.search(query["text"], k=10, mode="hybrid")
        if len(out) > before:
            out[-1].qid = query["id"]
    return out


@dataclass(frozen=True)
class Gate:
    same: float  # margin over everyday text when question and pool share a language
    cross: float  # ... when they do not
    bridge: float  # bridge coverage that answers on words alone

    @classmethod
    def shipped(cls) -> Gate:
        return cls(relevance.MARGIN[True], relevance.MARGIN[False], relevance.BRIDGE_FLOOR)


def kept(s: Signal, gate: Gate) -> bool:
    if s.covered or s.bridged >= gate.bridge:
        return True
    return s.margins[True] >= gate.same or s.margins[False] >= gate.cross


def fit(signals: list[Signal]) -> Gate:
    """The gate, on a grid, that refuses the most out-of-scope questions while keeping every
    answerable one; among equals, margins closest to each other (no language favoured), then the
    highest bridge floor."""
    margins = [round(-0.05 + 0.0025 * i, 4) for i in range(81)]
    bridges = [round(0.05 * i, 2) for i in range(2, 21)]
    answerable = [s for s in signals if s.answerable]
    unanswerable = [s for s in signals if not s.answerable]
    best: tuple[tuple[int, float, float], Gate] | None = None
    for bridge in bridges:
        for same in margins:
            for cross in margins:
                gate = Gate(same, cross, bridge)
                if not all(kept(s, gate) for s in answerable):
                    continue
                key = (sum(not kept(s, gate) for s in unanswerable), -abs(same - cross), bridge)
                if best is None or key > best[0]:
                    best = (key, gate)
    assert best is not None, "no gate keeps every answerable question"
    return best[1]


def score(name: str, signals: list[Signal], gate: Gate) -> None:
    ans = [kept(s, gate) for s in signals if s.answerable]
    oos = [not kept(s, gate) for s in signals if not s.answerable]
    a = f"answered {sum(ans)}/{len(ans)}" if ans else ""
    o = f"refused {sum(oos)}/{len(oos)}" if oos else ""
    print(f"{name:40s} {a:18s} {o}")


def odd(qid: str) -> bool:
    digits = re.findall(r"\d+", qid)
    return bool(digits) and int(digits[-1]) % 2 == 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", type=Path, required=True)
    ap.add_argument("--answerable", type=Path, required=True)
    ap.add_argument("--out-of-scope", type=Path, required=True)
    ap.add_argument("--report", type=Path, nargs="*", default=[], help="out-of-scope questions only scored")
    args = ap.parse_args()
    with KnowledgeBase(args.lib) as kb:
        kb.load_model()
        signals = collect(kb, args.answerable, True) + collect(kb, args.out_of_scope, False)
        reports = {p.name: collect(kb, p, False) for p in args.report}
    fitted = fit([s for s in signals if odd(s.qid)])
    print(f"fitted on odd ids: {fitted}")
    print(f"shipped in kbapp.search.relevance: {Gate.shipped()}")
    for gate, label in ((fitted, "fitted"), (Gate.shipped(), "shipped")):
        score(f"odd ids (fit) [{label}]", [s for s in signals if odd(s.qid)], gate)
        score(f"even ids (held out) [{label}]", [s for s in signals if not odd(s.qid)], gate)
        for name, rows in reports.items():
            for script in Script:
                part = [s for s in rows if s.qid.split("_")[1] == script.value]
                if part:
                    score(f"{name} {script.value} [{label}]", part, gate)


if __name__ == "__main__":
    main()
