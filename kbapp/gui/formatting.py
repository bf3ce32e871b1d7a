"""Turning a ``SearchResult`` into what a user reads or copies: row HTML, snippets, citations.

Document text is untrusted: it is always ``html.escape``d, and the only markup in a row is
the markup added here for highlight spans. Offsets are Python code-point offsets, so a
snippet window can never cut a surrogate pair in half.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication

from kbapp.contract import DENSE_DEPTH, LEXICAL_DEPTH, SearchResult

# Translucent amber: readable under dark text on a light theme and light text on a dark one.
MARK_STYLE = "background-color: rgba(255, 190, 0, 40%); font-weight: bold"
SNIPPET_COLUMNS = 260  # display columns of a snippet (a CJK character counts as two)
LEAD_COLUMNS = 60  # columns of context shown before the first highlighted word
_PARAGRAPH_RE = re.compile(r"\s*\n\s*\n\s*")
_SPACE_RE = re.compile(r"\s+")


def _columns(char: str) -> int:
    return 2 if unicodedata.east_asian_width(char) in "WF" else 1


def _is_word_char(char: str) -> bool:
    return char.isalnum() and _columns(char) == 1


def _flatten(text: str) -> str:
    """One line for a list row: paragraph breaks become " · ", other whitespace one space."""
    return _SPACE_RE.sub(" ", _PARAGRAPH_RE.sub(" · ", text))


def snippet_window(
    text: str, highlights: Sequence[tuple[int, int]], columns: int = SNIPPET_COLUMNS
) -> tuple[int, int]:
    """``[start, end)`` of ``text`` to show: about ``columns`` display columns around the first
    highlight, moved off the middle of a Latin word (CJK text has no word boundaries to respect)."""
    anchor = highlights[0][0] if highlights else 0
    start, budget = anchor, LEAD_COLUMNS
    while start > 0 and budget > 0:
        start -= 1
        budget -= _columns(text[start])
    if start > 0 and _is_word_char(text[start - 1]):
        while start < anchor and _is_word_char(text[start]):
            start += 1
    end, budget = start, columns
    while end < len(text) and budget > 0:
        budget -= _columns(text[end])
        end += 1
    if end < len(text) and _is_word_char(text[end]):
        back = end
        while back > anchor and _is_word_char(text[back - 1]):
            back -= 1
        end = back if back > anchor else end
    return start, end


def marked_html(
    text: str, highlights: Sequence[tuple[int, int]], start: int = 0, end: int | None = None
) -> str:
    """Escaped ``text[start:end]`` with highlight spans wrapped in a marked ``<span>``."""
    end = len(text) if end is None else end
    parts: list[str] = []
    pos = start
    for s, e in sorted(highlights):
        s, e = max(s, pos), min(e, end)
        if s >= e:
            continue
        parts.append(html.escape(_flatten(text[pos:s])))
        parts.append(f'<span style="{MARK_STYLE}">{html.escape(_flatten(text[s:e]))}</span>')
        pos = e
    parts.append(html.escape(_flatten(text[pos:end])))
    return "".join(parts)


def snippet_html(result: SearchResult) -> str:
    start, end = snippet_window(result.text, result.highlights)
    body = marked_html(result.text, result.highlights, start, end)
    return ("…" if start > 0 else "") + body + ("…" if end < len(result.text) else "")


def location(result: SearchResult) -> str:
    """ "p. 3", "pp. 3–4", or "" for formats without pages."""
    if result.page is None:
        return ""
    if result.page_end is not None and result.page_end != result.page:
        label = QCoreApplication.translate("Formatting", "pp. %1–%2")
        return label.replace("%1", str(result.page)).replace("%2", str(result.page_end))
    return QCoreApplication.translate("Formatting", "p. %1").replace("%1", str(result.page))


def row_html(result: SearchResult, muted_color: str) -> str:
    """The rich text of one results row: citation, title, page, heading path, snippet."""
    head = f"<b>[{result.citation}]</b>&nbsp; <b>{html.escape(result.title)}</b>"
    where = location(result)
    if where:
        head += f'<span style="color: {muted_color}">&nbsp; · &nbsp;{html.escape(where)}</span>'
    lines = [head]
    if result.heading:
        lines.append(f'<span style="color: {muted_color}">{html.escape(_flatten(result.heading))}</span>')
    lines.append(snippet_html(result))
    return "<br/>".join(lines)


def source_label(result: SearchResult) -> str:
    """ "camera.pdf, p. 3": what a citation points to."""
    where = location(result)
    name = Path(result.path).name
    return f"{name}, {where}" if where else name


def passage_with_citation(result: SearchResult) -> str:
    """The block copied for one passage: ``[n] text (source: file, p. N)``."""
    source = QCoreApplication.translate("Formatting", "source")
    return f"[{result.citation}] {result.text.strip()} ({source}: {source_label(result)})"


def results_as_context(query: str, results: Sequence[SearchResult]) -> str:
    """Results as context for an assistant, with the instruction to skip what does not apply."""
    header = QCoreApplication.translate(
        "Formatting",
        "The numbered passages below come from the user's manuals. They were found by search and may "
        "not all apply: ignore any passage that does not answer the question, and cite the ones you "
        "use by their [number].",
    )
    question = QCoreApplication.translate("Formatting", "Question")
    blocks = [header, f"{question}: {query.strip()}"]
    blocks.extend(passage_with_citation(r) for r in results)
    return "\n\n".join(blocks) + "\n"


def relevance(results: Sequence[SearchResult]) -> list[float]:
    """0..1 per result, relative to the best one (BM25 and fused scores have no absolute scale)."""
    top = max((r.score for r in results), default=0.0)
    if top <= 1e-9:
        return [1.0 - i / max(len(results), 1) for i in range(len(results))]
    return [max(0.0, min(1.0, r.score / top)) for r in results]


def why_tooltip(result: SearchResult) -> str:
    """Why a passage matched: its matched words, keyword rank and semantic rank."""
    why = result.why
    rows: list[str] = []
    terms = why.get("matched_terms") or []
    if terms:
        label = QCoreApplication.translate("Formatting", "Matched words: %1")
        rows.append(label.replace("%1", html.escape(", ".join(terms))))
    if "lexical_rank" in why:
        label = QCoreApplication.translate("Formatting", "Keyword match: rank %1 (BM25 %2)")
        rows.append(label.replace("%1", str(why["lexical_rank"])).replace("%2", f"{why.get('bm25', 0):.3f}"))
    elif "bm25" in why:
        label = QCoreApplication.translate("Formatting", "Keyword match: not in the top %1 (BM25 %2)")
        rows.append(label.replace("%1", str(LEXICAL_DEPTH)).replace("%2", f"{why['bm25']:.3f}"))
    else:
        rows.append(QCoreApplication.translate("Formatting", "Keyword match: none"))
    if "dense_rank" in why:
        label = QCoreApplication.translate("Formatting", "Semantic match: rank %1 (similarity %2)")
        rows.append(
            label.replace("%1", str(why["dense_rank"])).replace("%2", f"{why.get('similarity', 0):.2f}")
        )
    elif "similarity" in why:
        label = QCoreApplication.translate("Formatting", "Semantic match: not in the top %1 (similarity %2)")
        rows.append(label.replace("%1", str(DENSE_DEPTH)).replace("%2", f"{why['similarity']:.2f}"))
    if why.get("merged_chunks"):
        label = QCoreApplication.translate("Formatting", "Joined from %1 overlapping passages")
        rows.append(label.replace("%1", str(why["merged_chunks"])))
    rows.append(html.escape(source_label(result)))
    return "<br/>".join(rows)
