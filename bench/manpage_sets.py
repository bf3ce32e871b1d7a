"""A cross-language retrieval check on data no constant was fitted on: Linux manual pages.

Debian's ``manpages-zh`` package holds Chinese translations of manual pages whose English
originals are installed on this machine. Their one-line ``NAME`` descriptions ("cp - copy files
and directories" / "cp - 复制文件和目录") make questions whose answer is known: the page of that
command. The commands are split in two halves by a hash of their name; the library holds the
English pages of one half and the Chinese pages of the other, so every question has text in both
languages beside it that does not answer it, on the same subject (Linux commands). Four
question groups come out, each a set folder for ``run_eval.py`` sharing one ``docs/``:

- ``zh_en``: Chinese descriptions of the commands whose page is in English (the hard case);
- ``en_zh``: English descriptions of the commands whose page is in Chinese;
- ``en_en`` and ``zh_zh``: the same-language controls.

The command's own name is never in a question (only the words after "-"), descriptions shared by
two commands are dropped, and each set carries ``bench/data/oos_heldout.jsonl`` as its
out-of-scope questions. Run:

    apt-get download manpages-zh && dpkg-deb -x manpages-zh_*.deb /tmp/manpages-zh
    .venv/bin/python bench/manpage_sets.py /tmp/manpages-zh OUT
    python3 ../shared/eval/run_eval.py --set OUT/zh_en --keep-data DATA --kbapp ...
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGLISH_MAN = Path("/usr/share/man")
SECTIONS = ("1", "5", "8")
NAME_HEADINGS = {"NAME", "名称", "名字", "名 称"}
MAX_PAGES_PER_HALF = 150  # keeps embedding the library within minutes on 2 cores
RENDER_SECONDS = 20


def name_line(source: str) -> tuple[list[str], str] | None:
    """The commands and the description of a page's NAME section, from its roff source."""
    lines = source.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(".SH") and line[3:].strip().strip('"') in NAME_HEADINGS:
            for entry in lines[i + 1 : i + 4]:
                if entry.startswith((".", "'")) or not entry.strip():
                    continue
                entry = re.sub(r"\\f[BIRP]|\\&", "", entry)
                entry = re.sub(r"\\\((lq|rq)", '"', entry)
                entry = re.sub(r"\\\*\(Aq|\\'", "'", entry)
                entry = re.sub(r"\\\(..", " ", entry)
                parts = re.split(r"\s+\\?-+\s+", entry, maxsplit=1)
                if len(parts) != 2:
                    return None
                names = [n.strip() for n in parts[0].replace("\\-", "-").split(",")]
                return names, parts[1].replace("\\-", "-").strip()
    return None


def render(path: Path) -> str | None:
    """The page as ``man`` prints it to a terminal, without overstrikes; None when troff does
    not finish (one translated page sends it into a loop)."""
    env = dict(os.environ, MANWIDTH="90", LC_ALL="C.UTF-8", MAN_KEEP_FORMATTING="0")
    try:
        shown = subprocess.run(
            ["man", "-E", "UTF-8", "-l", str(path)],
            capture_output=True,
            env=env,
            check=True,
            timeout=RENDER_SECONDS,
        ).stdout
    except subprocess.SubprocessError:
        return None
    return subprocess.run(["col", "-bx"], input=shown, capture_output=True, check=True).stdout.decode()


def usable(description: str, names: list[str], chinese: bool) -> bool:
    """Long enough to be a question, and not naming the command it asks about."""
    if any(name and name.lower() in description.lower() for name in names):
        return False
    if chinese:
        return sum("\u4e00" <= c <= "\u9fff" for c in description) >= 4
    return len(description.split()) >= 3


def pairs(zh_root: Path) -> list[dict]:
    """Pages present in both languages with a usable description in each."""
    found = []
    for section in SECTIONS:
        for zh_path in sorted((zh_root / "usr/share/man/zh_CN" / f"man{section}").glob("*.gz")):
            en_path = ENGLISH_MAN / f"man{section}" / zh_path.name
            if not en_path.is_file():
                continue
            zh = name_line(gzip.decompress(zh_path.read_bytes()).decode("utf-8", "replace"))
            en = name_line(gzip.decompress(en_path.read_bytes()).decode("utf-8", "replace"))
            if not zh or not en:
                continue
            names = sorted(set(zh[0]) | set(en[0]))
            if usable(zh[1], names, True) and usable(en[1], names, False):
                page = zh_path.name.removesuffix(".gz")
                found.append({"page": page, "zh": zh_path, "en": en_path, "zh_text": zh[1], "en_text": en[1]})
    # a description two commands share cannot point at one page
    for lang in ("zh_text", "en_text"):
        counts: dict[str, int] = {}
        for p in found:
            counts[p[lang]] = counts.get(p[lang], 0) + 1
        found = [p for p in found if counts[p[lang]] == 1]
    return found


def write_half(found: list[dict], which: int, lang: str, docs: Path) -> list[dict]:
    """Render the ``lang`` pages of one half of the commands into ``docs``; the ones written."""
    written = []
    for p in found:
        if hashlib.sha256(p["page"].encode()).digest()[0] % 2 != which:
            continue
        text = render(p[lang])
        if text:
            (docs / f"{lang}_{p['page']}.txt").write_text(text, encoding="utf-8")
            written.append(p)
        if len(written) == MAX_PAGES_PER_HALF:
            break
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("manpages_zh", type=Path, help="where manpages-zh's .deb was extracted")
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    found = pairs(args.manpages_zh)
    docs = args.out / "docs"
    shutil.rmtree(args.out, ignore_errors=True)
    docs.mkdir(parents=True)
    english = write_half(found, 0, "en", docs)
    chinese = write_half(found, 1, "zh", docs)
    groups = {
        "zh_en": [(p, "zh_text", "en") for p in english],
        "en_zh": [(p, "en_text", "zh") for p in chinese],
        "en_en": [(p, "en_text", "en") for p in english],
        "zh_zh": [(p, "zh_text", "zh") for p in chinese],
    }
    for group, items in groups.items():
        folder = args.out / group
        folder.mkdir()
        (folder / "docs").symlink_to(docs.resolve())
        with (
            open(folder / "queries.jsonl", "w", encoding="utf-8") as queries,
            open(folder / "qrels.tsv", "w", encoding="utf-8") as qrels,
        ):
            for n, (p, field, lang) in enumerate(items, 1):
                qid = f"{group}_{n:03d}"
                queries.write(json.dumps({"id": qid, "text": p[field]}, ensure_ascii=False) + "\n")
                qrels.write(f"{qid}\t{lang}_{p['page']}\t1\n")
        shutil.copy(ROOT / "bench/data/oos_heldout.jsonl", folder / "oos_queries.jsonl")
    print(f"{len(english)} English pages, {len(chinese)} Chinese pages in {docs}")
    for group, items in groups.items():
        print(f"{group}: {len(items)} questions")


if __name__ == "__main__":
    main()
