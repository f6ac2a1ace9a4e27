"""A frame's rows as namedtuples, the same as ``DataFrame.itertuples()`` gives, built from column lists;
and the other way: row dicts gathered page by page as columns, made into the frame
``pd.DataFrame(rows)`` gives (:func:`columns_of`, :func:`frame`).

``itertuples`` iterates every column element by element; an Arrow-backed string column
(pandas' ``str`` dtype) yields each value through Python, so a 14,000-line document costs
~0.3 s per call. ``Series.tolist()`` converts a whole column at once to the same Python
values (str / float / int / bool / NaN), so the rows here are equal field by field.
"""

from __future__ import annotations

import collections
import contextlib
import functools
from itertools import chain
from operator import itemgetter

import numpy as np
import pandas as pd
import pyarrow as pa

try:  # what DataFrame(list of dicts) runs on each column of Python objects (pandas' own inference)
    from pandas.core.internals.construction import convert_object_array as _convert_objects

    _from_arrays = pd.DataFrame._from_arrays
except (ImportError, AttributeError):  # (another pandas: frame() takes the public path, same result)
    _convert_objects = _from_arrays = None


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


#: numpy's dtype of a column whose values are all of one exact Python type (what pandas infers)
_TYPED = {float: np.dtype(np.float64), int: np.dtype(np.int64), bool: np.dtype(bool)}


def columns_of(rows: list[dict]) -> tuple[tuple, list, int]:
    """``(keys, columns, count)`` of a list of row dicts, for :func:`frame`.

    ``keys`` in first appearance (pandas' order for a list of dicts), the values of each key in
    row order (a missing key's value NaN, as pandas fills it). Taken as each page's dicts are
    made (the page stage), so the frame does not read every dict again long after.
    """
    if not rows:
        return (), [], 0
    keys = tuple(rows[0])
    if len(keys) > 1 and set(map(len, rows)) == {len(keys)}:
        with contextlib.suppress(KeyError):  # (most pages: every row has the first row's keys, no other)
            return keys, list(zip(*map(itemgetter(*keys), rows), strict=True)), len(rows)
    keys = tuple(dict.fromkeys(chain.from_iterable(rows)))
    return keys, [[r.get(k, np.nan) for r in rows] for k in keys], len(rows)


def _array(parts: list, n: int):
    """pandas' array of one column from its parts (sequences of values), as DataFrame(list of
    dicts) makes it: float64 / int64 / bool read directly when every value is one exact type (the
    dtype pandas infers of them), else pandas' own inference of the values."""
    kind = type(parts[0][0])
    dtype = _TYPED.get(kind)
    if (dtype is not None or kind is str) and set(map(type, chain.from_iterable(parts))) == {kind}:
        if kind is str:
            # what pandas' inference makes of strings alone: its ``str`` dtype, Arrow-backed here
            # (the same large_string array its conversion builds, without its copy to objects)
            str_dtype = pd.StringDtype(na_value=np.nan)
            if str_dtype.storage == "pyarrow":
                arrow = pa.array(list(chain.from_iterable(parts)), type=pa.large_string())
                return str_dtype.construct_array_type()(arrow, dtype=str_dtype)
        else:
            with contextlib.suppress(OverflowError):  # (an int beyond int64: pandas' uint64 / object)
                return np.fromiter(chain.from_iterable(parts), dtype=dtype, count=n)
    values = np.fromiter(chain.from_iterable(parts), dtype=object, count=n)
    return _convert_objects([values], dtype=None)[0]


def frame(blocks: list[tuple[tuple, list, int]]) -> pd.DataFrame:
    """``pd.DataFrame(rows)`` of the rows of every block in order (:func:`columns_of`): the same
    columns in the same order, dtypes and values (a key some rows lack: NaN there)."""
    cols: dict = {}
    n = 0
    for keys, columns, m in blocks:
        if not m:
            continue
        for key, col in zip(keys, columns, strict=True):
            have = cols.get(key)
            if have is None:  # a key first seen here: NaN in the rows before
                cols[key] = have = [[np.nan] * n] if n else []
            have.append(col)
        if len(cols) > len(keys):  # keys this block's rows lack: NaN there
            own = set(keys)
            for key, have in cols.items():
                if key not in own:
                    have.append([np.nan] * m)
        n += m
    if _convert_objects is None:  # (another pandas) the public path: the same per-column inference
        return pd.DataFrame(
            list(zip(*(chain.from_iterable(p) for p in cols.values()), strict=True)), columns=list(cols)
        )
    arrays = [_array(parts, n) for parts in cols.values()]
    return _from_arrays(arrays, columns=list(cols), index=pd.RangeIndex(n), verify_integrity=False)
