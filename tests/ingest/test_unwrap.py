"""Hard-wrapped plain text and Markdown: wrapped lines joined, deliberate breaks kept."""

from __future__ import annotations

from pathlib import Path

from kbapp.ingest import parse_file
from kbapp.ingest.unwrap import unwrap, wrap_width
from kbapp.library import KnowledgeBase

# Wrapped at 40 characters (80 columns), as a text export of a Chinese manual is: 接地 and 熔断 fall
# across line ends. The last line of the paragraph is short, and a list follows.
CHINESE = (
    "四、接线与保险丝\n\n"
    "传感器接在端子X2的1至8号输入上，公共端接0 V。屏蔽线只在控制柜一端接\n"
    "地，避免形成环路。模块内置保险丝型号为FU-2A（2 A慢熔），若在通电后再次熔\n"
    "断，说明外部存在短路，请先排除故障再通电。\n"
    "1. 断开24 V电源\n"
    "2. 更换保险丝\n"
)
ENGLISH = (
    "The exposure time is how long the sensor collects light for one frame, from 20\n"
    "microseconds to one second. Raise it when the image is too dark; lower it when\n"
    "moving parts look smeared.\n"
    "- Shorten it on fast conveyors\n"
    "- Lengthen it in dim light\n"
)


def test_wrapped_lines_are_joined_and_deliberate_breaks_kept() -> None:
    chinese = CHINESE.split("\n\n", 1)[1].strip()
    assert unwrap(chinese, wrap_width([chinese])).split("\n") == [
        "传感器接在端子X2的1至8号输入上，公共端接0 V。屏蔽线只在控制柜一端接地，避免形成环路。"
        "模块内置保险丝型号为FU-2A（2 A慢熔），若在通电后再次熔断，说明外部存在短路，请先排除故障再通电。",
        "1. 断开24 V电源",
        "2. 更换保险丝",
    ]
    english = ENGLISH.strip()
    assert unwrap(english, wrap_width([english])).split("\n") == [
        "The exposure time is how long the sensor collects light for one frame, from 20 microseconds"
        " to one second. Raise it when the image is too dark; lower it when moving parts look smeared.",
        "- Shorten it on fast conveyors",
        "- Lengthen it in dim light",
    ]


def test_a_word_a_manual_page_hyphenated_at_a_line_end_is_whole_again() -> None:
    """groff breaks words with U+2010 where it wraps a manual page rendered as text."""
    page = (
        "This  manual  page  documents  the GNU version of chown.  chown changes the user\n"
        "and/or group ownership of each given file.  If only an owner (a user name or nu\u2010\n"
        "meric user ID) is given, that user is made the owner of each given file."
    )
    assert "a user name or numeric user ID" in unwrap(page, wrap_width([page]))


def test_text_that_was_not_wrapped_keeps_its_lines() -> None:
    contact = "Li Wei, senior field engineer, Plant 4 maintenance team, Suzhou\nPhone: +86 512 0000 0000"
    assert wrap_width([contact]) == 0  # one long line is no sign of wrapping
    short = "检查电源电压\n检查接线端子\n检查保险丝"
    assert wrap_width([short, short]) == 0  # lines too short to have been wrapped
    unequal = (
        "检查电源电压是否正常并记录读数和时间\n检查接线端子是否松动\n如果仍有故障请联系厂家的售后服务部门"
    )
    assert unwrap(unequal, 48) == unequal  # each line well short of the width: the author's breaks


def test_a_chinese_word_wrapped_across_lines_is_found(tmp_path: Path, block_list) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "io8d.txt").write_text(CHINESE, encoding="utf-8")
    (docs / "camera.md").write_text("# Exposure\n\n" + ENGLISH, encoding="utf-8")
    assert block_list(parse_file(docs / "camera.md"))[1][2].startswith("The exposure time is how long")
    with KnowledgeBase(tmp_path / "lib") as kb:
        assert kb.import_paths([docs]).ok
        for word in ("接地", "熔断", "microseconds to one second"):
            response = kb.search(word, mode="lexical")
            assert response.results, word
            hit = response.results[0]
            assert word in hit.text.replace("\n", " ")
            assert any(hit.text[s:e] in word for s, e in hit.highlights)
