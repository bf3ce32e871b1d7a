"""Section numbers printed at the head of a heading, and the level they give it.

"3.8 Interrupt Service Routines" is level 2, "3.4.7填空题" level 3; "Chapter 3", "Part II" and
"第3章" are level 1, "第2节" level 2. Where a document gives no levels (a scan, or a heading path
kept as text), its printed numbers are what tell a section from the chapter it sits in.
"""

from __future__ import annotations

import re

# Up to two digits a component: "40.65 ms" and "2022 年" are figures, not sections.
SECTION = re.compile(r"^\d{1,2}(?:[.．]\d{1,2})*[.．]?(?:\s+(?=[^\W\d_])|(?=[\u4e00-\u9fff]))")
_CHINESE_NUMBER = r"第\s*[一二三四五六七八九十百零〇\d]+\s*"
_CHAPTER = re.compile(rf"^(?:chapter|part|appendix)\s+\w|^{_CHINESE_NUMBER}[章部篇]", re.I)
_CHINESE_SECTION = re.compile(rf"^{_CHINESE_NUMBER}节")
_CHAPTER_LABEL = re.compile(
    rf"^(?:(?:chapter|part|appendix)\s+[\dIVXLA-Z]{{1,4}}|{_CHINESE_NUMBER}[章部篇])$", re.I
)
_MAX_LEVEL = 6


def section_level(heading: str) -> int | None:
    """The level ``heading``'s printed number gives it (1 = outermost), None when unnumbered."""
    if _CHAPTER.match(heading):
        return 1
    if _CHINESE_SECTION.match(heading):
        return 2
    number = SECTION.match(heading)
    if number is None:
        return None
    return min(len(re.findall(r"\d+", number.group())), _MAX_LEVEL)


def chapter_label(text: str) -> bool:
    """Only a chapter's number ("Chapter 5", "第5章"): a chapter opening prints its title on the next line."""
    return bool(_CHAPTER_LABEL.match(text.strip()))
