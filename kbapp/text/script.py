"""Which writing system a text is in: the one CJK character class the whole app shares.

Search compares a question with passages *per language*, because the embedding model scores
any Chinese sentence closer to a Chinese question than the English passage that answers it.
"""

from __future__ import annotations

import re
from enum import StrEnum

# Kana, CJK ideographs (with extensions and compatibility forms) and Hangul.
CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\U00020000-\U0003134f"
CJK_RE = re.compile(f"[{CJK_CHARS}]")
CJK_RUN_RE = re.compile(f"[{CJK_CHARS}]+")
# A share of CJK among the letters above this makes a text CJK: a Chinese manual's pages quote
# English option names and code, an English one has no CJK at all.
CJK_SHARE = 0.3


class Script(StrEnum):
    LATIN = "latin"  # and every other alphabet: the model treats them alike here
    CJK = "cjk"


def script_of(text: str, sample: int = 400) -> Script:
    """The script of the first ``sample`` characters (enough for a question or a passage)."""
    head = text[:sample]
    cjk = sum(map(len, CJK_RUN_RE.findall(head)))  # by runs: a Chinese text has far fewer of them
    if not cjk:  # most documents of an English library: no need to count letters one by one
        return Script.LATIN
    if cjk >= CJK_SHARE * len(head):  # a share of every character is at least that of the letters
        return Script.CJK  # most documents of a Chinese library: again no count
    letters = sum(map(str.isalpha, head))
    return Script.CJK if cjk / letters >= CJK_SHARE else Script.LATIN
