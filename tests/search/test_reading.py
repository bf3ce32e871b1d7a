"""A Chinese question's English reading scores English passages, and only those."""

from __future__ import annotations

from pathlib import Path

from kbapp.embedding.pack import ModelPack
from kbapp.library import KnowledgeBase

ENGLISH = [
    "kill - send a signal to a process. The default signal is TERM, which ends the process.",
    "chown - change file owner and group of each given file.",
    "echo - display a line of text on standard output.",
    "uname - print system information such as the kernel name and release.",
    "sleep - delay for a specified amount of time, in seconds by default.",
    "df - report file system disk space usage for each mounted file system.",
]
CHINESE = [
    "ps - 报告当前进程的快照，显示进程号、终端和运行时间。",
    "chmod - 改变文件的访问权限，可以用数字或符号表示权限。",
    "tail - 输出文件的最后部分，默认显示最后十行文本。",
    "who - 显示已经登录的用户，以及登录时间和终端。",
]


def write(folder: Path, name: str, paragraphs: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")


def test_english_passages_are_also_scored_by_the_questions_english_reading(
    tmp_path: Path, default_pack: ModelPack
) -> None:
    docs = tmp_path / "docs"
    write(docs, "commands.txt", ENGLISH)
    write(docs, "命令.txt", CHINESE)
    with KnowledgeBase(tmp_path / "lib", pack_dir=default_pack.path) as kb:
        assert kb.import_paths([docs]).ok
        kb.embed_pending()
        chinese = kb.search("显示一行文本", k=10, mode="dense")
        assert chinese.results
        for r in chinese.results:
            assert ("english_reading" in r.why) == r.path.endswith("commands.txt"), r.why
        assert "echo" in next(r.text for r in chinese.results if r.path.endswith("commands.txt"))
        english = kb.search("display a line of text", k=10, mode="dense")
        assert english.results and not any("english_reading" in r.why for r in english.results)
