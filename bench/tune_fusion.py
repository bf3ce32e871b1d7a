"""Tune hybrid fusion (RRF k, per-retriever weight, candidate depth, or a score blend) on a development set.

Each query's keyword and vector rankings, and both retrievers' scores for every candidate, are
computed once from an imported library (as ``run_eval.py --keep-data`` leaves it); the fusion
variants are then replayed on them and scored at chunk level with the same metrics as the
scorer (doc recall/nDCG, answer-hit, page-hit). Adjacent-chunk merging is not replayed, so
absolute numbers differ slightly from run_eval's; the comparison between variants is what this
is for.

Run:  .venv/bin/python bench/tune_fusion.py --set ../shared/eval/drcd_zh_tw --lib DATA_DIR
"""

from __future__ import annotations

import argparse
import json
import math
import re
import unicodedata
from pathlib import Path

from kbapp.library import KnowledgeBase
from kbapp.search.fusion import reciprocal_rank_fusion, score_blend
from kbapp.search.lexical import lexical_search
from kbapp.text.terms import query_terms, quoted_phrases

_CJK_SPACE = re.compile(r"(?<=[\u3400-\u9fff])\s+|\s+(?=[\u3400-\u9fff])")


def norm(s: str) -> str:
    s = " ".join(unicodedata.normalize("NFKC", s).casefold().split())
    return _CJK_SPACE.sub("", s)


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_set(root: Path) -> tuple[list[dict], dict[str, set[str]], dict[str, list[str]], dict[str, set]]:
    queries = read_jsonl(root / "queries.jsonl")
    qrels: dict[str, set[str]] = {}
    for line in (root / "qrels.tsv").read_text().splitlines():
        q, d, *_ = line.split("\t")
        qrels.setdefault(q, set()).add(d)
    answers = {}
    if (root / "answers.jsonl").exists():
        answers = {
            a["query_id"]: [norm(t) for t in a["answer_texts"]] for a in read_jsonl(root / "answers.jsonl")
        }
    pages: dict[str, set] = {}
    if (root / "qrels_pages.tsv").exists():
        for line in (root / "qrels_pages.tsv").read_text().splitlines():
            q, f, p = line.split("\t")
            pages.setdefault(q, set()).add((f, int(p)))
    return queries, qrels, answers, pages


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", type=Path, required=True)
    ap.add_argument("--lib", type=Path, required=True)
    ap.add_argument("--depth", type=int, default=100)
    args = ap.parse_args()
    queries, qrels, answers, gold_pages = load_set(args.set)
    kb = KnowledgeBase(args.lib)
    kb.load_model()
    semantic = kb._searcher.semantic
    assert semantic is not None
    runs = []
    with kb.engine.connect() as conn:
        for q in queries:
            text = q["text"]
            terms = query_terms(text)
            vector = semantic.embed(text)
            den, _ = semantic.retrieve(vector, args.depth)
            # Both retrievers' scores for every candidate, as the searcher completes them.
            also = [c for c, _ in den]
            lex = lexical_search(conn, terms, args.depth, phrases=quoted_phrases(text), also=also)
            bm25, cosine = dict(lex), dict(den)
            lex = lex[: args.depth]
            cosine |= semantic.similarities(vector, [c for c, _ in lex if c not in cosine])
            runs.append((q["id"], lex, den, bm25, cosine))
        info = {}
        for cid, path, page, text in conn.exec_driver_sql(
            "SELECT c.id, d.path, p.number, c.text FROM chunks c JOIN documents d ON d.id = c.document_id "
            "LEFT JOIN pages p ON p.document_id = c.document_id AND p.page_index = c.page_start"
        ):
            info[cid] = (Path(path).stem, Path(path).name, page, norm(text))

    def evaluate(variant) -> dict[str, float]:  # type: ignore[no-untyped-def]
        sums: dict[str, float] = {}
        for qid, lex, den, bm25, cosine in runs:
            ranked = variant(lex, den, bm25, cosine)[:10]
            docs: list[str] = []
            for c in ranked:
                if info[c][0] not in docs:
                    docs.append(info[c][0])
            rel = qrels.get(qid, set())
            m = {
                "R@5": len(rel & set(docs[:5])) / max(1, len(rel)),
                "nDCG@10": sum(1 / math.log2(i + 2) for i, d in enumerate(docs[:10]) if d in rel)
                / sum(1 / math.log2(i + 2) for i in range(min(10, len(rel)))),
            }
            if qid in answers:
                m["ans@5"] = float(any(a in info[c][3] for c in ranked[:5] for a in answers[qid]))
            if qid in gold_pages:
                m["page@5"] = float(any((info[c][1], info[c][2]) in gold_pages[qid] for c in ranked[:5]))
            for key, value in m.items():
                sums[key] = sums.get(key, 0.0) + value
        return {k: v / len(runs) for k, v in sums.items()}

    def ids(hits: list[tuple[int, float]]) -> list[int]:
        return [c for c, _ in hits]

    variants = {"lexical": lambda lex, den, *_: ids(lex), "dense": lambda lex, den, *_: ids(den)}
    for depth in (20, 50, 100):
        for k in (10, 30, 60):
            for wl in (1.0, 1.5, 2.0):
                variants[f"rrf d={depth} k={k} wl={wl}"] = lambda lex, den, *_, d=depth, k=k, wl=wl: [
                    c for c, _ in reciprocal_rank_fusion([ids(lex)[:d], ids(den)[:d]], [wl, 1.0], k)
                ]
        for a in (0.3, 0.4, 0.5, 0.6, 0.65, 0.7):
            variants[f"blend d={depth} a={a}"] = lambda lex, den, bm25, cosine, d=depth, a=a: ids(
                score_blend(lex[:d], den[:d], bm25, cosine, a)
            )
    for name, variant in variants.items():
        metrics = evaluate(variant)
        print(f"{name:28} " + "  ".join(f"{k}={v:.4f}" for k, v in metrics.items()), flush=True)


if __name__ == "__main__":
    main()
