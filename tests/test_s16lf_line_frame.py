"""Session 16 (lf): the line frame built from columns (frame_rows.columns_of / frame) is the frame
``pd.DataFrame(rows)`` gives: the same columns in the same order, dtypes, index and values."""

from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest

from docintel.parsing import frame_rows
from docintel.parsing.frame_rows import columns_of, frame

_KEYS = ["text", "x0", "y0", "block", "bold", "_rot", "_margin", "role", "page", "odd"]
#: values each key may take: one exact type mostly, then the mixtures pandas infers otherwise
_VALUES = {
    "text": ["a", "Word", "", "1.2", "\u2020 note", None, math.nan],
    "x0": [1.0, 50.5, -0.0, math.nan, math.inf, 3, True],
    "y0": [20.0, 700.25, 1e300],
    "block": [0, 1, 7, 300, -1, 2**62, 2**63, -(2**63) - 1, 2.5],
    "bold": [True, False, 1, None],
    "_rot": [True, False],
    "_margin": [True, False, math.nan],
    "role": ["body", "header", "list_item"],
    "page": [1, 2, 800],
    "odd": [(1, 0), "s", 1, 1.5, None, np.float64(2.0), np.int64(3), np.bool_(True)],
}


def _rows(rng: random.Random, n: int, keys: list[str], pure: bool) -> list[dict]:
    """``n`` row dicts over ``keys`` (a shuffled order now and then, a key left out now and then);
    ``pure``: each key's values of its first (exact) type only."""
    out = []
    for _ in range(n):
        ks = list(keys)
        if rng.random() < 0.1:
            rng.shuffle(ks)
        if rng.random() < 0.1 and len(ks) > 1:
            ks.pop(rng.randrange(len(ks)))
        row = {}
        for k in ks:
            vals = _VALUES[k]
            if pure:
                vals = [v for v in vals if type(v) is type(vals[0])]
            row[k] = rng.choice(vals)
        out.append(row)
    return out


def _same(pages: list[list[dict]]) -> None:
    rows = [r for p in pages for r in p]
    want = pd.DataFrame(rows)
    got = frame([columns_of(p) for p in pages])
    assert list(got.columns) == list(want.columns)
    assert got.columns.dtype == want.columns.dtype
    assert list(got.dtypes) == list(want.dtypes)
    assert type(got.index) is type(want.index) and got.index.equals(want.index)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    for c in want.columns:  # (object columns: the same Python values, NaN where pandas has NaN)
        if want[c].dtype == object:
            for a, b in zip(got[c].tolist(), want[c].tolist(), strict=True):
                assert type(a) is type(b) and (a == b or (a != a and b != b)), (c, a, b)


@pytest.mark.parametrize("seed", range(40))
def test_frame_equals_dataframe_of_dicts(seed):
    rng = random.Random(seed)
    keys = rng.sample(_KEYS, rng.randint(1, len(_KEYS)))
    pure = seed % 2 == 0
    pages = [_rows(rng, rng.choice([0, 1, 2, 5, 30]), keys, pure) for _ in range(rng.randint(1, 8))]
    if not any(pages):
        pages.append(_rows(rng, 3, keys, pure))
    _same(pages)


def test_page_stage_shapes():
    """The page stage's own shapes: every row with the same keys; a key (``_margin``) on some
    pages' rows only, first seen on a later page; an empty page; keys in another order."""
    base = {"text": "a", "x0": 1.0, "block": 0, "bold": False, "role": "body", "page": 1}
    p1 = [dict(base, line=i) for i in range(1, 4)]
    p2 = []
    p3 = [dict(base, page=3, line=1), dict(base, page=3, line=2, _margin=True)]
    p4 = [{"line": 1, **dict(base, page=4)}]
    _same([p1, p2, p3, p4])
    _same([p3, p1])
    _same([[dict(base, line=1)]])


def test_one_key_and_big_ints():
    _same([[{"a": 1}, {"a": 2}], [{"a": 3}]])
    _same([[{"a": 2**63}, {"a": 1}]])  # beyond int64: pandas' uint64
    _same([[{"a": -(2**63) - 1}], [{"a": 1}]])  # beyond int64 the other way: object
    _same([[{"a": 1, "b": True}], [{"a": 1.5, "b": 1}]])  # int + float: float64; bool + int: object


def test_public_path_equals(monkeypatch):
    """Without pandas' internal converter the frame takes the public path, with the same result."""
    rng = random.Random(7)
    pages = [_rows(rng, 20, _KEYS, seed % 2 == 0) for seed in range(4)]
    want = frame([columns_of(p) for p in pages])
    monkeypatch.setattr(frame_rows, "_convert_objects", None)
    got = frame([columns_of(p) for p in pages])
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert list(got.dtypes) == list(want.dtypes)


def test_surrogates_fail_as_pandas_does():
    rows = [{"text": "a\ud800b", "x": 1.0}]
    with pytest.raises(UnicodeEncodeError):
        pd.DataFrame(rows)
    with pytest.raises(UnicodeEncodeError):
        frame([columns_of(rows)])
