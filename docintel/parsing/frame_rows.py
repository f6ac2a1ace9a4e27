"""A frame's rows as namedtuples, the same as ``DataFrame.itertuples()`` gives, built from column lists.

``itertuples`` iterates every column element by element; an Arrow-backed string column
(pandas' ``str`` dtype) yields each value through Python, so a 14,000-line document costs
~0.3 s per call. ``Series.tolist()`` converts a whole column at once to the same Python
values (str / float / int / bool / NaN), so the rows here are equal field by field.
"""

from __future__ import annotations

import collections
import functools

import numpy as np
import pandas as pd


@functools.lru_cache(maxsize=64)
def _row_type(fields: tuple[str, ...]):
    return collections.namedtuple("Pandas", fields, rename=True)


def rows(df: pd.DataFrame) -> list:
    """``list(df.itertuples())``: namedtuples ``(Index, *columns)`` with the same values and types."""
    fields = ("Index", *(str(c) for c in df.columns))
    cols = [df.index.tolist(), *(df.iloc[:, k].tolist() for k in range(df.shape[1]))]
    make = _row_type(fields)._make
    return [make(vals) for vals in zip(*cols, strict=True)]


class Rows:
    """:func:`rows` of any positions of one frame, its columns read once (``take`` per page is cheap).

    ``Rows(df).take(pos)`` equals ``rows(df.iloc[pos])``: the index labels and values at those
    positions. Slicing a frame per page and reading its columns again costs a pandas ``take``
    per column per page.
    """

    def __init__(self, df: pd.DataFrame) -> None:
        self._make = _row_type(("Index", *(str(c) for c in df.columns)))._make
        self._cols = [df.index.tolist(), *(df.iloc[:, k].tolist() for k in range(df.shape[1]))]

    def take(self, positions) -> list:
        cols = self._cols
        return [self._make([c[k] for c in cols]) for k in positions]


def floats(df: pd.DataFrame, *names: str) -> list:
    """Numeric columns as float64 numpy arrays (missing values NaN): masks without pandas per filter."""
    out = []
    for n in names:
        s = df[n]
        a = s.to_numpy()
        if a.dtype.kind in "iub":  # no missing values: a plain cast
            a = a.astype(float)
        elif a.dtype != np.float64:
            a = s.to_numpy(dtype=float, na_value=np.nan)
        out.append(a)
    return out
