"""Session 7's structure fast paths give what the readings they replaced gave (issue 18, ST).

One page memo per open document for every ``CachedPage`` of a page; the figure text marked on
the figure page's own rows; the column-start test by bisection; the ruled-rectangle edge test
without ``max()``. Each is compared here with the reading it replaced.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pymupdf
import pytest

from docintel.parsing import figures, headings, tables_cells, tables_free
from tests.test_structure_fast_paths_2 import _page


def test_cached_pages_of_one_page_share_one_memo():
    doc = pymupdf.open()
    for _ in range(2):
        page = doc.new_page(width=300, height=300)
        page.draw_line((20, 50), (280, 50))
    a, b = tables_free.CachedPage(doc[0]), tables_free.CachedPage(doc[0])
    assert a._memo is b._memo  # a second wrapper of the page reads what the first read
    a.get_cdrawings()
    assert "cd" in b._memo
    assert tables_free.CachedPage(doc[1])._memo is not a._memo  # another page
    other = pymupdf.open()
    other.new_page()
    assert tables_free.CachedPage(other[0])._memo is not a._memo  # another document

    class Fake:  # a test double without a parent document keeps a memo of its own
        rect = pymupdf.Rect(0, 0, 10, 10)

    assert tables_free.CachedPage(Fake())._memo is not tables_free.CachedPage(Fake())._memo


def _figure_marks(line_df, seed: int, *, by_page: bool) -> pd.DataFrame:
    rnd = random.Random(seed)
    page_no = rnd.choice([1, 2, 3])
    art = (rnd.choice([40.0, 60.0, 280.0]), rnd.choice([60.0, 300.0]), rnd.choice([400.0, 560.0]), 700.0)
    out = line_df.copy()
    on_page = out[out["page"] == page_no]
    block = on_page.iloc[:1]
    vouched = {(page_no, int(on_page["line"].iloc[3]))}
    rows = out.groupby("page").indices[page_no] if by_page else None
    cap = (300, 701, 380, 711)  # just below the graphic, under it
    figures.figure_box(out, None, page_no, {page_no: [art]}, block, cap, "figure:1", vouched, rows=rows)
    return out


def test_figure_marks_on_the_page_rows_equal_the_whole_frame():
    marked = 0
    for seed in range(16):
        pages = [_page(seed * 10 + k, n=12).assign(page=k + 1) for k in range(3)]
        line_df = pd.concat(pages, ignore_index=True)
        line_df["object_key"] = pd.Series([None] * len(line_df), dtype=object)
        line_df["role"] = line_df["role"].astype(object)
        want = _figure_marks(line_df, seed, by_page=False)
        got = _figure_marks(line_df, seed, by_page=True)
        pd.testing.assert_frame_equal(got, want)
        marked += int((want["object_key"] == "figure:1").sum())
    assert marked  # some seeds mark figure text or headings: the write-back is exercised


@pytest.mark.parametrize("seed", range(12))
def test_left_edge_below_equals_the_scan(seed):
    rnd = random.Random(seed)
    recs = []
    for _ in range(60):
        y0 = rnd.choice(range(60, 400, 4)) + rnd.choice([0.0, 0.5])
        if seed % 4 == 0 and rnd.random() < 0.05:
            y0 = float("nan")
        recs.append({"y0": y0, "y1": y0 + 10, "x0": rnd.choice([50.0, 51.5, 53.0, 72.0]), "size": 10.0})
    geo = headings._PageGeo(recs)
    for r in recs:
        want = any(r["y1"] < o["y0"] < r["y1"] + 3 * r["size"] and abs(o["x0"] - r["x0"]) <= 2 for o in recs)
        assert geo.left_edge_below(r["y1"], 3 * r["size"], r["x0"]) == want


@pytest.mark.parametrize("w", [0.0, 1.0, 1.999, 2.0, 2.5, -1.0, math.nan])
def test_thin_rectangle_test_equals_max(w):
    assert (not w >= 2) == (max(0, w) < 2)


def test_flat_rects_keep_what_the_full_walk_keeps():
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=400)
    page.draw_rect(pymupdf.Rect(20, 100, 380, 101), fill=(0, 0, 0))  # a rule as a thin rectangle
    page.draw_line((20, 200), (380, 200))
    page.draw_rect(pymupdf.Rect(20, 250, 380, 300))  # a box: not a rule
    cp = tables_free.CachedPage(page)
    clip = (0, 0, 400, 400)
    want = sorted(
        (d["rect"][1] + d["rect"][3]) / 2
        for d in page.get_cdrawings()
        if max(0, d["rect"][3] - d["rect"][1]) <= 2 and max(0, d["rect"][2] - d["rect"][0]) >= 200
    )
    assert tables_cells.horizontal_rules(cp, clip) == tables_cells.horizontal_rules(page, clip)
    assert len(tables_cells.horizontal_rules(page, clip)) == len(want) == 2


@pytest.mark.parametrize("seed", range(10))
def test_inside_pairs_equal_the_lines_by_spans_test(seed):
    rnd = random.Random(seed)
    grid = [float(v) for v in range(0, 200, 5)]  # coarse: centres tie with the boxes' 1 pt slack
    arr = np.array(
        [
            [rnd.choice(grid) + rnd.choice([0, 1, -1]), rnd.choice(grid) + rnd.choice([0, 1, -1]), 3, 1, 0, 0]
            for _ in range(rnd.choice([0, 1, 40, 120]))
        ],
        dtype=float,
    ).reshape(-1, 6)
    if seed % 3 == 0 and len(arr):
        arr[rnd.randrange(len(arr)), 1] = np.nan  # a NaN centre passes no test
    box = []
    for _ in range(rnd.choice([1, 8, 30])):
        x0, y0 = rnd.choice(grid), rnd.choice(grid)
        box.append([x0, y0, x0 + rnd.choice([5.0, 40.0]), y0 + rnd.choice([0.0, 8.0])])
    box = np.array(box)
    if seed % 4 == 1:
        box[0, 1] = np.nan
    inside = (
        (arr[None, :, 0] >= box[:, None, 0] - 1)
        & (arr[None, :, 0] <= box[:, None, 2] + 1)
        & (arr[None, :, 1] >= box[:, None, 1] - 1)
        & (arr[None, :, 1] <= box[:, None, 3] + 1)
    )
    line, span, starts = headings._inside_pairs(arr, box)
    want_line, want_span = np.nonzero(inside)
    assert line.tolist() == want_line.tolist() and span.tolist() == want_span.tolist()
    for i in range(len(box)):
        assert span[starts[i] : starts[i + 1]].tolist() == np.flatnonzero(inside[i]).tolist()
