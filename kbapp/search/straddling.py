"""The Chinese bigrams of a question that straddle two of its words are not matched.

The keyword index holds every overlapping pair of characters, so the question's pairs include
those that span a word boundary: 设置网格线 ("set grid lines", 设置 | 网格 | 线) asks for 置网 too,
which every page on 设置网络 ("network settings") holds. Such a pair is rare, so BM25 weighs it
heavily, and it draws passages where the two words merely meet. Real word segmentation would not
make it; the dictionary's split of the question (``Bridge.word_starts``, with the model
tokenizer's boundaries when the model is loaded) says where the words are.

A pair is dropped when its two characters lie in two different dictionary words, or when one of
them is a function character the dictionary left over (的, 是: 型的, 的网). A pair of two
left-over characters stays: that is how a name the dictionary lacks (基隆) is found, and so does
a pair with a left-over content character (格线 keeps 线). Nothing is fitted.

Only matching changes. The keyword coverage that ``relevance`` judges a passage by is still
measured over all of the question's pairs, as its floor was set: measured over fewer, it rose
for out-of-scope questions too (3 more of them were answered on DRCD).
"""

from __future__ import annotations

from kbapp.search.vocabulary import Splitter
from kbapp.text.bridge import bridge
from kbapp.text.fold import fold
from kbapp.text.terms import Term, is_function_character


def without_straddling(query: str, terms: list[Term], splits: Splitter | None) -> list[Term]:
    """``terms`` (``query_terms(query)``) less the Chinese pairs that straddle two words;
    ``splits`` gives where words may start and end, as for the bridge."""
    dictionary = bridge()
    if dictionary is None:
        return terms
    folded = fold(query)  # what the terms' offsets refer to; the dictionary is simplified too
    starts = dictionary.word_starts(folded, splits(folded) if splits is not None else None)

    def straddles(term: Term) -> bool:
        if term.prefix or term.end - term.start != 2:
            return False
        first, second = starts.get(term.start), starts.get(term.start + 1)
        if first is not None and second is not None:
            return first != second
        left_over = [ch for ch, start in zip(term.text, (first, second), strict=True) if start is None]
        return any(is_function_character(ch) for ch in left_over)

    return [t for t in terms if not straddles(t)]
