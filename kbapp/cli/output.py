"""Rendering façade results for a terminal or as JSON lines."""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from kbapp.contract import SearchResponse, SearchResult

_WIDTH = 600  # display columns of a passage printed whole; a longer one is cut ...
_LEAD = 100  # ... from this many before the part that matches best
_CLOSEST = 3  # passages judged not relevant that are still printed, under a heading that says so
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def emit_json(obj: Any) -> None:
    """One JSON line. A lone surrogate (a question given as a JSON escape like ``\\ud800``, or
    bytes that are not UTF-8 in the command line) cannot be written as UTF-8: such a line is
    written with every non-ASCII character escaped, which reads back as the same text."""
    line = json.dumps(obj, ensure_ascii=False)
    if _LONE_SURROGATE.search(line):
        line = json.dumps(obj)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def response_json(response: SearchResponse, query_id: str | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if query_id is not None:
        data["query_id"] = query_id
    data["query"] = response.query
    data["mode"] = response.mode
    data["took_ms"] = round(response.took_ms, 3)
    data["status"] = str(response.status)
    data["message"] = response.message
    data["unknown_words"] = list(response.unknown_words)
    data["unknown_translations"] = {word: list(t) for word, t in response.unknown_translations.items()}
    data["results"] = [r.to_json() for r in response.results]
    data["closest"] = [r.to_json() for r in response.closest]
    return data


def _marked(text: str, spans: list[tuple[int, int]]) -> str:
    """Highlights as bold in a terminal (plain text otherwise)."""
    if not sys.stdout.isatty():
        return text
    out, pos = [], 0
    for s, e in spans:
        out += [text[pos:s], "\033[1m", text[s:e], "\033[0m"]
        pos = e
    out.append(text[pos:])
    return "".join(out)


def print_response(response: SearchResponse) -> None:
    if response.message:
        print(response.message)
    if response.unknown_words:
        rest = "; the results match the rest of the question" if response.results else ""
        print(f"Not in the library: {_unknown(response)}{rest}")
    for r in response.results:
        _print_result(r)
    if response.closest:
        print(f"The {min(len(response.closest), _CLOSEST)} closest passages, judged not relevant:")
        for r in response.closest[:_CLOSEST]:
            _print_result(r)


def _unknown(response: SearchResponse) -> str:
    """叶轮 (also looked for: turbine, wheel): the library may use a word the dictionary lacks."""
    out = []
    for word in response.unknown_words:
        tried = response.unknown_translations.get(word)
        out.append(f"{word} (also looked for: {', '.join(tried)})" if tried else word)
    return ", ".join(out)


def _print_result(r: SearchResult) -> None:
    where = f"p. {r.page}" if r.page is not None else ""
    if r.page is not None and r.page_end not in (None, r.page):
        where = f"pp. {r.page}–{r.page_end}"
    head = " · ".join(x for x in (r.title, where, r.heading or "") if x)
    print(f"[{r.citation}] {head}  (score {r.score:.3f})")
    start, end = r.snippet_span(_LEAD, _WIDTH)
    if start == 0 and end == len(r.text):
        print("    " + _marked(r.text, r.highlights).replace("\n", "\n    "))
    else:  # from a little before the part that matches best (``SearchResult.focus``)
        snippet = " ".join(r.text[start:end].split())
        print("    " + ("… " if start else "") + snippet + (" …" if end < len(r.text) else ""))
    if translated := r.translated_terms():
        print(f"    by dictionary: {translated}")
    print(f"    source: {r.path}")
