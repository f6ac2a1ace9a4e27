"""Vector-graphic regions of a page, without PyMuPDF's per-item Python objects.

``page.cluster_drawings()`` first builds ``get_drawings()`` (a Rect or Point object
for every path item) and then joins neighbouring rectangles with Rect arithmetic
that crosses into MuPDF for every point: on a plot-heavy page that is most of the
object stage. :func:`cluster_drawings` gives the same rectangles from
``get_cdrawings()`` (plain tuples) with the same joining rules, in plain Python.
"""

from __future__ import annotations

Box = tuple[float, float, float, float]


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
