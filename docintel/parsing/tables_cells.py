"""Cells of a captioned table: PyMuPDF's find_tables, else word clustering.

Ruled tables come out of ``page.find_tables()`` (strategy ``lines``). Academic
tables are often borderless with only horizontal rules (booktabs): there the
words under the caption are clustered into rows (by baseline) and columns (by
the x-projection of cell phrases). Horizontal rules split the table into row
groups; a group's label ("(A)" centred beside its sub-rows) becomes the
``row_label`` of every row in the group, so "row (E)" / "rows (A)" select rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

_NUMERIC = re.compile(r"^[\s\-+\u2212\u2013~<>=\u00b1.,%()$\u00d7x0-9eEKMB\u00b7]+$")


@dataclass
class Phrase:
    x0: float
    y0: float
    x1: float
    y1: float
    text: str

    @property
    def yc(self) -> float:
        return (self.y0 + self.y1) / 2


def _phrases(words: list, clip) -> list[Phrase]:
    """Words inside ``clip`` joined into phrases (words of one line closer than ~half a letter height)."""
    left, right, top, bottom = clip[0] - 1, clip[2] + 1, clip[1] - 1, clip[3] + 1
    inside = [w for w in words if w[0] >= left and w[2] <= right and w[1] >= top and w[3] <= bottom]
    inside.sort(key=_word_order)
    out: list[Phrase] = []
    last = None
    last_yc = 0.0  # ``last.yc``, kept as it changes (the property's own expression)
    for w in inside:
        x0, y0, x1, y1, t = w[:5]
        h = y1 - y0
        yc = (y0 + y1) / 2
        if last is not None and abs(last_yc - yc) < 0.3 * h and 0 <= x0 - last.x1 < 0.5 * h:
            last.x1, last.text = x1, f"{last.text} {t}"
            last.y0, last.y1 = min(last.y0, y0), max(last.y1, y1)
            last_yc = (last.y0 + last.y1) / 2
        else:
            last = Phrase(x0, y0, x1, y1, t)
            last_yc = (last.y0 + last.y1) / 2
            out.append(last)
    return out


def _word_order(w) -> tuple:
    """A word's (block, line, x0): reading order of ``get_text("words")`` rows."""
    return (w[5], w[6], w[0])


def _rows(phrases: list[Phrase]) -> list[list[Phrase]]:
    rows: list[list[Phrase]] = []
    for p in sorted(phrases, key=lambda p: p.yc):
        tol = 0.35 * (p.y1 - p.y0)
        if rows and abs(sum(q.yc for q in rows[-1]) / len(rows[-1]) - p.yc) <= tol:
            rows[-1].append(p)
        else:
            rows.append([p])
    return rows


def _columns(phrases: list[Phrase], width: float) -> list[tuple[float, float]]:
    """Column x-intervals from the projection of the (not too wide) phrases."""
    spans = sorted((p.x0, p.x1) for p in phrases if p.x1 - p.x0 < 0.3 * width) or sorted(
        (p.x0, p.x1) for p in phrases
    )
    cols: list[list[float]] = []
    for a, b in spans:
        if cols and a <= cols[-1][1] + 1.5:
            cols[-1][1] = max(cols[-1][1], b)
        else:
            cols.append([a, b])
    return [(a, b) for a, b in cols]


def _col_of(p: Phrase, cols: list[tuple[float, float]]) -> int:
    for i, (a, b) in enumerate(cols):
        if a - 1 <= p.x0 <= b + 1:
            return i
    xc = (p.x0 + p.x1) / 2
    return min(range(len(cols)), key=lambda i: abs((cols[i][0] + cols[i][1]) / 2 - xc))


def _flat_rects(page) -> list[tuple]:
    """The page's drawings at most 2 pt high (``max(0, height) <= 2``), their rects in drawing order."""
    memo = getattr(page, "_memo", None)
    if memo is not None and "flat_rects" in memo:
        return memo["flat_rects"]
    out = [d["rect"] for d in page.get_cdrawings() if max(0, d["rect"][3] - d["rect"][1]) <= 2]
    if memo is not None:
        memo["flat_rects"] = out
    return out


def horizontal_rules(page, clip) -> list[float]:
    """y of horizontal rules crossing most of ``clip`` (booktabs lines, ruled row separators)."""
    ys = []
    width = clip[2] - clip[0]
    # get_cdrawings' plain tuples; height / width as pymupdf's Rect gives them (never negative)
    for x0, y0, x1, y1 in _flat_rects(page):
        if (
            max(0, x1 - x0) >= 0.5 * width
            and x0 <= clip[2]
            and x1 >= clip[0]
            and clip[1] - 3 <= y0 <= clip[3] + 3
        ):
            ys.append((y0 + y1) / 2)
    ys.sort()
    out: list[float] = []
    for y in ys:
        if not out or y - out[-1] > 1.5:
            out.append(y)
    return out


def cluster_cells(page, clip) -> list[dict]:
    """Cells of a borderless table inside ``clip`` by word clustering (see module doc)."""
    words = page.get_text("words")
    phrases = _phrases(words, clip)
    if len(phrases) < 4:
        return []
    cols = _columns(phrases, clip[2] - clip[0])
    rows = _rows(phrases)
    if len(cols) < 2 or len(rows) < 2:
        return []
    rules = horizontal_rules(page, clip)

    # bands between rules; without rules every row is its own band
    def band(y: float) -> int:
        return sum(1 for r in rules if r < y)

    grid = []  # (band, y0, y1, {col: [phrases]})
    for r in rows:
        cells: dict[int, list[Phrase]] = {}
        for p in sorted(r, key=lambda p: p.x0):
            cells.setdefault(_col_of(p, cols), []).append(p)
        grid.append([band(min(p.yc for p in r)), min(p.y0 for p in r), max(p.y1 for p in r), cells])

    # header: everything above the first rule after the table's top rule, else rows before numbers
    header_band = None
    if len(rules) >= 2 and grid[0][0] == band(rules[0] + 0.1):
        header_band = grid[0][0]
    if header_band is not None:
        head = [g for g in grid if g[0] == header_band]
        merged: dict[int, list[Phrase]] = {}
        for g in head:
            for c, ps in g[3].items():
                merged.setdefault(c, []).extend(ps)
        grid = [[header_band, min(g[1] for g in head), max(g[2] for g in head), merged, True]] + [
            g + [False] for g in grid if g[0] != header_band
        ]
    else:
        n_head = 0
        for g in grid:
            texts = [" ".join(p.text for p in ps) for ps in g[3].values()]
            if sum(bool(_NUMERIC.match(t)) for t in texts) >= max(1, len(texts) // 2):
                break
            n_head += 1
        n_head = n_head if n_head < len(grid) else 0
        grid = [g + [i < min(n_head, 1)] for i, g in enumerate(grid)]

    # row groups: a label alone in the first column labels the data rows of its band
    # (with rules), else the rows that follow it until the next label
    use_bands = len(rules) >= 3
    firsts: dict[int, list[str]] = {}
    for g in grid:
        if use_bands and not g[4] and 0 in g[3]:
            firsts.setdefault(g[0], []).append(" ".join(p.text for p in g[3][0]))
    labels = {b: v[0] for b, v in firsts.items() if len(v) == 1}
    current = None
    kept = []
    for g in grid:
        if not g[4] and set(g[3]) == {0}:
            if not use_bands:
                current = " ".join(p.text for p in g[3][0])
            continue
        kept.append(g + [current])
    out = []
    for i, (b, y0, y1, cells, is_head, carried) in enumerate(kept):
        first = " ".join(p.text for p in cells.get(0, []))
        label = labels.get(b) or first or (carried if not is_head else None)
        for c, (cx0, cx1) in enumerate(cols):
            ps = cells.get(c, [])
            text = " ".join(p.text for p in sorted(ps, key=lambda p: (round(p.yc), p.x0)))
            bb = (
                (min(p.x0 for p in ps), min(p.y0 for p in ps), max(p.x1 for p in ps), max(p.y1 for p in ps))
                if ps
                else (cx0, y0, cx1, y1)
            )
            out.append(
                {
                    "row": i,
                    "col": c,
                    "text": text,
                    "is_header": bool(is_head),
                    "row_label": label or None,
                    "x0": bb[0],
                    "y0": bb[1],
                    "x1": bb[2],
                    "y1": bb[3],
                }
            )
    return out


def _rule_edges(page) -> list[tuple]:
    """Every straight edge the page draws, (x0, y0, x1, y1), read once per page.

    From ``get_cdrawings()`` (plain tuples) with what ``get_drawings()`` would give: a
    rectangle normalised, its width and height never negative.
    """
    memo = getattr(page, "_memo", None)
    if memo is not None and "edges" in memo:
        return memo["edges"]
    edges: list[tuple] = []
    for d in page.get_cdrawings():
        for it in d["items"]:
            if it[0] == "l":
                (ax, ay), (bx, by) = it[1], it[2]
                edges.append((float(ax), float(ay), float(bx), float(by)))
            elif it[0] == "re":
                x0, y0, x1, y1 = map(float, it[1])
                if x1 < x0:
                    x0, x1 = x1, x0
                if y1 < y0:
                    y0, y1 = y1, y0
                # max(0, width) < 2, without the call: also true for a NaN width
                thin_w, thin_h = not x1 - x0 >= 2, not y1 - y0 >= 2
                if thin_w or thin_h:  # a rule drawn as a thin filled rectangle
                    edges.append(
                        ((x0 + x1) / 2, y0, (x0 + x1) / 2, y1)
                        if thin_w
                        else (x0, (y0 + y1) / 2, x1, (y0 + y1) / 2)
                    )
                else:
                    edges += [(x0, y0, x1, y0), (x0, y1, x1, y1), (x0, y0, x0, y1), (x1, y0, x1, y1)]
    if memo is not None:
        memo["edges"] = edges
    return edges


def _edge_columns(page) -> tuple:
    """The page's edges as numpy columns with the clip-free half of :func:`_segments_in`'s tests."""
    memo = getattr(page, "_memo", None)
    if memo is not None and "edge_cols" in memo:
        return memo["edge_cols"]
    e = np.array(_rule_edges(page), dtype=float).reshape(-1, 4)
    x0, y0, x1, y1 = e[:, 0], e[:, 1], e[:, 2], e[:, 3]
    dx, dy = np.abs(x1 - x0), np.abs(y1 - y0)
    flat = (dy < 1.5) & (dx > 10)  # a horizontal rule's shape
    upright = ~flat & (dx < 1.5) & (dy > 5)  # a vertical one's (the tests exclude each other)
    cols = (
        flat,
        upright,
        x0,
        y0,
        (y0 + y1) / 2,
        np.minimum(x0, x1),
        np.maximum(x0, x1),
        (x0 + x1) / 2,
        np.minimum(y0, y1),
        np.maximum(y0, y1),
    )
    if memo is not None:
        memo["edge_cols"] = cols
    return cols


def _segments_in(page, clip) -> tuple[list[tuple], list[tuple]]:
    """Horizontal (y, x0, x1) and vertical (x, y0, y1) rule segments inside ``clip``, in edge order."""
    flat, upright, x0, y0, ym, xlo, xhi, xm, lo, hi = _edge_columns(page)
    h = flat & (clip[1] - 2 <= y0) & (y0 <= clip[3] + 2)
    v = upright & (clip[0] - 2 <= x0) & (x0 <= clip[2] + 2) & (hi > clip[1]) & (lo < clip[3])
    hs = list(zip(ym[h].tolist(), xlo[h].tolist(), xhi[h].tolist(), strict=True))
    vs = list(zip(xm[v].tolist(), lo[v].tolist(), hi[v].tolist(), strict=True))
    return hs, vs


def _cluster(values: list[float], tol: float = 2.0) -> list[float]:
    out: list[float] = []
    for v in sorted(values):
        if not out or v - out[-1] > tol:
            out.append(v)
    return out


def ruled_cells(page, clip) -> tuple[list[dict], tuple | None]:
    """Cells of a fully ruled grid (vertical and horizontal rules) in ``clip``.

    Row and column boundaries are the rules themselves; a cell's text is the
    words whose centres fall inside it. (PyMuPDF 2.0's ``find_tables`` runs the
    layout model once ``pymupdf.layout`` is imported and returned garbled cell
    text such as "258 ." for "25.8" in our tests, so the grid is read here.)
    """
    hs, vs = _segments_in(page, clip)
    xs = _cluster([v[0] for v in vs])
    if len(xs) < 3:
        return [], None
    left, right = xs[0], xs[-1]
    ys = _cluster([h[0] for h in hs if h[1] <= left + 3 and h[2] >= right - 3])
    # the grid's vertical extent: chain the vertical rules down from the topmost one
    top = min(v[1] for v in vs)
    bottom = top
    for lo, hi in sorted((v[1], v[2]) for v in vs):
        if lo <= bottom + 2:
            bottom = max(bottom, hi)
    ys = [y for y in ys if top - 2 <= y <= bottom + 2]
    if len(ys) < 3:
        return [], None
    words = page.get_text("words")
    # word centres as arrays once: each cell takes its words by mask, in the words' order
    cx = np.array([(w[0] + w[2]) / 2 for w in words], dtype=float)
    cy = np.array([(w[1] + w[3]) / 2 for w in words], dtype=float)
    in_col = [(xs[j] <= cx) & (cx <= xs[j + 1]) for j in range(len(xs) - 1)]
    out = []
    r_out = 0
    for i in range(len(ys) - 1):
        row = []
        # the row's words once; each cell keeps those in its column (ascending word order, as a mask)
        at = np.flatnonzero((ys[i] <= cy) & (cy <= ys[i + 1]))
        for j in range(len(xs) - 1):
            ws = [words[k] for k in at[in_col[j][at]].tolist()] if len(at) else []
            ws.sort(key=lambda w: (round(w[1]), w[0]))
            row.append((" ".join(w[4] for w in ws), (xs[j], ys[i], xs[j + 1], ys[i + 1])))
        if not any(t for t, _ in row):
            continue
        label = next((t for t, _ in row if t), None)
        for j, (t, bb) in enumerate(row):
            out.append(
                {
                    "row": r_out,
                    "col": j,
                    "text": t,
                    "is_header": r_out == 0,
                    "row_label": label,
                    "x0": bb[0],
                    "y0": bb[1],
                    "x1": bb[2],
                    "y1": bb[3],
                }
            )
        r_out += 1
    if r_out < 2:
        return [], None
    return out, (left, ys[0], right, ys[-1])


def _n_rows(cells: list[dict]) -> int:
    return max((c["row"] for c in cells), default=-1) + 1


def table_cells(page, clip, grid_clip=None, *, near_top: bool = True) -> tuple[list[dict], tuple | None]:
    """Cells and bbox of the table in ``clip``: the ruled grid when it has a row per text row.

    find_tables' ``lines`` strategy on a booktabs table (horizontal rules only
    between row groups) yields one row per *group*; then the word clustering,
    which keeps one row per baseline, is the better reading.
    """
    cells, bb, _ = read_table(page, clip, grid_clip, near_top=near_top)
    return cells, bb


def is_numeric(text: str) -> bool:
    """A cell that holds a number, an amount, a percentage or a dash (an empty statistic)."""
    t = text.strip()
    return bool(_NUMERIC.match(t)) and (any(ch.isdigit() for ch in t) or t in ("-", "\u2013", "\u2014"))


def read_table(page, clip, grid_clip=None, *, near_top: bool = True) -> tuple[list[dict], tuple | None, bool]:
    """:func:`table_cells` plus whether the cells come from a ruled grid."""
    ruled, rb = ruled_cells(page, grid_clip or clip)
    if rb is not None:
        # the grid must start at the caption (below it) or end at it (above it), else it is another table
        g = grid_clip or clip
        gap = rb[1] - g[1] if near_top else g[3] - rb[3]
        if gap > 40:
            ruled, rb = [], None
    clustered = cluster_cells(page, clip) if clip[3] - clip[1] > 8 else []
    if ruled and _n_rows(ruled) >= 0.8 * _n_rows(clustered):
        return ruled, rb, True
    if not clustered:
        return ruled, rb, bool(ruled)
    bb = (
        min(c["x0"] for c in clustered),
        min(c["y0"] for c in clustered),
        max(c["x1"] for c in clustered),
        max(c["y1"] for c in clustered),
    )
    return clustered, bb, False


def phrases(words: list, clip) -> list[Phrase]:
    """The words inside ``clip`` joined into phrases (a line glued across a gutter splits there)."""
    return _phrases(words, clip)


def rows_of(phrases: list[Phrase]) -> list[list[Phrase]]:
    """Phrases grouped by baseline, top-down."""
    return _rows(phrases)
