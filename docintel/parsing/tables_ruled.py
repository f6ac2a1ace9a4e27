"""Ruled tables: the page's drawn rules (``get_cdrawings``) and the grid they make (:func:`ruled_cells`),
and the horizontal rules that split a borderless table's rows (:func:`horizontal_rules`).

Split from :mod:`tables_cells` in session 15 (that file was past ~400 lines); it re-exports these.
"""

from __future__ import annotations

import itertools

import numpy as np


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


def _rule_edges(page) -> list[tuple]:
    """Every straight edge the page draws, (x0, y0, x1, y1), read once per page.

    From ``get_cdrawings()`` (plain tuples) with what ``get_drawings()`` would give: a
    rectangle normalised, its width and height never negative.
    """
    memo = getattr(page, "_memo", None)
    if memo is not None and "edges" in memo:
        return memo["edges"]
    edges: list[tuple] = []
    append = edges.append
    for d in page.get_cdrawings():
        for it in d["items"]:
            kind = it[0]
            if kind == "l":
                (ax, ay), (bx, by) = it[1], it[2]
                append((float(ax), float(ay), float(bx), float(by)))
            elif kind == "re":
                x0, y0, x1, y1 = map(float, it[1])
                if x1 < x0:
                    x0, x1 = x1, x0
                if y1 < y0:
                    y0, y1 = y1, y0
                # max(0, width) < 2, without the call: also true for a NaN width
                thin_w, thin_h = not x1 - x0 >= 2, not y1 - y0 >= 2
                if thin_w or thin_h:  # a rule drawn as a thin filled rectangle
                    append(
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
    edges = _rule_edges(page)  # (floats: one flat read, the values np.array of the tuples gives)
    e = np.fromiter(itertools.chain.from_iterable(edges), dtype=float, count=4 * len(edges)).reshape(-1, 4)
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


def _chain_bottom(vs: list[tuple]) -> tuple[float, float]:
    """(top, bottom) of the vertical rules chained down from the topmost one.

    The loop it replaces: ``bottom = top``; for each (lo, hi) in ascending order,
    ``if lo <= bottom + 2: bottom = max(bottom, hi)``. Once a rule starts below the chain,
    every later one does too (``lo`` ascends, ``bottom`` stops growing), so ``bottom`` is the
    running maximum of ``hi`` up to the first break: the same floats (max picks, never sums).
    """
    lo = np.fromiter((v[1] for v in vs), dtype=float, count=len(vs))
    hi = np.fromiter((v[2] for v in vs), dtype=float, count=len(vs))
    if np.isnan(lo).any() or np.isnan(hi).any():  # NaN breaks the order argument: the plain loop
        top = bottom = min(v[1] for v in vs)
        for a, b in sorted((v[1], v[2]) for v in vs):
            if a <= bottom + 2:
                bottom = max(bottom, b)
        return top, bottom
    top = lo.min()
    order = np.argsort(lo, kind="stable")
    lo, hi = lo[order], hi[order]
    reach = np.maximum.accumulate(np.maximum(hi, top))  # bottom after each rule, while chained
    before = np.concatenate(([top], reach[:-1]))  # bottom before each rule
    broken = np.flatnonzero(lo > before + 2)
    end = int(broken[0]) if len(broken) else len(lo)
    return float(top), float(reach[end - 1]) if end else float(top)


def _word_centres(page, words: list) -> tuple[np.ndarray, np.ndarray]:
    """The words' x and y centres as float arrays, once per page's word list (memo on a CachedPage)."""
    memo = getattr(page, "_memo", None)
    hit = memo.get("word_centres") if memo is not None else None
    if hit is not None and hit[0] is words:
        return hit[1], hit[2]
    cx = np.array([(w[0] + w[2]) / 2 for w in words], dtype=float)
    cy = np.array([(w[1] + w[3]) / 2 for w in words], dtype=float)
    if memo is not None:
        memo["word_centres"] = (words, cx, cy)
    return cx, cy


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
    top, bottom = _chain_bottom(vs)
    ys = [y for y in ys if top - 2 <= y <= bottom + 2]
    if len(ys) < 3:
        return [], None
    words = page.get_text("words")
    # word centres as arrays once per page: each cell takes its words by mask, in the words' order
    cx, cy = _word_centres(page, words)
    in_col = np.array([(xs[j] <= cx) & (cx <= xs[j + 1]) for j in range(len(xs) - 1)], dtype=bool).reshape(
        len(xs) - 1, len(words)
    )
    out = []
    r_out = 0
    for i in range(len(ys) - 1):
        row = []
        # the row's words once; each cell keeps those in its column (ascending word order, as a mask)
        at = np.flatnonzero((ys[i] <= cy) & (cy <= ys[i + 1]))
        mine = in_col[:, at]  # row j: column j's mask of the row's words
        # a column with none of them is "" at once (most cells of a sparse grid): " ".join of no words
        held = mine.any(axis=1).tolist()
        for j in range(len(xs) - 1):
            bb = (xs[j], ys[i], xs[j + 1], ys[i + 1])
            if not held[j]:
                row.append(("", bb))
                continue
            ws = [words[k] for k in at[mine[j]].tolist()]
            ws.sort(key=lambda w: (round(w[1]), w[0]))
            row.append((" ".join([w[4] for w in ws]), bb))
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
