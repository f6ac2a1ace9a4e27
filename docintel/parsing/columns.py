"""Text columns and reading order of one page, from line boxes alone.

The page's gutters are found from an x-coverage histogram of its horizontal
lines: a gutter is a vertical strip that few lines cross, with real text
columns of similar width on both sides. Lines that cross a gutter are
full-width (column -1: titles, running headers, wide tables) and split the
page into horizontal bands, and so does a blank strip across the whole page (a
figure and its caption set below two short columns are read after both); within
a band the columns are read left to right, each top to bottom, except a narrow column of
labels each set beside its text (a glossary's terms: :mod:`label_rows`), read label by label
with its text. Rows (fragments at the same height) read left to right.
"""

from __future__ import annotations

import operator

import numpy as np

from docintel.parsing import label_rows

#: Narrowest gutter between two text columns, in points (Federal Register: ~8 pt).
MIN_GUTTER = 5.0
#: A gutter may be crossed by at most this share of the lines covering a column (titles, abstracts).
MAX_CROSSING_SHARE = 0.3
#: Columns are at least this share of the text width ...
MIN_COLUMN_SHARE = 0.18
#: ... and the narrowest is at least this share of the widest (a glossary's term column is not one).
MIN_COLUMN_RATIO = 0.55
#: A strip free of text and pictures across every column, this many line heights tall, ends a band.
BLANK_BAND_LINES = 3.0
#: A picture crossing a gutter ends a band only when it covers this share of each column it touches.
MIN_SPAN_SHARE = 0.25


def find_gutters(boxes: list[tuple[float, float, float, float]]) -> list[tuple[float, float]]:
    """Gutters ``(x_left, x_right)`` between text columns, left to right; [] for one column.

    ``boxes`` are the (x0, y0, x1, y1) of the page's horizontal text lines.
    """
    n = len(boxes)
    if n < 6:
        return []
    # (the two x columns alone: the (n, 4) array only when a gutter is checked, most pages have none)
    left = np.array([b[0] for b in boxes], dtype=float)
    right = np.array([b[2] for b in boxes], dtype=float)
    lo, hi = float(left.min()), float(right.max())
    width = hi - lo
    if width < 100:
        return []
    # Coverage histogram at 1 pt resolution, built with a difference array.
    size = int(width) + 2
    # (np.minimum / np.maximum: np.clip's Python wrapper cost more than the clipping on a page's lines)
    starts = np.minimum(np.maximum((left - lo).astype(int), 0), size)
    ends = np.minimum(np.maximum(np.ceil(right - lo).astype(int), 0), size)
    # +1 at each start, -1 at each end (what np.add.at gave, as exact small integers, cheaper)
    diff = (np.bincount(starts, minlength=size + 1) - np.bincount(ends, minlength=size + 1)).astype(float)
    cover = np.cumsum(diff)[:size]
    # Relative to how many lines cover a column (not to all lines: three columns hold a third each).
    low = cover <= max(1.0, MAX_CROSSING_SHARE * _percentile(cover, 95))
    margin = int(MIN_COLUMN_SHARE * width)
    low[:margin] = False
    low[size - margin :] = False
    if not low.any():  # no low point: no run
        return []
    runs = _low_runs(low, cover, lo)
    if not runs:
        return []
    return _validate(np.asarray(boxes, dtype=float), lo, hi, runs)


def _percentile(values: np.ndarray, q: float) -> float:
    """``float(np.percentile(values, q))`` (linear method), bit for bit, without its wrapper's cost.

    The same steps as numpy's: virtual index ``(n - 1) * q / 100``, the two order statistics
    around it by one partition, and numpy's two-sided ``_lerp`` (the result is compared with
    integer coverage counts, so it must be numpy's to the last bit). ``values``: 1-d, no NaN.
    """
    n = len(values)
    v = (n - 1) * (q / 100)
    if v >= n - 1 or v < 0:
        return float(np.percentile(values, q))
    k = int(v)  # floor: v >= 0
    part = np.partition(values, (k, k + 1))
    a, b = float(part[k]), float(part[k + 1])
    t = v - k
    diff = b - a
    return b - diff * (1 - t) if t >= 0.5 else a + diff * t


def _low_runs(low: np.ndarray, cover: np.ndarray, lo: float) -> list[tuple[float, float]]:
    """The runs of ``low`` points at least :data:`MIN_GUTTER` wide, each cut to its lowest-coverage core."""
    runs: list[tuple[float, float]] = []
    # the runs [i, j) of low points, found from the flips of the padded mask
    flips = np.flatnonzero(np.diff(np.concatenate(([False], low, [False])).astype(np.int8)))
    for i, j in zip(flips[0::2].tolist(), flips[1::2].tolist(), strict=True):
        if j - i >= MIN_GUTTER:
            # A run can be wider than the gutter when few lines cross it; keep its
            # lowest-coverage core so the column edges stay tight.
            seg = cover[i:j]
            core = np.flatnonzero(seg == seg.min())
            runs.append((lo + i + core[0], lo + i + core[-1] + 1))
    return runs


def _validate(
    arr: np.ndarray, lo: float, hi: float, runs: list[tuple[float, float]]
) -> list[tuple[float, float]]:
    """Keep the gutters whose columns look like text columns (similar widths, filled lines)."""
    edges = [lo] + [g for run in runs for g in run] + [hi]
    slots = [(edges[k], edges[k + 1]) for k in range(0, len(edges), 2)]
    widths = [b - a for a, b in slots]
    if min(widths) / max(widths) < MIN_COLUMN_RATIO:
        return []
    for a, b in slots:
        inside = arr[(arr[:, 0] >= a - 2) & (arr[:, 2] <= b + 2)]
        if len(inside) < 3:
            return []
        # Text columns are filled: most lines run over half the column's width.
        if np.median(inside[:, 2] - inside[:, 0]) < 0.45 * (b - a):
            return []
    return runs


def gutters_fit(boxes: list[tuple[float, float, float, float]], gutters: list[tuple[float, float]]) -> bool:
    """The page's lines respect ``gutters`` (taken from other pages): few cross, text on both sides."""
    if not boxes or not gutters:
        return False
    cols = [assign_column(b[0], b[2], gutters) for b in boxes]
    crossing = sum(1 for c in cols if c < 0)
    used = {c for c in cols if c >= 0}
    return crossing <= max(2, MAX_CROSSING_SHARE * len(boxes)) and len(used) >= 2


def assign_column(x0: float, x1: float, gutters: list[tuple[float, float]]) -> int:
    """Column index of a line spanning x0..x1, or -1 when it crosses a gutter."""
    if not gutters:
        return 0
    for g0, g1 in gutters:
        mid = (g0 + g1) / 2
        if x0 < mid - 1 and x1 > mid + 1:
            return -1
    centre = (x0 + x1) / 2
    return sum(1 for g0, g1 in gutters if centre > (g0 + g1) / 2)


def _row_key(r: dict) -> tuple[float, float]:
    return ((r["y0"] + r["y1"]) / 2, r["x0"])


_x0 = operator.itemgetter("x0")


def group_rows(items: list[dict]) -> list[list[dict]]:
    """Group line dicts (with x0, y0, x1, y1) into visual rows, top to bottom, each left to right.

    Two lines share a row when they overlap vertically by half the smaller height.
    """
    rows: list[list[dict]] = []
    cur: list[dict] = []
    top = bot = 0.0
    # (the conditional expressions are the builtin two-argument min/max, result for result)
    for it in sorted(items, key=_row_key):
        y0, y1 = it["y0"], it["y1"]
        h = y1 - y0
        h = 0.1 if h < 0.1 else h  # max(h, 0.1)
        if cur:
            overlap = (y1 if y1 < bot else bot) - (y0 if y0 > top else top)  # min(bot, y1) - max(top, y0)
            tall = bot - top
            if overlap >= 0.5 * (tall if tall < h else h):  # min(h, bot - top)
                cur.append(it)
                continue
            rows.append(sorted(cur, key=_x0) if len(cur) > 1 else cur)
        cur, top, bot = [it], y0, y1
    if cur:
        rows.append(sorted(cur, key=_x0) if len(cur) > 1 else cur)
    return rows


def reading_order(
    items: list[dict],
    gutters: list[tuple[float, float]],
    *,
    cuts: list[tuple[float, float, float, float]] = (),
) -> list[dict]:
    """Order line dicts (with ``column`` set) band by band, column by column, row by row.

    Full-width lines end a band; so do the boxes in ``cuts`` (pictures) that cross a gutter,
    and blank strips across the page (:func:`blank_strips`).
    """
    # Margin stamps (rotated text beside the text area) would cut every column in two: last.
    margin = sorted((r for r in items if r.get("_margin")), key=lambda r: (r["x0"], r["y0"]))
    items = [r for r in items if not r.get("_margin")]
    spanning = sorted((r for r in items if r["column"] < 0), key=lambda r: (r["y0"], r["x0"]))
    if not gutters:
        return [r for row in group_rows(items) for r in row] + margin
    marks = sorted(
        [((r["y0"] + r["y1"]) / 2, r) for r in spanning]
        + [((b[1] + b[3]) / 2, None) for b in cuts if _spans_columns(b, gutters, items)]
        + [(y, None) for y in blank_strips(items, cuts)],
        key=lambda m: m[0],
    )
    cuts_y = [y for y, _ in marks]
    bands: dict[int, list[dict]] = {}
    for r in items:
        if r["column"] < 0:
            continue
        yc = (r["y0"] + r["y1"]) / 2
        b = int(np.searchsorted(cuts_y, yc)) if cuts_y else 0
        bands.setdefault(b, []).append(r)
    out: list[dict] = []
    for b in range(len(marks) + 1):
        members = bands.get(b, [])
        by_col = [
            [r for row in group_rows([m for m in members if m["column"] == col]) for r in row]
            for col in sorted({r["column"] for r in members})
        ]
        # a column of labels each beside its text (a glossary): label, its text, next label
        pair = label_rows.interleave(*by_col) if len(gutters) == 1 and len(by_col) == 2 else None
        if pair is not None:
            out.extend(pair)
        else:
            for col_lines in by_col:
                out.extend(col_lines)
        if b < len(marks) and marks[b][1] is not None:
            out.append(marks[b][1])
    return out + margin


def _spans_columns(box: tuple[float, float, float, float], gutters: list[tuple[float, float]], items) -> bool:
    """True when a picture really spans the columns on both sides of a gutter it crosses.

    A picture's box often carries blank margins: a figure set in one column can reach
    a little over the gutter. Only a picture covering :data:`MIN_SPAN_SHARE` of each
    column it crosses into (a full-width figure) ends a band; one that merely grazes the
    next column is read with its own column.
    """
    if assign_column(box[0], box[2], gutters) >= 0:
        return False
    lo = min((r["x0"] for r in items), default=box[0])
    hi = max((r["x1"] for r in items), default=box[2])
    mids = [(g0 + g1) / 2 for g0, g1 in gutters]
    edges = [lo, *mids, hi]
    for a, b in zip(edges[:-1], edges[1:], strict=True):
        cover = min(box[2], b) - max(box[0], a)
        if 0 < cover < MIN_SPAN_SHARE * (b - a):
            return False
    return True


def blank_strips(items: list[dict], boxes=()) -> list[float]:
    """Middle y of each horizontal strip that no line and no box (picture) reaches, top to bottom.

    Only strips at least :data:`BLANK_BAND_LINES` median line heights tall count: paragraph
    and heading spacing stay well under that, while text set below two short columns (a figure
    and its caption, an appendix heading) starts after a gap that no column crosses.
    """
    if not items:
        return []
    gap = BLANK_BAND_LINES * float(np.median([max(r["y1"] - r["y0"], 0.1) for r in items]))
    spans = sorted([(r["y0"], r["y1"]) for r in items] + [(b[1], b[3]) for b in boxes])
    out: list[float] = []
    bottom = spans[0][1]
    for y0, y1 in spans[1:]:
        if y0 - bottom >= gap:
            out.append((bottom + y0) / 2)
        bottom = max(bottom, y1)
    return out
