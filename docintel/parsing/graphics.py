"""Vector-graphic regions of a page, without PyMuPDF's per-item Python objects.

``page.cluster_drawings()`` first builds ``get_drawings()`` (a Rect or Point object
for every path item) and then joins neighbouring rectangles with Rect arithmetic
that crosses into MuPDF for every point: on a plot-heavy page that is most of the
object stage. :func:`cluster_drawings` gives the same rectangles from
``get_cdrawings()`` (plain tuples) with the same joining rules, in plain Python.
:func:`mark_figure_text` gives the words drawn inside a figure's graphic their role.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

Box = tuple[float, float, float, float]

#: Roles of running text that a figure's graphic may turn into figure_text (never headings, captions ...).
_PLAIN_ROLES = ("body", "formula", "list_item", "figure_text")
#: Share of the graphic's area that text may cover before the "graphic" is a frame around a text block.
MAX_TEXT_COVER = 0.35
#: A line of at least this many words reads as running prose, not a label.
PROSE_WORDS = 8


def _neighbours(a: Box, b: Box, dx: float, dy: float) -> bool:
    """True when the (normalised) rectangles are within ``dx`` / ``dy`` of each other."""
    ax0, ax1 = (a[0], a[2]) if a[2] > a[0] else (a[2], a[0])
    ay0, ay1 = (a[1], a[3]) if a[3] > a[1] else (a[3], a[1])
    bx0, bx1 = (b[0], b[2]) if b[2] > b[0] else (b[2], b[0])
    by0, by1 = (b[1], b[3]) if b[3] > b[1] else (b[3], b[1])
    return not (ax1 < bx0 - dx or ax0 > bx1 + dx or ay1 < by0 - dy or ay0 > by1 + dy)


def _include(r: list[float], x: float, y: float) -> None:
    """Grow ``r`` to contain the point (MuPDF's fz_include_point_in_rect)."""
    if x < r[0]:
        r[0] = x
    if x > r[2]:
        r[2] = x
    if y < r[1]:
        r[1] = y
    if y > r[3]:
        r[3] = y


def cluster_rects(rects: list[Box], area: Box, dx: float = 3, dy: float = 3) -> list[Box]:
    """Join neighbouring rectangles inside ``area``, as ``Page.cluster_drawings`` does.

    Same order, same de-duplication (a set, then sorted by bottom and left edge),
    same final filter (wider than ``dx`` and taller than ``dy``).
    """
    key = lambda r: (r[3], r[0])  # noqa: E731
    prects = sorted(
        [r for r in rects if r[0] >= area[0] and r[2] <= area[2] and r[1] >= area[1] and r[3] <= area[3]],
        key=key,
    )
    joined: list[Box] = []
    while prects:
        r = list(prects[0])
        repeat = True
        while repeat:
            repeat = False
            for i in range(len(prects) - 1, 0, -1):  # from back to front
                if _neighbours(prects[i], r, dx, dy):
                    p = prects[i]
                    _include(r, p[0], p[1])  # top-left
                    _include(r, p[2], p[3])  # bottom-right
                    del prects[i]
                    repeat = True
        joined.append((r[0], r[1], r[2], r[3]))
        del prects[0]
        prects = sorted(set(prects), key=key)
    joined = sorted(set(joined), key=key)
    return [r for r in joined if max(0, r[2] - r[0]) > dx and max(0, r[3] - r[1]) > dy]


def cluster_drawings(page) -> list[Box]:
    """``page.cluster_drawings()`` as plain (x0, y0, x1, y1) tuples, at a fraction of its cost."""
    rects = [tuple(float(v) for v in p["rect"]) for p in page.get_cdrawings() if "rect" in p]
    r = page.rect
    return cluster_rects(rects, (r.x0, r.y0, r.x1, r.y1))


def mark_figure_text(line_df: pd.DataFrame, page: int, art: Box, key: str, *, exclude=()) -> int:
    """Role ``figure_text`` and ``object_key`` ``key`` for the plain lines drawn inside ``art``.

    ``art`` is a figure's graphic (picture or clustered drawings, without its caption): the
    labels of a vector diagram are set like body text and would otherwise read as prose. A
    line must lie wholly inside the graphic, and running prose stays body text: clustered
    drawings can make one box of a figure and the column text beside it. A "graphic" whose
    text covers much of its area, or whose lines are mostly prose, is a ruled box or frame
    around a text block: nothing is marked. ``exclude``: index labels never touched (the
    caption). Short labels just beside the graphic, on a row with its text, join it.
    Returns the number of lines marked.
    """
    x0, y0, x1, y1 = art
    tol = 1.5
    pg = line_df[
        (line_df["page"] == page) & line_df["role"].isin(_PLAIN_ROLES) & ~line_df.index.isin(exclude)
    ]
    inside = pg[
        (pg["x0"] >= x0 - tol) & (pg["x1"] <= x1 + tol) & (pg["y0"] >= y0 - tol) & (pg["y1"] <= y1 + tol)
    ]
    if inside.empty:
        return 0
    area = max(x1 - x0, 1.0) * max(y1 - y0, 1.0)
    text_area = float(((inside["x1"] - inside["x0"]) * (inside["y1"] - inside["y0"])).sum())
    prose = inside.index.isin(_prose_lines(pg))
    if text_area > MAX_TEXT_COVER * area or (prose.sum() >= 2 and prose.mean() >= 0.5):
        return 0
    labels = inside[~prose]
    idx = labels.index.union(_side_labels(pg, art, labels))
    line_df.loc[idx, "role"] = "figure_text"
    line_df.loc[idx, "object_key"] = key
    return len(idx)


def mark_figure_headings(line_df: pd.DataFrame, page: int, art: Box, key: str, vouched: set) -> int:
    """Role ``figure_text`` for detected heading lines drawn wholly inside a figure's graphic.

    A diagram's bold labels ("CREATE PERMISSION" in a syntax figure) look like headings to
    the typography test, which runs before figures are known; inside the graphic they are
    part of the figure. ``vouched``: (page, line) of headings an outline or contents page
    names, never touched. Returns the number of lines marked.
    """
    x0, y0, x1, y1 = art
    tol = 1.5
    hit = (
        (line_df["page"] == page)
        & (line_df["role"] == "heading")
        & (line_df["x0"] >= x0 - tol)
        & (line_df["x1"] <= x1 + tol)
        & (line_df["y0"] >= y0 - tol)
        & (line_df["y1"] <= y1 + tol)
    )
    idx = [i for i in line_df.index[hit] if (page, int(line_df.at[i, "line"])) not in vouched]
    line_df.loc[idx, "role"] = "figure_text"
    line_df.loc[idx, "object_key"] = key
    return len(idx)


def _prose_lines(pg: pd.DataFrame) -> set:
    """Index labels of running-text lines: :data:`PROSE_WORDS`+ words, or a paragraph's short
    last line set right below one with the same left edge."""
    words = pg["text"].astype(str).str.split().str.len()
    prose = np.array((words >= PROSE_WORDS).to_numpy(dtype=bool, na_value=False))  # a writable copy
    # numpy columns, the lines walked top-down in sort_values("y0")'s order (no pandas per line)
    x0, y0, y1 = (pg[c].to_numpy(dtype=float, na_value=np.nan) for c in ("x0", "y0", "y1"))
    if np.isnan(y0).any():
        order = pg.index.get_indexer(pg.sort_values("y0").index)
    else:
        order = np.argsort(y0, kind="quicksort")
    for k in order:
        if prose[k]:
            continue
        h = y1[k] - y0[k]
        run_on = prose & (np.abs(x0 - x0[k]) <= 2) & (y1 <= y0[k] + 0.5 * h) & (y1 >= y0[k] - 0.8 * h)
        if run_on.any():
            prose[k] = True
    return set(pg.index[prose])


def _side_labels(pg: pd.DataFrame, art: Box, marked: pd.DataFrame) -> pd.Index:
    """Short labels (``pg``'s lines) just left or right of the graphic, on a row with its text
    ("m =" before a bar drawn as a box)."""
    x0, y0, x1, y1 = art
    h = pg["y1"] - pg["y0"]
    left = (pg["x1"] <= x0 + 1.5) & (pg["x1"] >= x0 - 2 * h)
    right = (pg["x0"] >= x1 - 1.5) & (pg["x0"] <= x1 + 2 * h)
    near = pg[
        ~pg.index.isin(marked.index)
        & (pg["y0"] >= y0 - 1.5)
        & (pg["y1"] <= y1 + 1.5)
        & (left | right)
        & (pg["text"].astype(str).str.split().str.len() <= 3)
    ]
    out = []
    for r in near.itertuples():
        half = 0.5 * (r.y1 - r.y0)
        if ((marked["y0"] < r.y1 - half) & (marked["y1"] > r.y0 + half)).any():
            out.append(r.Index)
    return pd.Index(out)
