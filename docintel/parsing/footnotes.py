"""Footnotes: small-type runs at the bottom of a column that start with a marker (:mod:`furniture`).

A ``(page, column)`` group's own text size is its most common size (rounded to 0.1 pt, weighted
by characters); the run is the group's bottom lines set at most ``SMALL`` of it, bottom-up as
``sort_values("y0", ascending=False)`` orders them, kept from its topmost marker line down when
it holds under half the group's characters.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pandas as pd

_MARKER = re.compile(r"^(\d{1,3}|[*∗†‡§¶⋆])\s*\S")


def _argsort_desc_like_pandas(v: np.ndarray) -> np.ndarray:
    """Positions of ``v`` in the order ``Series.sort_values(ascending=False)`` gives (pandas' nargsort)."""
    idx = np.arange(len(v))
    nan = np.isnan(v)
    non_nans, non_nan_idx = v[~nan][::-1], idx[~nan][::-1]
    return np.concatenate([non_nan_idx[non_nans.argsort(kind="quicksort")][::-1], idx[nan]])


def mark_footnotes(df: pd.DataFrame, texts: list | None = None, role: np.ndarray | None = None) -> None:
    """Small-type runs at the bottom of a column that start with a footnote marker.

    ``texts``: ``df["text"].tolist()`` when the caller has it; ``role``: the caller's role array,
    marked in place (the caller writes the column), else ``df["role"]`` is read and written.
    The body lines are read by position from whole-frame columns (no filtered copy of the frame).
    """
    roles = df["role"] if role is None else pd.Series(role, copy=False)
    at = np.flatnonzero(roles.isin(["body", "list_item"]).to_numpy())
    if not len(at):
        return
    # plain column lists read once; each (page, column) group takes its rows by position
    sizes = df["size"].to_numpy(dtype=float)[at]
    sizes_all = sizes.tolist()
    texts = df["text"].tolist() if texts is None else texts
    texts_all = [texts[i] for i in at.tolist()]
    y0_all = df["y0"].to_numpy(dtype=float)[at]
    marks_all = (
        df["_marker"].take(at).tolist() if "_marker" in df.columns else [False] * len(at)
    )  # NaN (a layout row) counts as a marker, as bool(NaN) always did
    groups = _groups(df, at)
    local_of = _local_sizes(groups, sizes, texts_all)
    notes: list = []  # the footnote lines' positions in ``at``, set at once (one .at per line was slow)
    for g, (_key, pos) in enumerate(groups):
        local = local_of[g] if local_of is not None else _local_size(pos, sizes_all, texts_all)
        cut = 0.92 * local
        ys = y0_all[pos]
        # the run starts at the bottom-most line: when every line at the lowest y0 is larger than
        # the cut there is no run whichever of them the sort puts first (no NaN: NaN sorts last)
        if not np.isnan(ys).any() and (sizes[pos[ys == ys.max()]] > cut).all():
            continue
        # bottom-up, in exactly the order DataFrame.sort_values("y0", ascending=False) gives
        low = pos[_argsort_desc_like_pandas(ys)]
        run: list[int] = []  # positions in ``at``
        for k in low:
            if sizes_all[k] <= cut:
                run.append(k)
            else:
                break
        if not run:
            continue
        starts = [k for k in run if bool(marks_all[k]) or _MARKER.match(str(texts_all[k]))]
        chars = sum(len(str(texts_all[k])) for k in run)
        if starts and chars < 0.5 * sum(len(texts_all[k]) for k in pos):
            # The run starts at its topmost marker line; small lines above it are not footnotes.
            first = min(float(y0_all[k]) for k in starts)
            notes.extend(k for k in run if float(y0_all[k]) >= first - 0.5)
    if not notes:
        return
    if role is not None:
        role[at[notes]] = "footnote"
    else:
        df.loc[df.index[at[notes]], "role"] = "footnote"


def _local_size(pos, sizes_all: list, texts_all: list) -> float:
    """The group's most common size rounded to 0.1 pt, weighted by characters (ties: first seen)."""
    weights: Counter = Counter()
    rounded: dict[float, float] = {}
    for k in pos:
        size = sizes_all[k]
        weights[rounded[size] if size in rounded else rounded.setdefault(size, round(size, 1))] += len(
            texts_all[k]
        )
    return weights.most_common(1)[0][0]


def _local_sizes(groups: list, sizes: np.ndarray, texts_all: list) -> list[float] | None:
    """:func:`_local_size` of every group at once; None when a size is NaN (each NaN its own key)."""
    if not groups or np.isnan(sizes).any():
        return None
    uniq = np.unique(sizes)
    rounded = np.array([round(float(u), 1) for u in uniq])[np.searchsorted(uniq, sizes)]
    lens = np.fromiter(map(len, texts_all), dtype=np.int64, count=len(texts_all))
    pos = np.concatenate([p for _k, p in groups])
    gid = np.repeat(np.arange(len(groups)), [len(p) for _k, p in groups])
    # (group, rounded size) runs: their summed weight and first position
    order = np.lexsort((rounded[pos], gid))
    g, r, w, first = gid[order], rounded[pos][order], lens[pos][order], pos[order]
    at = np.flatnonzero(np.r_[True, (g[1:] != g[:-1]) | (r[1:] != r[:-1])])
    g, r, w, first = g[at], r[at], np.add.reduceat(w, at), np.minimum.reduceat(first, at)
    # Counter.most_common(1): the largest weight, the first inserted (lowest position) on a tie
    best = np.lexsort((first, -w, g))
    best = best[np.r_[True, g[best][1:] != g[best][:-1]]]
    return r[best].tolist()


def _groups(df: pd.DataFrame, at: np.ndarray) -> list[tuple[tuple, np.ndarray]]:
    """``df.take(at).groupby(["page", "column"]).indices`` without NaN keys, groups of 2+ lines.

    Numeric page and column: one stable sort (positions ascending inside a group, as pandas
    gives them; the groups' order does not matter to the caller). Otherwise pandas' groupby.
    """
    page, col = df["page"].to_numpy()[at], df["column"].to_numpy()[at]
    if not (page.dtype.kind in "iuf" and col.dtype.kind in "iuf"):
        return [
            (key, pos)
            for key, pos in df[["page", "column"]].take(at).groupby(["page", "column"]).indices.items()
            if not (len(pos) < 2 or pd.isna(key[1]) or pd.isna(key[0]))
        ]
    keep = np.ones(len(at), dtype=bool)
    for v in (page, col):
        if v.dtype.kind == "f":
            keep &= ~np.isnan(v)
    ok = np.flatnonzero(keep)
    order = ok[np.lexsort((col[ok], page[ok]))]
    cuts = np.flatnonzero((page[order][1:] != page[order][:-1]) | (col[order][1:] != col[order][:-1])) + 1
    return [((page[p[0]], col[p[0]]), p) for p in np.split(order, cuts) if len(p) >= 2]
