"""Cross-language retrieval and refusal on encyclopedia text: XQuAD as ``run_eval.py`` sets.

XQuAD (Artetxe et al., 2020; CC BY-SA 4.0; https://github.com/google-deepmind/xquad) holds 240
paragraphs of 48 English Wikipedia articles with 1,190 questions, each paragraph and question
professionally translated into ten languages, Chinese among them. It is the case issue 11 was
filed on: a library of about 240 English encyclopedia paragraphs asked 1,190 Chinese questions,
half of which were refused. Each paragraph is a document (its article's title, then the
paragraph); a question's answer is its paragraph. Five sets come out, each a folder for
``run_eval.py`` with ``bench/data/oos_heldout.jsonl`` as its out-of-scope questions:

- ``zh_en``: Chinese questions, the English paragraphs (the issue's case);
- ``en_zh``: English questions, the Chinese paragraphs;
- ``en_en`` and ``zh_zh``: the same-language controls (``zh_en``'s and ``en_zh``'s libraries);
- ``mixed``: the English paragraphs of the even-numbered articles beside the Chinese paragraphs of
  the odd-numbered ones, every question asked in both languages (ids ``zhen_``, ``enen_``,
  ``enzh_``, ``zhzh_``: question language, then the answer's).

The cross-language margin's pool-size slope (``relevance.CROSS_SLOPE``) was fitted with these
libraries among others (``bench/calibrate_relevance.py``), on the questions whose id ends in an odd
number; the README reports the even ones. Run:

    git clone https://github.com/google-deepmind/xquad /tmp/xquad-data
    .venv/bin/python bench/xquad_sets.py /tmp/xquad-data OUT
    python3 ../shared/eval/run_eval.py --set OUT/zh_en --keep-data DATA_EN --kbapp .venv/bin/kbapp
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

OUT_OF_SCOPE = Path(__file__).resolve().parent / "data" / "oos_heldout.jsonl"
Keep = Callable[[int], bool]


def _paragraphs(articles: list[dict[str, Any]], keep: Keep) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(document stem, paragraph)`` of the kept articles, by article and paragraph number."""
    for a, article in enumerate(articles):
        if keep(a):
            for p, paragraph in enumerate(article["paragraphs"]):
                yield f"{a:02d}_{p}", paragraph | {"title": article["title"].replace("_", " ")}


def write_set(
    root: Path,
    data: dict[str, list[dict[str, Any]]],
    documents: list[tuple[str, Keep]],
    questions: list[tuple[str, str, Keep]],
) -> None:
    """``documents``: (language, which articles); ``questions``: (question language, answer
    language, which articles). XQuAD's languages share paragraph order and question ids."""
    if root.exists():
        shutil.rmtree(root)
    (root / "docs").mkdir(parents=True)
    for language, keep in documents:
        for stem, paragraph in _paragraphs(data[language], keep):
            text = f"{paragraph['title']}\n\n{paragraph['context']}\n"
            (root / "docs" / f"{language}_{stem}.txt").write_text(text, encoding="utf-8")
    with (
        (root / "queries.jsonl").open("w", encoding="utf-8") as queries,
        (root / "qrels.tsv").open("w", encoding="utf-8") as qrels,
        (root / "answers.jsonl").open("w", encoding="utf-8") as answers,
    ):
        for asked, answer, keep in questions:
            answered_in = dict(_paragraphs(data[answer], keep))
            for stem, paragraph in _paragraphs(data[asked], keep):
                spans = {qa["id"]: qa["answers"] for qa in answered_in[stem]["qas"]}
                for qa in paragraph["qas"]:
                    qid = f"{asked}{answer}_{qa['id']}"
                    queries.write(json.dumps({"id": qid, "text": qa["question"]}, ensure_ascii=False) + "\n")
                    qrels.write(f"{qid}\t{answer}_{stem}\t1\n")
                    texts = [span["text"] for span in spans[qa["id"]]]
                    answers.write(
                        json.dumps({"query_id": qid, "answer_texts": texts}, ensure_ascii=False) + "\n"
                    )
    shutil.copyfile(OUT_OF_SCOPE, root / "oos_queries.jsonl")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("xquad", type=Path, help="a folder holding xquad.en.json and xquad.zh.json")
    ap.add_argument("out", type=Path)
    args = ap.parse_args()
    data = {
        language: json.loads((args.xquad / f"xquad.{language}.json").read_text(encoding="utf-8"))["data"]
        for language in ("en", "zh")
    }

    def every(_: int) -> bool:
        return True

    def even(a: int) -> bool:
        return a % 2 == 0

    def odd(a: int) -> bool:
        return a % 2 == 1

    write_set(args.out / "zh_en", data, [("en", every)], [("zh", "en", every)])
    write_set(args.out / "en_en", data, [("en", every)], [("en", "en", every)])
    write_set(args.out / "en_zh", data, [("zh", every)], [("en", "zh", every)])
    write_set(args.out / "zh_zh", data, [("zh", every)], [("zh", "zh", every)])
    write_set(
        args.out / "mixed",
        data,
        [("en", even), ("zh", odd)],
        [("zh", "en", even), ("en", "en", even), ("en", "zh", odd), ("zh", "zh", odd)],
    )
    for name in ("zh_en", "en_en", "en_zh", "zh_zh", "mixed"):
        count = sum(1 for _ in (args.out / name / "queries.jsonl").open(encoding="utf-8"))
        print(f"{name}: {len(list((args.out / name / 'docs').iterdir()))} documents, {count} questions")


if __name__ == "__main__":
    main()
