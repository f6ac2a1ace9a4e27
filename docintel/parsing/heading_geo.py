"""A page's line geometry for heading detection: "the line just above" and paragraph starts.

:class:`_PageGeo` orders a page's candidate lines (the dicts of
:func:`heading_candidates._page_records`) by their edges so that the paragraph-start test is a
bisection; :class:`_LazyStart` defers that test until a typography rule asks. Split from
:mod:`docintel.parsing.heading_candidates` (session 15, to keep it under ~400 lines), which
re-exports every name.
"""

from __future__ import annotations

import bisect

from docintel.parsing.heading_text import Candidate

#: A line above within this many font sizes belongs to the same paragraph (set by hand; not measured).
PARA_GAP_EM = 1.6


class _PageGeo:
    """A page's candidate lines ordered by bottom edge, so 'the line just above' is a bisect."""

    def __init__(self, recs: list[dict]) -> None:
        self.recs = recs
        self._by_y1: tuple[list[int], list[float]] | None = None  # sorted on first use: most pages never ask
        self._tops: tuple[list, list] | None = None  # (y0, x0) of the lines by top edge, on first use
        self._scan = False

    def by_bottom(self) -> tuple[list[int], list[float]]:
        """The lines' positions ordered by (y1, position), and those y1 values."""
        if self._by_y1 is None:
            recs = self.recs
            order = sorted(range(len(recs)), key=lambda i: (recs[i]["y1"], i))
            self._by_y1 = (order, [recs[i]["y1"] for i in order])
        return self._by_y1

    def left_edge_below(self, y: float, below: float, x0: float) -> bool:
        """Any line with ``y < y0 < y + below`` and its left edge within 2 pt of ``x0``."""
        if self._tops is None:
            tops = sorted((r["y0"], r["x0"]) for r in self.recs)
            if any(t != t for t, _ in tops):  # a NaN top: no order to bisect, scan every line
                tops = None
            self._tops = ([t for t, _ in tops], [x for _, x in tops]) if tops is not None else ([], [])
            self._scan = tops is None
        if self._scan:
            return any(y < o["y0"] < y + below and abs(o["x0"] - x0) <= 2 for o in self.recs)
        ys, xs = self._tops
        lo, hi = bisect.bisect_right(ys, y), bisect.bisect_left(ys, y + below)
        return any(abs(xs[k] - x0) <= 2 for k in range(lo, hi))


def _starts_paragraph(r: dict, geo: _PageGeo) -> bool:
    """No line just above it in its column, or the one above ends a sentence (``r`` is one of geo's)."""
    order, y1s = geo.by_bottom()
    lo = bisect.bisect_left(y1s, r["y0"] - PARA_GAP_EM * r["size"])
    hi = bisect.bisect_right(y1s, r["y0"] + 1)
    prev = None
    # ascending y1, ties in page order: keep the first of the lowest lines, as max() picks
    for i in order[lo:hi]:
        o = geo.recs[i]
        overlaps = o is not r and o["x0"] < r["x1"] and o["x1"] > r["x0"]
        if overlaps and (prev is None or o["y1"] > prev["y1"]):
            prev = o
    if prev is None:
        return True
    return prev["text"].rstrip().endswith((".", ":", "!", "?"))


class _LazyStart:
    """:func:`_starts_paragraph` of a line, computed when first asked for its truth value.

    Most candidates are never asked (only :func:`looks_like_heading`'s roman / letter branch and
    :func:`_italic_heading` read ``para_start``, through :func:`para_start`); the line's page
    records are not changed after :func:`candidates`, so the answer is the same either way.
    """

    __slots__ = ("r", "geo", "v")

    def __init__(self, r: dict, geo: _PageGeo) -> None:
        self.r, self.geo, self.v = r, geo, None

    def __bool__(self) -> bool:
        if self.v is None:
            self.v = _starts_paragraph(self.r, self.geo)
        return self.v

    def __eq__(self, other) -> bool:  # Candidate equality compares extras: by the value, as a bool did
        return bool(self) == bool(other)

    __hash__ = None

    def __repr__(self) -> str:
        return repr(bool(self))


def para_start(c: Candidate) -> bool:
    """Whether the candidate's first line opens a paragraph (``extra["para_start"]``; False if unset)."""
    return bool(c.extra.get("para_start", False))
