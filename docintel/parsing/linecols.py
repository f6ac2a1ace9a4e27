"""line_df's Arrow-backed columns as Python lists, converted once per parse (issue 18).

Every structure stage reads the line texts as a plain list (iterating the Arrow-backed column is
slow) and each converted it again: ~4 ms per 14k lines a stage. pandas' string column keeps its
immutable pyarrow array through ``copy()``, column drops and writes to *other* columns, so the
stages of one parse hand each other the same array until a stage rewrites the text. Inside
:func:`shared` (the PyMuPDF parse), :func:`tolist` keeps each array's list, keyed by the array
object itself (held, so its id is not reused) and the column's dtype: the same array has the same values, and a
rewritten column is a new array, converted anew. Outside it, :func:`tolist` is ``Series.tolist``.

The lists are shared between the stages: callers must not mutate them.
"""

from __future__ import annotations

import contextlib
import threading

import pandas as pd

_local = threading.local()


@contextlib.contextmanager
def shared():
    """Share the column lists converted inside this block (one parse, one thread)."""
    prev = getattr(_local, "memo", None)
    _local.memo = {}
    try:
        yield
    finally:
        _local.memo = prev


def tolist(col: pd.Series) -> list:
    """``col.tolist()``, the same list object for every read of the same Arrow array in :func:`shared`."""
    memo = getattr(_local, "memo", None)
    arr = getattr(col.array, "_pa_array", None) if memo is not None else None
    if arr is None:
        return col.tolist()
    # (the dtype too: one array under another string dtype lists its nulls as pd.NA, not NaN)
    key = (id(arr), col.dtype)
    hit = memo.get(key)
    if hit is not None and hit[0] is arr:
        return hit[1]
    out = col.tolist()
    memo[key] = (arr, out)
    return out
