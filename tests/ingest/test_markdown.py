"""Markdown reader: headings, fenced code, pipe tables, inline markup."""

from __future__ import annotations

from pathlib import Path

from kbapp.ingest import parse_file

SAMPLE = """---
title: "Controller Setup"
author: field team
---
Overview
========

Read the [wiring guide](wiring.pdf) **before** powering on.
Second line of the same paragraph.

## Wiring

| Terminal | Signal | Colour |
|:---------|:------:|-------:|
| T1 | +24 V | red |
| T2 | GND \\| shield | black |

### Flashing the firmware

```bash
# this is a comment, not a heading
flash --port /dev/ttyUSB0
```

Checks
------

* * *

- item one
- item two
"""


def test_blocks_levels_and_title(tmp_path: Path, well_formed, block_list) -> None:
    path = tmp_path / "setup.md"
    path.write_text(SAMPLE, encoding="utf-8")
    document = parse_file(path)
    well_formed(document)
    assert document.title == "Controller Setup"
    assert document.doc_type == "markdown"
    assert [page.number for page in document.pages] == [None]
    assert block_list(document) == [
        ("heading", 1, "Overview"),
        ("text", 0, "Read the wiring guide before powering on.\nSecond line of the same paragraph."),
        ("heading", 2, "Wiring"),
        ("table", 0, "Terminal | Signal | Colour\nT1 | +24 V | red\nT2 | GND | shield | black"),
        ("heading", 3, "Flashing the firmware"),
        ("code", 0, "# this is a comment, not a heading\nflash --port /dev/ttyUSB0"),
        ("heading", 2, "Checks"),
        ("text", 0, "- item one\n- item two"),
    ]


def test_table_header_is_the_first_row(tmp_path: Path) -> None:
    path = tmp_path / "t.md"
    path.write_text("| A | B |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n", encoding="utf-8")
    page = parse_file(path).pages[0]
    (table,) = page.blocks
    assert page.text[table.start : table.header_end] == "A | B"


def test_title_falls_back_to_first_heading_then_stem(tmp_path: Path) -> None:
    with_heading = tmp_path / "a.md"
    with_heading.write_text("intro text\n\n# 设备安装\n\n正文。", encoding="utf-8")
    assert parse_file(with_heading).title == "设备安装"
    without = tmp_path / "plain-notes.md"
    without.write_text("just text", encoding="utf-8")
    assert parse_file(without).title == "plain-notes"


def test_unclosed_fence_runs_to_the_end(tmp_path: Path, block_list) -> None:
    path = tmp_path / "c.md"
    path.write_text("# T\n\n~~~\ncode line\n## not a heading\n", encoding="utf-8")
    assert block_list(parse_file(path))[-1] == ("code", 0, "code line\n## not a heading")
