"""Quantities a question names, in the forms a library may write them: "3.3 V" or "3.3V".

A manual writes a voltage, a current or a resistance with or without a space before its unit, and a
question either way; the keyword index keeps "3.3V" as one term and "3.3 V" as two. The number and
unit are read by ``text.terms.quantity_parts``.
"""

from __future__ import annotations

import re

from kbapp.search.lexical import TermCounter
from kbapp.text.fold import fold
from kbapp.text.terms import Term, quantity_parts

# A number and a unit of one to three Latin or Greek letters written apart (as folded: "3.3 v",
# "0.5 a", "4-20 ma", "10 kω").
_APART_RE = re.compile(r"(\d+(?:[.,-]\d+)*)\s+([a-zα-ω]{1,3})\b")


def quantity_forms(query: str, terms: list[Term], count: TermCounter) -> tuple[list[Term], list[Term]]:
    """The question's terms, and other forms of the quantities it names to search for too: a
    manual writes "3.3 V" or "3.3V", and a question either way (``quantity_parts``).

    A quantity typed whole that the library never holds whole is looked up as its number and unit
    instead: "3.3V" had matched nothing in a manual that writes "3.3 V", and was reported as a word
    no document mentions. One typed apart ("3.3 V", "0.5 A") is also looked up whole where the
    library holds it so; that form is searched and highlighted, but weighs nothing in the
    question's keyword coverage, which stays the question's own words'. (A quantity the library
    holds whole is not also looked up apart: its unit alone, "a" or "v", matches any passage.)"""
    glued = {t.text: parts for t in terms if (parts := quantity_parts(t)) is not None}
    apart = [
        whole
        for m in _APART_RE.finditer(fold(query))
        if (whole := Term(re.sub(r"\D", "", m[1]) + m[2], m.start(), m.end())).text not in glued
        and quantity_parts(whole) is not None
    ]
    if not glued and not apart:
        return terms, []
    held = count([*glued, *(t.text for t in apart)])
    own: list[Term] = []
    for term in terms:
        parts = glued.get(term.text)
        own += parts if parts is not None and not held.get(term.text) else [term]
    own = list({t.text: t for t in own}.values())
    known = {t.text for t in own}
    return own, [t for t in apart if held.get(t.text) and t.text not in known]
