"""Reading order for positioned text on a PDF page, multi-column aware.

A recursive XY-cut: first look for vertical gutters (whitespace running the full height of the
region) and read the columns left to right; otherwise cut the region into horizontal bands and
read them top to bottom. Bands that are all narrower than the region are merged before recursing,
so a two-column area under a full-width title is read column by column, not band by band.

A gutter only counts as a column break when the left side looks like running text (its lines
mostly reach its right edge), the two sides have comparable widths and the region is not all
monospaced code. That keeps key/value lists, tab-aligned option lists, code with aligned comments
and "title .... page" tables of contents in row order.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

MIN_GUTTER = 12.0
_NARROW = 0.6
_MIN_SIDE = 0.2
_MAX_SIDE_RATIO = 2.5
_FULL_LINE = 0.85
_FULL_SHARE = 0.5
_MAX_DEPTH = 60


class Boxed(Protocol):
    x0: float
    y0: float
    x1: float
    y1: float


T = TypeVar("T", bound=Boxed)


def reading_order(items: list[T]) -> list[T]:
    """Return ``items`` in reading order."""
    return _order(items, allow_merge=True, depth=0)


def sort_rows(items: list[T]) -> list[T]:
    """Top-to-bottom rows (items overlapping vertically), each row left to right."""
    ordered: list[T] = []
    for row in group_rows(items):
        ordered.extend(sorted(row, key=lambda item: item.x0))
    return ordered


def group_rows(items: list[T]) -> list[list[T]]:
    """Cluster items into rows: an item joins a row when its vertical centre lies inside it."""
    rows: list[list[T]] = []
    bottom = top = 0.0
    for item in sorted(items, key=lambda item: (item.y0 + item.y1) / 2):
        centre = (item.y0 + item.y1) / 2
        if rows and top <= centre <= bottom:
            rows[-1].append(item)
            bottom = max(bottom, item.y1)
        else:
            rows.append([item])
            top, bottom = item.y0, item.y1
    return rows


def _order(items: list[T], allow_merge: bool, depth: int) -> list[T]:
    if len(items) <= 1 or depth > _MAX_DEPTH:
        return sort_rows(items)
    columns = _split_columns(items)
    if len(columns) > 1:
        return [item for column in columns for item in _order(column, True, depth + 1)]
    bands = _split_bands(items)
    if len(bands) == 1:
        return sort_rows(items)
    groups = _merge_narrow_bands(bands, items) if allow_merge else [(band, False) for band in bands]
    if len(groups) == 1:
        groups = [(band, False) for band in bands]
    # A merged group already failed to split into bands usefully: it may only split into columns.
    return [
        item for group, merged in groups for item in _order(group, allow_merge=not merged, depth=depth + 1)
    ]


def _split_columns(items: list[T]) -> list[list[T]]:
    ordered = sorted(items, key=lambda item: item.x0)
    groups: list[list[T]] = [[ordered[0]]]
    right = ordered[0].x1
    for item in ordered[1:]:
        if item.x0 - right >= MIN_GUTTER and _is_column_break(groups[-1], item, ordered):
            groups.append([item])
        else:
            groups[-1].append(item)
        right = max(right, item.x1)
    return groups


def _is_column_break(left: list[T], first_right: T, ordered: list[T]) -> bool:
    right = [item for item in ordered if item.x0 >= first_right.x0]
    if all(getattr(item, "mono", False) for item in right):
        return False  # code aligned with spaces (trailing comments), not a text column
    region = max(item.x1 for item in ordered) - min(item.x0 for item in ordered)
    left_width = max(item.x1 for item in left) - min(item.x0 for item in left)
    right_width = max(item.x1 for item in right) - min(item.x0 for item in right)
    if min(left_width, right_width) < _MIN_SIDE * region:
        return False
    if max(left_width, right_width) > _MAX_SIDE_RATIO * min(left_width, right_width):
        return False
    rows = group_rows(left)
    if len(rows) < 2 or len(group_rows(right)) < 2:
        return False
    edge = max(item.x1 for item in left) - (1 - _FULL_LINE) * left_width
    full = sum(1 for row in rows if max(item.x1 for item in row) >= edge)
    return full >= _FULL_SHARE * len(rows)


def _split_bands(items: list[T]) -> list[list[T]]:
    ordered = sorted(items, key=lambda item: item.y0)
    bands: list[list[T]] = [[ordered[0]]]
    bottom = ordered[0].y1
    for item in ordered[1:]:
        if item.y0 > bottom:
            bands.append([item])
        else:
            bands[-1].append(item)
        bottom = max(bottom, item.y1)
    return bands


def _merge_narrow_bands(bands: list[list[T]], items: list[T]) -> list[tuple[list[T], bool]]:
    """Merge runs of adjacent bands whose items are all narrow: candidates for a column area.

    Returns each group with a flag telling whether it was merged from several bands.
    """
    region = max(item.x1 for item in items) - min(item.x0 for item in items)
    groups: list[tuple[list[T], bool]] = []
    previous_narrow = False
    for band in bands:
        narrow = all(item.x1 - item.x0 <= _NARROW * region for item in band)
        if groups and narrow and previous_narrow:
            groups[-1] = (groups[-1][0] + band, True)
        else:
            groups.append((band, False))
        previous_narrow = narrow
    return groups
