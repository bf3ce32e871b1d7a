"""Questions in one language answered by passages in the other, in libraries of a few thousand
passages where the question's own language also has plenty of (unrelated) text."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kbapp.contract import ResponseStatus
from kbapp.embedding.pack import ModelPack
from kbapp.library import KnowledgeBase

PARTS = ["conveyor belt", "hydraulic pump", "cooling fan", "gearbox", "spindle motor", "air compressor"]
ACTIONS = ["inspected", "lubricated", "cleaned", "tightened", "calibrated", "replaced"]
PLACES = ["north hall", "paint shop", "loading bay", "boiler room", "assembly line", "test bench"]
ANSWER_EN = (
    "Factory reset: to restore the controller to its factory defaults, hold the RESET key for ten "
    "seconds while switching the power on. All saved recipes and network settings are erased. "
    "Do this when error E7301 persists."
)
QUESTION_ZH = "怎么把控制器恢复出厂设置？"
# Found only through a later sense of the dictionary entry: 中断 is "to cut short; to break off; to
# discontinue; to interrupt".
INTERRUPTS_EN = (
    "Interrupts: when an interrupt request arrives, the controller saves its registers and jumps "
    "to the interrupt service routine, which must return within 50 microseconds."
)
# Asked "how often" (多久…一次): the dictionary glosses 一次 "first; linear (math)", which no
# maintenance schedule says; a number of times is a count, not a word the passage must hold.
SEAL_EN = (
    "Mechanical seal: replace the mechanical seal of the circulation pump every 4000 operating "
    "hours, and at once if the casing weeps."
)
# Answered only because keyword search (through the dictionary) and vector search both rank them
# first (``relevance.agreement``): their best vector stands too little above everyday English.
BATTERY_EN = (
    "Battery backup: the clock battery keeps the date and time while the controller is unpowered. "
    "When the display shows a blinking clock after power-up, the coin cell is flat and must be changed."
)
FIRMWARE_EN = (
    "Firmware update: copy the update file to a USB stick, insert it, and hold the MENU key while "
    "switching on. Do not remove power until the progress bar reaches the end."
)
# Answered because it holds most of the question's words through the dictionary (``vocabulary.
# translated_coverage``): 按钮 "button" and 按下 "press", not 复位 "reset"; 急停 is no dictionary word,
# and 停 is read by its gloss "stop". Its vector is second, and stands too little above everyday English.
EMERGENCY_EN = (
    "Emergency stop: pressing the red mushroom button cuts power to all motors. Turn the button "
    "clockwise to release it, then press START."
)

ZH_SUBJECTS = ["试卷模板", "选择题", "填空题", "密封线", "答题卡", "页眉页脚"]
ZH_VERBS = [
    "可以通过选项调整",
    "默认不显示",
    "需要在导言区设置",
    "支持自定义格式",
    "会自动编号",
    "按章节重新计数",
]
ZH_EXTRAS = ["教师版会显示答案", "学生版隐藏解析", "字号默认为五号", "行距可以单独设置", "分值写在题号之后"]


def english_filler(rng: random.Random, n: int) -> list[str]:
    return [
        f"Section {i}. The {rng.choice(PARTS)} in the {rng.choice(PLACES)} must be "
        f"{rng.choice(ACTIONS)} every {rng.randint(2, 900)} operating hours; record it in log "
        f"{rng.randint(100, 999)} and check the {rng.choice(PARTS)} for wear."
        for i in range(n)
    ]


def chinese_filler(rng: random.Random, n: int) -> list[str]:
    return [
        f"第{i}条：{rng.choice(ZH_SUBJECTS)}{rng.choice(ZH_VERBS)}，{rng.choice(ZH_EXTRAS)}，"
        f"{rng.choice(ZH_SUBJECTS)}{rng.choice(ZH_VERBS)}。"
        for i in range(n)
    ]


def write(folder: Path, name: str, paragraphs: list[str], title: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(title + "\n\n" + "\n\n".join(paragraphs) + "\n", encoding="utf-8")


@pytest.mark.parametrize("with_chinese", [False, True], ids=["english-library", "mixed-library"])
def test_chinese_question_answered_by_english_passage(
    tmp_path: Path, default_pack: ModelPack, with_chinese: bool
) -> None:
    rng = random.Random(7)
    docs = tmp_path / "docs"
    filler = english_filler(rng, 2400)
    for part in range(6):
        body = filler[part * 400 : (part + 1) * 400]
        if part == 3:
            body.insert(200, ANSWER_EN)
        if part == 4:
            body.insert(100, INTERRUPTS_EN)
        if part == 5:
            body.insert(300, SEAL_EN)
        if part == 1:
            body.insert(30, EMERGENCY_EN)
        if part == 2:
            body.insert(50, BATTERY_EN)
            body.insert(170, FIRMWARE_EN)
        write(docs, f"manual_{part}.txt", body, f"Maintenance manual, part {part + 1}")
    if with_chinese:
        write(docs, "模板手册.txt", chinese_filler(rng, 1200), "试卷模板使用手册")
    with KnowledgeBase(tmp_path / "lib", pack_dir=default_pack.path) as kb:
        assert kb.import_paths([docs]).ok
        kb.embed_pending()
        assert kb.pending_embeddings() == 0
        res = kb.search(QUESTION_ZH, k=5)
        assert res.results, res.message
        answer = next((r for r in res.results if "factory defaults" in r.text), None)
        assert answer is not None, [r.text[:50] for r in res.results]
        # The result says which of its words stand for which word of the question.
        found = {
            word: [w.casefold() for w in words] for word, words in answer.why["translated_terms"].items()
        }
        assert found["出厂"] == ["factory"] and "restore" in found["恢复"], found
        # One Chinese word, a term the manual uses in English: answered, as "interrupt" would be.
        res = kb.search("中断", k=5)
        assert res.results and INTERRUPTS_EN in res.results[0].text, res.message
        assert res.results[0].why["translated_terms"]["中断"] == ["Interrupts"]  # the passage's first form
        res = kb.search("机械密封多久换一次", k=5)
        assert res.results and SEAL_EN in res.results[0].text, (res.message, res.unknown_words)
        # Each ranking alone is weak evidence across languages; both putting one passage first is not.
        for question, answer_en in (("电池没电时钟闪烁", BATTERY_EN), ("怎么用U盘升级固件", FIRMWARE_EN)):
            res = kb.search(question, k=5)
            assert res.results and answer_en in res.results[0].text, (res.message, res.unknown_words)
            assert res.results[0].why["lexical_rank"] == res.results[0].why["dense_rank"] == 1
        # Most of the question's words, held through the dictionary by a passage in the other language.
        res = kb.search("急停按钮按下后怎么复位？", k=5)
        assert res.results and EMERGENCY_EN in res.results[0].text, (res.message, res.unknown_words)
        # A code the library has answers the question although its other words are unknown.
        res = kb.search("E7301 overheat shutdown", k=5)
        assert res.results and "E7301" in res.results[0].text, res.unknown_words
        # Maintenance-sounding, but about something no passage mentions, in either language.
        for question, missing in (
            ("How do I replace the ink cartridge of an office printer?", {"ink", "cartridge", "printer"}),
            ("打印机的墨盒怎么更换？", {"打印机", "墨盒"}),
        ):
            res = kb.search(question, k=5)
            assert res.status is ResponseStatus.NOTHING_RELEVANT, [r.text[:50] for r in res.results]
            assert missing <= set(res.unknown_words), res.unknown_words
        # ... and the user is told what else was looked for: a library that says "toner" where the
        # dictionary gives "ink" is a gap in the dictionary, not in the library.
        assert "printer" in res.unknown_translations["打印机"], res.unknown_translations


def test_pointer_pages_rank_after_content() -> None:
    from kbapp.search.pointers import is_pointer

    names = [f"{a}{b}" for a in ("stack", "port", "reset", "timer", "bank") for b in ("", " mode", " size")]
    index = " ".join(f"{name}, {i + 3}, {i * 2 + 10}" for i, name in enumerate(names))
    contents = "\n".join(f"3.{i} Section title … {i + 17}" for i in range(20))
    prose = "Set the stack location with --stack-loc 0x80, see section 3.2, 45 and the example below."
    leaders = "\n".join(f"3.{i} Section title ........ {i + 17}" for i in range(20))
    spaced = "\n".join(f"Appendix title . . . . . {i * 9 + 1}" for i in range(20))
    assert is_pointer(index) and is_pointer(contents) and is_pointer(leaders) and is_pointer(spaced)
    assert not is_pointer(prose) and not is_pointer("Values: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 12 " * 3)
