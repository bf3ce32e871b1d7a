"""Fit and report the constants of the relevance decision (``kbapp.search.relevance``) on
held-apart data.

Every question is searched in hybrid mode with the decision recorded, not applied: whether a
result covers enough of its keywords, per language pool its best cosine minus its best everyday
cosine, and how many of its words the library knows (``kbapp.search.vocabulary``).

Questions are split by the parity of the number their id ends in. The odd ones fit the constants
on a grid: the gate that refuses the largest share of out-of-scope questions (the worse of the
out-of-scope groups counts) while answering at least ``--keep`` of the answerable questions of
every set; among equals the one that answers the most. The even ones, and every ``--report``
group, are only scored with it. Printed: answered (answerable questions kept) and refused
(out-of-scope questions that get nothing) per group and part, for the fitted and the shipped gate.

Run (one ``--group`` per library and question file; KIND is ``answerable`` or ``oos``):
    .venv/bin/python bench/calibrate_relevance.py \\
        --group DATA_DIR queries.jsonl answerable --group DATA_DIR oos.jsonl oos \\
        [--report DATA_DIR held_out_oos.jsonl oos ...]
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kbapp.library import KnowledgeBase
from kbapp.search import relevance, searcher
from kbapp.search.vocabulary import Vocabulary


@dataclass
class Group:
    """One library's questions, one array entry per question."""

    name: str
    answerable: bool
    ids: np.ndarray
    odd: np.ndarray  # the id ends in an odd number: used for fitting
    covered: np.ndarray  # a result covers enough keywords
    same: np.ndarray  # best (cosine - everyday cosine) over the pools in the question's language
    cross: np.ndarray  # ... over the pools in the other language
    unknown: np.ndarray  # some word of the question is unknown to the library
    share: np.ndarray  # share of its words unknown to the library


def collect(kb: KnowledgeBase, path: Path, name: str, answerable: bool) -> Group:
    rows: list[tuple[str, bool, bool, float, float, bool, float]] = []
    current: dict[str, str] = {}

    def spy(results, best, everyday, query, words: Vocabulary):  # type: ignore[no-untyped-def]
        covered = any(r.why.get("keyword_coverage", 0.0) >= relevance.COVERAGE_FLOOR for r in results)
        margins = {True: -1.0, False: -1.0}
        for script, sim in best.items():
            margins[script == query] = max(margins[script == query], sim - everyday[script])
        rows.append(
            (
                current["id"],
                odd(current["id"]),
                covered,
                margins[True],
                margins[False],
                bool(words.unknown) and not words.known_code,
                words.unknown_share,
            )
        )
        return True

    searcher.relevant = spy
    for line in path.read_text(encoding="utf-8").splitlines():
        query = json.loads(line)
        current["id"] = query["id"]
        kb.search(query["text"], k=10, mode="hybrid")
    columns = [np.array(c) for c in zip(*rows, strict=True)]
    return Group(name, answerable, *columns)


@dataclass(frozen=True)
class Gate:
    margin: tuple[float, float]  # (same language, cross-language)
    unknown_share: float
    close: tuple[float, float]

    @classmethod
    def shipped(cls) -> Gate:
        return cls(
            (relevance.MARGIN[True], relevance.MARGIN[False]),
            relevance.UNKNOWN_SHARE,
            (relevance.CLOSE[True], relevance.CLOSE[False]),
        )


def kept(group: Group, gate: Gate) -> np.ndarray:
    """The decision of ``relevance.relevant`` for each question of ``group``, on recorded signals."""
    flagged = group.unknown & (group.share >= gate.unknown_share)
    same = np.where(flagged, gate.close[0], gate.margin[0])
    cross = np.where(flagged, gate.close[1], gate.margin[1])
    return group.covered | (group.same >= same) | (group.cross >= cross)


def rate(group: Group, gate: Gate, part: bool | str | None) -> float:
    """Share of the group's questions (odd, even, all, or those whose id holds ``part``) the
    gate gets right."""
    if isinstance(part, str):
        rows = np.array([part in qid for qid in group.ids])
    else:
        rows = np.ones_like(group.odd) if part is None else group.odd == part
    right = kept(group, gate) == group.answerable
    return float(right[rows].mean()) if rows.any() else float("nan")


def fit(groups: list[Group], keep: float) -> Gate:
    margins = [round(0.01 * i, 2) for i in range(0, 9)]
    shares = [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5]
    closes = [round(0.06 + 0.01 * i, 2) for i in range(0, 9)] + [9.0]
    answerable = [g for g in groups if g.answerable]
    oos = [g for g in groups if not g.answerable]
    best: tuple[tuple[float, float, float], Gate] | None = None
    for same, cross, share, close_same, close_cross in itertools.product(
        margins, margins, shares, closes, closes
    ):
        if close_same < same or close_cross < cross:
            continue
        gate = Gate((same, cross), share, (close_same, close_cross))
        kept_rates = [rate(g, gate, True) for g in answerable]
        if min(kept_rates) < keep:
            continue
        refused = [rate(g, gate, True) for g in oos]
        key = (min(refused), sum(refused), sum(kept_rates))
        if best is None or key > best[0]:
            best = (key, gate)
    assert best is not None, f"no gate keeps {keep:.0%} of every answerable set"
    return best[1]


def odd(qid: str) -> bool:
    digits = re.findall(r"\d+", qid)
    return bool(digits) and int(digits[-1]) % 2 == 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--group", nargs=3, action="append", required=True, metavar=("LIB", "QUESTIONS", "KIND"))
    ap.add_argument("--report", nargs=3, action="append", default=[], metavar=("LIB", "QUESTIONS", "KIND"))
    ap.add_argument("--keep", type=float, default=0.99, help="share of answerable questions to keep")
    args = ap.parse_args()
    libraries: dict[str, KnowledgeBase] = {}

    def load(specs: list[list[str]]) -> list[Group]:
        out = []
        for lib, questions, kind in specs:
            if lib not in libraries:
                libraries[lib] = KnowledgeBase(Path(lib))
                libraries[lib].load_model()
            name = f"{Path(lib).name}/{Path(questions).stem}"
            out.append(collect(libraries[lib], Path(questions), name, kind == "answerable"))
        return out

    groups, reports = load(args.group), load(args.report)
    fitted = fit(groups, args.keep)
    print(f"fitted on odd ids: {fitted}")
    print(f"shipped:           {Gate.shipped()}")
    for gate, label in ((fitted, "fitted"), (Gate.shipped(), "shipped")):
        print(f"\n[{label}]  answered (answerable) or refused (oos): odd (fit) | even | all")
        for g in groups:
            parts = " | ".join(f"{rate(g, gate, p):.3f}" for p in (True, False, None))
            print(f"  {g.name:45s} {'answered' if g.answerable else 'refused '} {parts}")
        for g in reports:
            parts = " | ".join(f"{p} {rate(g, gate, p):.3f}" for p in ("_latin_", "_cjk_"))
            print(f"  {g.name + ' (held out)':45s} {'answered' if g.answerable else 'refused '} {parts}")
    for kb in libraries.values():
        kb.close()


if __name__ == "__main__":
    main()
