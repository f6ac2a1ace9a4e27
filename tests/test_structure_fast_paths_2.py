"""Session 6's structure fast paths give what the pandas readings they replaced gave (issue 18, ST).

Caption blocks, the paragraph-continuation test, the table clip and figure prose lines moved
from a pandas boolean filter per test to numpy masks over the page's columns; baseline groups
skip, by bisection, the groups that cannot share a line's baseline. Each is compared here with
the reading it replaced (kept below as the reference) on random page frames built to hit ties,
missing values and overlapping lines.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pandas as pd
import pytest

from docintel.parsing import captions, frame_rows, graphics, headings, tables_captioned
from docintel.parsing.captions import CAPTION

WORDS = ["Table 2-1: Rules", "Figure 3. Flow", "the system shall log each event in the audit record"]
WORDS += ["relu", "25.03", "Overview", "of the controls that the organization selects", "(a)"]


def _page(seed: int, n: int = 40) -> pd.DataFrame:
    """A page's lines on a coarse grid (so edges tie), in reading order, index labels shuffled."""
    rnd = random.Random(seed)
    rows = []
    for _ in range(n):
        x0 = rnd.choice([50.0, 72.0, 72.0, 300.0, 320.5])
        y0 = rnd.choice(range(60, 700, 6)) + rnd.choice([0.0, 0.0, 0.5])
        size = rnd.choice([8.0, 9.0, 10.0, 10.0, 10.4, 12.0])
        rows.append(
            {
                "text": rnd.choice(WORDS),
                "x0": x0,
                "y0": y0,
                "x1": x0 + rnd.choice([20.0, 150.0, 240.0, 480.0]),
                "y1": y0 + size,
                "size": size,
                "column": rnd.choice([-1, 0, 1, 1]),
                "role": rnd.choice(["body", "body", "body", "heading", "caption", "table"]),
                "line": 0,
            }
        )
    df = pd.DataFrame(rows).sort_values(["y0", "x0"], kind="stable").reset_index(drop=True)
    df["line"] = range(1, len(df) + 1)
    df["text"] = df["text"].astype("str")
    df["role"] = df["role"].astype("str")
    df.index = rnd.sample(range(1000, 1000 + 3 * len(df)), len(df))
    return df


# --- the readings replaced (session 5's code, kept as the reference) -------------------------


def _old_is_paragraph_continuation(pl, r) -> bool:
    above = pl[(pl.y1 <= r.y0 + 1) & (pl.y1 >= r.y0 - 0.9 * r.size) & (pl.x0 < r.x1) & (pl.x1 > r.x0)]
    if above.empty:
        return False
    prev = above.loc[above.y1.idxmax()]
    text = str(prev.text).rstrip()
    prose = len(text.split()) >= 5 and len(re.findall(r"[^\W\d_]{2,}", text)) >= 4
    return (
        prose
        and abs(prev["size"] - r.size) < 0.6
        and not text.endswith((".", ":", ")"))
        and prev.role == "body"
    )


def _old_caption_block(pl, r):
    rows = [r.Index]
    y1, x0, x1 = r.y1, r.x0, r.x1
    same_row = pl[
        (pl.x0 >= r.x1 - 1)
        & (pl.x0 <= r.x1 + 3 * r.size)
        & ((pl.y1 - r.y1).abs() <= 0.35 * r.size)
        & ((pl["size"] - r.size).abs() < 0.6)
        & ~pl.index.isin(rows)
    ].sort_values("x0")
    for k, n in same_row.iterrows():
        if n.x0 > x1 + 3 * r.size or CAPTION.match(str(n.text)):
            break
        rows.append(k)
        x1 = max(x1, n.x1)
    for _ in range(8):
        nxt = pl[
            (pl.y0 >= y1 - 1)
            & (pl.y0 <= y1 + 0.5 * r.size)
            & (pl.x0 < x1)
            & (pl.x1 > x0)
            & ((pl["size"] - r.size).abs() < 0.6)
            & ~pl.index.isin(rows)
        ]
        if nxt.empty:
            break
        n = nxt.loc[nxt.y0.idxmin()]
        if CAPTION.match(str(n.text)) or len(nxt) > 1:
            break
        rows.append(n.name)
        y1 = n.y1
        x0, x1 = min(x0, n.x0), max(x1, n.x1)
    return pl.loc[rows]


def _old_column_of(pl, cap):
    hit = pl[(pl.y0 >= cap[1] - 1) & (pl.y0 <= cap[1] + 1) & (pl.x0 >= cap[0] - 1) & (pl.x0 <= cap[0] + 1)]
    if hit.empty or pd.isna(hit.iloc[0]["column"]):
        return None
    return int(hit.iloc[0]["column"])


def _old_table_clip(pl, cap, width, height, *, above=False, prose_stops=True, body=10.0):
    xc = (cap[0] + cap[2]) / 2
    cols = pl["column"].dropna()
    col_lines = pl[pl["column"] == col] if (col := _old_column_of(pl, cap)) is not None else pl.iloc[0:0]
    full = (
        cols.max() < 1
        or col is None
        or col < 0
        or len(col_lines) < 3
        or (cap[2] - cap[0]) > 0.55 * width
        or abs(xc - width / 2) < 0.08 * width
    )
    if full:
        x0, x1 = min(cap[0], 0.08 * width), max(cap[2], 0.92 * width)
    else:
        x0, x1 = min(cap[0], col_lines.x0.min()) - 2, max(cap[2], col_lines.x1.max()) + 2
    near = pl[(pl.x1 > x0) & (pl.x0 < x1)]
    if above:
        cand = near[near.y1 <= cap[1] + 1].sort_values("y1", ascending=False)
        edge = max(40.0, cap[1] - 0.6 * height)
    else:
        cand = near[near.y0 >= cap[3] - 1].sort_values("y0")
        edge = min(height - 40, cap[3] + 0.6 * height)
    for r in cand.itertuples():
        words = len(str(r.text).split())
        cjk = len(tables_captioned._CJK.findall(str(r.text))) >= 16 and r.size >= body - 0.5
        prose = prose_stops and (words >= 12 or cjk) and (r.x1 - r.x0) > 0.6 * (cap[2] - cap[0])
        if prose or r.role in ("heading", "caption", "title") or CAPTION.match(str(r.text)):
            edge = (r.y1 + 1) if above else (r.y0 - 1)
            break
    return (x0, edge, x1, cap[1] - 0.5) if above else (x0, cap[3] + 0.5, x1, edge)


def _old_prose_lines(pg) -> set:
    words = pg["text"].astype(str).str.split().str.len()
    prose = set(pg.index[words >= graphics.PROSE_WORDS])
    for r in pg.sort_values("y0").itertuples():
        if r.Index in prose:
            continue
        h = r.y1 - r.y0
        run_on = (
            pg.index.isin(prose)
            & ((pg["x0"] - r.x0).abs() <= 2)
            & (pg["y1"] <= r.y0 + 0.5 * h)
            & (pg["y1"] >= r.y0 - 0.8 * h)
        )
        if run_on.any():
            prose.add(r.Index)
    return prose


def _old_baseline_groups(recs: list[dict]) -> list[list[dict]]:
    groups: list[list[dict]] = []
    for r in sorted(recs, key=lambda r: (r["y1"], r["x0"])):
        for g in groups[max(len(groups) - 8, 0) :]:
            h = g[0]
            m = max(h["size"], r["size"])
            if (
                abs(h["y1"] - r["y1"]) <= headings.BASELINE_BOTTOM_EM * m
                and abs(h["y0"] - r["y0"]) <= headings.BASELINE_TOP_EM * m
                and h["column"] == r["column"]
            ):
                g.append(r)
                break
        else:
            groups.append([r])
    return [sorted(g, key=lambda r: r["x0"]) for g in groups]


# --- the comparisons --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_caption_helpers_equal_the_pandas_readings(seed):
    pl = _page(seed, n=30)
    for r in frame_rows.rows(pl):
        assert captions._is_paragraph_continuation(pl, r) == _old_is_paragraph_continuation(pl, r)
        new, old = captions._caption_block(pl, r), _old_caption_block(pl, r)
        assert list(new.index) == list(old.index)
        cap = (new.x0.min(), new.y0.min(), new.x1.max(), new.y1.max())
        for above in (False, True):
            for stops in (False, True):
                got = tables_captioned._table_clip(pl, cap, 612.0, 792.0, above=above, prose_stops=stops)
                want = _old_table_clip(pl, cap, 612.0, 792.0, above=above, prose_stops=stops)
                assert got == want


def test_table_clip_without_known_columns():
    pl = _page(3)
    pl["column"] = np.nan  # no line has a known column
    cap = (72.0, 300.0, 200.0, 310.0)
    for above in (False, True):
        assert tables_captioned._table_clip(pl, cap, 612.0, 792.0, above=above) == _old_table_clip(
            pl, cap, 612.0, 792.0, above=above
        )


@pytest.mark.parametrize("seed", range(4))
def test_prose_lines_equal_the_pandas_reading(seed):
    pg = _page(seed, n=60)
    assert graphics._prose_lines(pg) == _old_prose_lines(pg)
    assert graphics._prose_lines(pg.iloc[0:0]) == set()


@pytest.mark.parametrize("seed", range(20))
def test_baseline_groups_equal_the_full_scan(seed):
    rnd = random.Random(seed)
    recs = []
    for i in range(80):
        size = rnd.choice(
            [6.0, 9.0, 10.0, 10.0, 24.0, float("nan")] if seed % 4 == 0 else [6.0, 9.0, 10.0, 24.0]
        )
        y1 = rnd.choice(range(100, 400, 3)) + rnd.choice([0.0, 0.4, 1.1])
        recs.append({"y1": y1, "y0": y1 - size, "x0": rnd.choice(range(50, 500, 25)) + 0.0, "size": size})
        recs[-1]["column"] = rnd.choice([0, 1])
        recs[-1]["i"] = i
    got = [[r["i"] for r in g] for g in headings._baseline_groups(recs)]
    want = [[r["i"] for r in g] for g in _old_baseline_groups(recs)]
    assert got == want


def test_floats_reads_any_numeric_column_as_float64():
    df = pd.DataFrame(
        {"a": [1, 2], "b": [1.5, np.nan], "c": pd.array([1, None], dtype="Int64"), "d": [True, False]}
    )
    a, b, c, d = frame_rows.floats(df, "a", "b", "c", "d")
    assert all(x.dtype == np.float64 for x in (a, b, c, d))
    assert a.tolist() == [1.0, 2.0] and np.isnan(b[1]) and np.isnan(c[1]) and d.tolist() == [1.0, 0.0]
