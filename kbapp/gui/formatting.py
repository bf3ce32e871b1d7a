"""Turning a ``SearchResult`` into what a user reads or copies: row HTML, snippets, citations.

Document text is untrusted: it is always ``html.escape``d, and the only markup in a row is
the markup added here for highlight spans. Offsets are Python code-point offsets, so a
snippet window can never cut a surrogate pair in half.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication

from kbapp.contract import DENSE_DEPTH, FOCUS_COLUMNS, LEXICAL_DEPTH, SearchResult

# Translucent amber: readable under dark text on a light theme and light text on a dark one.
MARK_STYLE = "background-color: rgba(255, 190, 0, 40%); font-weight: bold"
LEAD_COLUMNS = 60  # columns of context shown before the part that matches best
SNIPPET_COLUMNS = LEAD_COLUMNS + FOCUS_COLUMNS  # display columns of a snippet (CJK counts as two)
_PARAGRAPH_RE = re.compile(r"\s*\n\s*\n\s*")
_SPACE_RE = re.compile(r"\s+")


def _flatten(text: str) -> str:
    """One line for a list row: paragraph breaks become " · ", other whitespace one space."""
    return _SPACE_RE.sub(" ", _PARAGRAPH_RE.sub(" · ", text))


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
    start, end = result.snippet_span(LEAD_COLUMNS, SNIPPET_COLUMNS)
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
    """The rich text of one results row: citation, title, page, heading path, snippet, and for a
    match across languages which of its words stand for which of the question's."""
    head = f"<b>[{result.citation}]</b>&nbsp; <b>{html.escape(result.title)}</b>"
    where = location(result)
    if where:
        head += f'<span style="color: {muted_color}">&nbsp; · &nbsp;{html.escape(where)}</span>'
    lines = [head]
    if result.heading:
        lines.append(f'<span style="color: {muted_color}">{html.escape(_flatten(result.heading))}</span>')
    lines.append(snippet_html(result))
    translated = result.translated_terms()
    if translated:
        label = QCoreApplication.translate("Formatting", "By dictionary: %1")
        lines.append(
            f'<span style="color: {muted_color}">{label.replace("%1", html.escape(translated))}</span>'
        )
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
    """Why a passage matched: its matched words (and which words of the question the dictionary
    found them for), keyword rank and semantic rank."""
    why = result.why
    rows: list[str] = []
    terms = why.get("matched_terms") or []
    if terms:
        label = QCoreApplication.translate("Formatting", "Matched words: %1")
        rows.append(label.replace("%1", html.escape(", ".join(terms))))
    translated = result.translated_terms()
    if translated:
        label = QCoreApplication.translate("Formatting", "Found through the dictionary: %1")
        rows.append(label.replace("%1", html.escape(translated)))
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
    if "english_reading" in why:
        rows.append(
            QCoreApplication.translate(
                "Formatting", "Semantic match also with the question read in English (dictionary)"
            )
        )
    if why.get("merged_chunks"):
        label = QCoreApplication.translate("Formatting", "Joined from %1 overlapping passages")
        rows.append(label.replace("%1", str(why["merged_chunks"])))
    rows.append(html.escape(source_label(result)))
    return "<br/>".join(rows)
