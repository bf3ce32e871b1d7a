"""A Chinese question's character pairs that straddle two of its words are matched only where
those two words stand together.

The keyword index holds every overlapping pair of characters, so the question's pairs include
those that span a word boundary: 设置网格线 ("set grid lines", 设置 | 网格 | 线) asked for 置网 too,
which every page on 设置网络 ("network settings") holds. Such a pair is rare, so BM25 weighs it
heavily, and it drew passages where one of the words merely meets something else. Yet the same
pair is what tells a compound written whole from its words apart: 光时 of 曝光时间 ("exposure
time") is found in 曝光时间 and almost nowhere else. So a pair across two dictionary words
(``Bridge.word_starts``, with the model tokenizer's boundaries when the model is loaded) is
matched as the phrase of the pairs around it, 设置网格 and 曝光时间: the compound still counts,
设置网络 no longer does. A pair with a function character the dictionary left over (的, 是: 型的,
的网) names nothing and is dropped; a pair of two left-over characters stays, as that is how a
name the dictionary lacks (基隆) is found, and so does one with a left-over content character
(格线 keeps 线). Nothing is fitted.

Only matching changes. The keyword coverage that ``relevance`` judges a passage by is still
measured over all of the question's pairs, as its floor was set: measured over fewer, it rose
for out-of-scope questions too (3 more of them were answered on DRCD).
"""

from __future__ import annotations

from kbapp.search.vocabulary import Splitter
from kbapp.text.bridge import bridge
from kbapp.text.fold import fold
from kbapp.text.script import CJK_RE
from kbapp.text.terms import Term, is_function_character


def without_straddling(query: str, terms: list[Term], splits: Splitter | None) -> list[Term]:
    """``terms`` (``query_terms(query)``) with each Chinese pair that straddles two words matched
    only inside the two words written together, and each pair with a left-over function character
    dropped; ``splits`` gives where words may start and end, as for the bridge."""
    folded = fold(query)  # what the terms' offsets refer to; the dictionary is simplified too
    # A question without Chinese needs no dictionary: it is parsed once per machine, in seconds.
    dictionary = bridge() if CJK_RE.search(folded) else None
    if dictionary is None:
        return terms
    starts = dictionary.word_starts(folded, splits(folded) if splits is not None else None)
    out = []
    for term in terms:
        first, second = starts.get(term.start), starts.get(term.start + 1)
        if term.prefix or term.end - term.start != 2:
            out.append(term)
        elif first is not None and second is not None:
            if first == second:
                out.append(term)
            else:  # the pair before, this one and the pair after, in a row: 设置网格 for 置网
                window = folded[term.start - 1 : term.end + 1]
                pairs = " ".join(window[i : i + 2] for i in range(len(window) - 1))
                out.append(Term(pairs, term.start - 1, term.end + 1))
        elif not any(
            is_function_character(ch) and start is None
            for ch, start in zip(term.text, (first, second), strict=True)
        ):
            out.append(term)
    return out
