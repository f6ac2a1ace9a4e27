"""Session 14's structure-stage fast paths read exactly as the code they replaced (issue 18).

Each test keeps the replaced implementation here, runs both on random inputs shaped like the
parse's (ties, NaN, repeated sizes) and compares the results.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from docintel.parsing import footnotes, tables_text

_MARKER = re.compile(r"^(\d{1,3}|[*∗†‡§¶⋆])\s*\S")


def _old_mark_footnotes(df: pd.DataFrame) -> None:
    """furniture._mark_footnotes as of session 13 (dba5a55)."""
    body = df[df["role"].isin(["body", "list_item"])]
    if body.empty:
        return
    sizes_all = body["size"].astype(float).tolist()
    texts_all = body["text"].tolist()
    y0_all = body["y0"].to_numpy(dtype=float)
    marks_all = body["_marker"].tolist() if "_marker" in body.columns else [False] * len(body)
    labels = body.index
    rounded: dict[float, float] = {}
    notes: list = []
    for (_page, col), pos in body.groupby(["page", "column"]).indices.items():
        if len(pos) < 2 or pd.isna(col) or pd.isna(_page):
            continue
        weights = Counter()
        for k in pos:
            size = sizes_all[k]
            weights[rounded[size] if size in rounded else rounded.setdefault(size, round(size, 1))] += len(
                texts_all[k]
            )
        local = weights.most_common(1)[0][0]
        low = pos[footnotes._argsort_desc_like_pandas(y0_all[pos])]
        run: list[int] = []
        for k in low:
            if sizes_all[k] <= 0.92 * local:
                run.append(k)
            else:
                break
        if not run:
            continue
        starts = [k for k in run if bool(marks_all[k]) or _MARKER.match(str(texts_all[k]))]
        chars = sum(len(str(texts_all[k])) for k in run)
        if starts and chars < 0.5 * sum(len(texts_all[k]) for k in pos):
            first = min(float(y0_all[k]) for k in starts)
            notes.extend(labels[k] for k in run if float(y0_all[k]) >= first - 0.5)
    if notes:
        df.loc[notes, "role"] = "footnote"


def _lines(rng: random.Random, n: int, *, nan_sizes: bool, float_columns: bool) -> pd.DataFrame:
    sizes = [10.0, 10.04, 9.96, 8.0, 7.96, 9.0, 6.5]
    texts = ["1 A note on the text", "* starred", "plain body text here", "x", "2 another", "ab", "§ 3"]
    rows = []
    for _ in range(n):
        page = rng.randint(1, 6)
        col = rng.choice([0, 1, 1, -1]) if not float_columns else rng.choice([0.0, 1.0, float("nan")])
        size = rng.choice(sizes)
        if nan_sizes and rng.random() < 0.05:
            size = float("nan")
        rows.append(
            {
                "page": page,
                "column": col,
                "text": rng.choice(texts),
                "y0": float(rng.choice([700, 710, 710, 720, 100, 300, 500])) + rng.choice([0.0, 0.25]),
                "size": size,
                "role": rng.choice(["body", "body", "list_item", "header", "table"]),
            }
        )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("seed", range(40))
def test_footnotes_equal_the_session13_reading(seed):
    rng = random.Random(seed)
    df = _lines(rng, rng.randint(5, 160), nan_sizes=seed % 4 == 1, float_columns=seed % 3 == 2)
    if seed % 5 == 0:
        df.loc[df.index[::3], "y0"] = float("nan")
    want = df.copy()
    _old_mark_footnotes(want)
    # the caller's role array, written back by the caller
    role = df["role"].to_numpy(copy=True)
    footnotes.mark_footnotes(df, df["text"].tolist(), role)
    assert role.tolist() == want["role"].tolist()
    # the frame route (no role array)
    again = df.copy()
    footnotes.mark_footnotes(again)
    pd.testing.assert_frame_equal(again, want)


def test_footnotes_find_a_marked_run():
    """The fixture above must exercise the marking (a test that never marks compares nothing)."""
    marked = 0
    for seed in range(40):
        rng = random.Random(seed)
        df = _lines(rng, rng.randint(5, 160), nan_sizes=False, float_columns=False)
        footnotes.mark_footnotes(df)
        marked += int((df["role"] == "footnote").sum())
    assert marked > 20


def _old_rewrite_tail(pl, inside, src, phrases):
    """tables_text._rewrite's rows after the read, as of session 13: a frame of the phrases' rows
    (each its source line's values) concatenated between the lines before and after."""
    own = {
        "text": [p.text for p in phrases],
        "x0": [p.x0 for p in phrases],
        "y0": [p.y0 for p in phrases],
        "x1": [p.x1 for p in phrases],
        "y1": [p.y1 for p in phrases],
    }
    idx = np.asarray(src, dtype=np.intp)
    cols = {c: own[c] if c in own else pl.iloc[:, k].take(idx).tolist() for k, c in enumerate(pl.columns)}
    rows = pd.DataFrame(cols, columns=pl.columns).set_axis(pl.index[src], axis=0)
    line = pl["line"].to_numpy()
    first = int(line[np.flatnonzero(inside)].min())
    before = pl.iloc[np.flatnonzero(~inside & (line < first))]
    after = pl.iloc[np.flatnonzero(~inside & (line > first))]
    out = pd.concat([before, rows, after])
    out["line"] = range(1, len(out) + 1)
    return out


@pytest.mark.parametrize("seed", range(20))
def test_rewritten_rows_equal_the_session13_frame(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 30))
    pl = pd.DataFrame(
        {
            "text": [f"line {k}" for k in range(n)],
            "x0": rng.uniform(0, 300, n),
            "y0": np.sort(rng.uniform(0, 700, n)),
            "x1": rng.uniform(300, 600, n),
            "y1": rng.uniform(0, 700, n),
            "size": rng.choice([9.0, 10.0], n),
            "bold": rng.choice([True, False], n),
            "role": rng.choice(["body", "table"], n),
            "column": rng.choice([0, 1], n),
            "line": np.arange(1, n + 1),
        }
    ).set_axis(np.sort(rng.choice(1000, n, replace=False)), axis=0)
    inside = rng.random(n) < 0.4
    inside[int(rng.integers(0, n))] = True
    pos = np.flatnonzero(inside)
    src = [int(rng.choice(pos)) for _ in range(int(rng.integers(1, 12)))]
    phrases = [
        SimpleNamespace(text=f"p{k}", x0=float(k), y0=float(k) + 0.5, x1=float(k) + 9, y1=float(k) + 1)
        for k in range(len(src))
    ]
    want = _old_rewrite_tail(pl, inside, src, phrases)
    line = pl["line"].to_numpy()
    first = int(line[pos].min())
    before = np.flatnonzero(~inside & (line < first))
    after = np.flatnonzero(~inside & (line > first))
    got = pl.take(np.concatenate([before, np.asarray(src, dtype=np.intp), after]))
    tables_text._set_phrases(got, pl, before, after, phrases)
    got["line"] = range(1, len(got) + 1)
    pd.testing.assert_frame_equal(got, want)
