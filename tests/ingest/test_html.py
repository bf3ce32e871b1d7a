"""HTML reader: visible text only, structure as blocks, declared charsets honoured."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbapp.ingest import parse_file

PAGE = """<!DOCTYPE html>
<html><head><title>Valve  Service</title>
<style>body { color: red }</style><script>var hidden = "script text";</script></head>
<body>
<nav>Home</nav>
<h1>Valve service</h1>
<p>Close the <b>inlet</b> valve<br>then open the drain.</p>
<div hidden>Hidden note</div>
<p style="display: none">Invisible paragraph</p>
<noscript>Enable JavaScript</noscript>
<template><p>template text</p></template>
<h2>Parts</h2>
<table>
  <thead><tr><th>Part</th><th>Number</th></tr></thead>
  <tbody><tr><td>Seal kit</td><td>SK-10</td></tr><tr><td>Spring</td><td colspan="1">SP-2</td></tr></tbody>
</table>
<pre>
valve close --id 3
  wait 10
</pre>
<ul><li>First step</li><li>Second step</li></ul>
<table><tr><td><h3>Layout cell</h3><p>Inside layout table</p></td></tr></table>
<p>中文段落
第二行</p>
<!-- a comment -->
</body></html>
"""


def test_visible_blocks_in_order(tmp_path: Path, well_formed, block_list) -> None:
    path = tmp_path / "valve.html"
    path.write_text(PAGE, encoding="utf-8")
    document = parse_file(path)
    well_formed(document)
    assert document.title == "Valve Service"
    assert document.doc_type == "html"
    assert block_list(document) == [
        ("text", 0, "Home"),
        ("heading", 1, "Valve service"),
        ("text", 0, "Close the inlet valve\nthen open the drain."),
        ("heading", 2, "Parts"),
        ("table", 0, "Part | Number\nSeal kit | SK-10\nSpring | SP-2"),
        ("code", 0, "valve close --id 3\n  wait 10"),
        ("text", 0, "First step"),
        ("text", 0, "Second step"),
        ("heading", 3, "Layout cell"),
        ("text", 0, "Inside layout table"),
        ("text", 0, "中文段落第二行"),
    ]


def test_table_without_th_uses_first_row_as_header(tmp_path: Path) -> None:
    path = tmp_path / "t.html"
    path.write_text("<table><tr><td>A</td><td>B</td></tr><tr><td>1</td><td>2</td></tr></table>")
    page = parse_file(path).pages[0]
    (table,) = page.blocks
    assert page.text[table.start : table.header_end] == "A | B"


def test_meta_charset_gbk(tmp_path: Path) -> None:
    html = (
        '<html><head><meta charset="gb2312"><title>泵维护</title></head>'
        "<body><h1>泵维护</h1><p>检查密封圈。</p></body></html>"
    )
    path = tmp_path / "zh.htm"
    path.write_bytes(html.encode("gbk"))
    document = parse_file(path)
    assert document.title == "泵维护"
    assert "检查密封圈。" in document.pages[0].text


def test_title_falls_back_to_first_h1(tmp_path: Path) -> None:
    path = tmp_path / "x.html"
    path.write_text("<html><body><h2>Sub</h2><h1>Main title</h1><p>Body</p></body></html>", encoding="utf-8")
    assert parse_file(path).title == "Main title"


@pytest.mark.parametrize(
    ("depth", "opening", "closing"),
    [
        (5_000, "<div>", "</div>"),
        (100_000, "<div>", "</div>"),
        (50_000, "<div>", ""),  # never closed, as generated pages and broken exports leave them
        (20_000, "<span>", "</span>"),
    ],
)
def test_deeply_nested_elements_are_read(
    tmp_path: Path, well_formed, block_list, depth: int, opening: str, closing: str
) -> None:
    """lxml keeps every level, so the DOM walk must not recurse per level (RecursionError)."""
    nested = opening * depth + "Deep text about the pump." + closing * depth
    path = tmp_path / "deep.html"
    path.write_text(f"<html><body><h1>Top</h1>{nested}<p>After the nest.</p></body></html>")
    document = parse_file(path)
    well_formed(document)
    text = [piece for _, _, piece in block_list(document)]
    assert text[0] == "Top"
    assert "Deep text about the pump." in text[1]
    assert "After the nest." in text[-1]


def test_deep_nesting_inside_headings_tables_and_code(tmp_path: Path, block_list) -> None:
    depth = 20_000
    html = (
        f"<h2>{'<span>' * depth}Deep heading{'</span>' * depth}</h2>"
        f"<table><tr><th>Part</th><th>Number</th></tr>"
        f"<tr><td>{'<b>' * depth}Seal kit{'</b>' * depth}</td><td>SK-10</td></tr></table>"
        f"<pre>{'<span>' * depth}valve close\n  wait 10{'</span>' * depth}</pre>"
        + "<table><tr><td>" * 3_000
        + "Innermost cell"
        + "</td></tr></table>" * 3_000
    )
    path = tmp_path / "deep.html"
    path.write_text(f"<html><body>{html}</body></html>")
    assert block_list(parse_file(path)) == [
        ("heading", 2, "Deep heading"),
        ("table", 0, "Part | Number\nSeal kit | SK-10"),
        ("code", 0, "valve close\n  wait 10"),
        ("text", 0, "Innermost cell"),
    ]
