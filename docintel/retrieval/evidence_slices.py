"""Evidence lines and object cells as slices: the regions the resolver reads, found by binary
search on one ``page * 10**6 + line`` key array per document (no per-target filtering of the
whole frame). :mod:`.targets` builds passages from them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from docintel.retrieval.framememo import per_frame
from docintel.schema.document import DocTables
from docintel.schema.kinds import NON_EVIDENCE_ROLES

#: id(line_df) -> [line_df, its evidence lines (None until a caller needs the whole frame), their
#: page * 10**6 + line keys, numpy columns, the evidence rows' positions in line_df (None when
#: line_df is not in reading order)]: one filter per document, not per target; every region is
#: then a slice found by binary search, taken from line_df itself.
_EVIDENCE: dict[int, list] = {}
#: id(cell_df) -> (cell_df, object_key -> positions of its cells): one grouping per document.
_CELLS: dict[int, tuple[pd.DataFrame, dict]] = {}
_LINE = 10**6


def _evidence_entry(tables: DocTables) -> list:
    ldf = tables.line_df
    hit = _EVIDENCE.get(id(ldf))
    if hit is None or hit[0] is not ldf:
        if len(_EVIDENCE) >= 8:
            _EVIDENCE.pop(next(iter(_EVIDENCE)))
        at = np.flatnonzero(~ldf["role"].isin(NON_EVIDENCE_ROLES).to_numpy(dtype=bool))
        kept = None
        keys = ldf["page"].to_numpy(np.int64)[at] * _LINE + ldf["line"].to_numpy(np.int64)[at]
        if len(keys) > 1 and not bool((np.diff(keys) > 0).all()):  # not already in reading order
            kept = ldf[~ldf["role"].isin(NON_EVIDENCE_ROLES)].sort_values(["page", "line"])
            keys = kept["page"].to_numpy(np.int64) * _LINE + kept["line"].to_numpy(np.int64)
            at = None
        hit = _EVIDENCE[id(ldf)] = [ldf, kept, keys, {}, at]
    return hit


def _evidence(tables: DocTables) -> tuple[pd.DataFrame, np.ndarray]:
    """The evidence lines (the whole frame) and their keys."""
    entry = _evidence_entry(tables)
    if entry[1] is None:
        ldf = entry[0]
        entry[1] = ldf[~ldf["role"].isin(NON_EVIDENCE_ROLES)]
    return entry[1], entry[2]


def _keys(tables: DocTables) -> np.ndarray:
    return _evidence_entry(tables)[2]


def _rows(tables: DocTables, lo: int, hi: int) -> pd.DataFrame:
    """Evidence lines ``lo:hi`` (in reading order): a slice of the whole frame once it is built,
    else the same rows taken from line_df."""
    entry = _evidence_entry(tables)
    if entry[1] is not None or entry[4] is None:
        return _evidence(tables)[0].iloc[lo:hi]
    return entry[0].iloc[entry[4][lo:hi]]


def _evidence_column(tables: DocTables, name: str) -> np.ndarray:
    """One column of :func:`evidence_lines` as a numpy array (once per line_df object)."""
    entry = _evidence_entry(tables)
    arrays = entry[3]
    if name not in arrays:
        if entry[1] is None and entry[4] is not None:
            arrays[name] = entry[0][name].to_numpy()[entry[4]]
        else:
            arrays[name] = _evidence(tables)[0][name].to_numpy()
    return arrays[name]


def _page_bounds(tables: DocTables, page: int) -> tuple[int, int]:
    keys = _keys(tables)
    lo = int(np.searchsorted(keys, page * _LINE, side="left"))
    return lo, max(lo, int(np.searchsorted(keys, page * _LINE + _LINE - 1, side="right")))


def indexed_line_terms(tables: DocTables):
    """``(page, line) -> terms`` of the lines the document's retrieval index holds (their text
    tokenised when the index was built), or None without an index in memory for these frames or
    when two evidence lines share a (page, line) (the key would not name one line)."""
    from docintel.retrieval.bm25 import cached_index

    index = cached_index(tables)
    keys = _keys(tables)
    if index is None or (len(keys) > 1 and not bool((np.diff(keys) > 0).all())):
        return None
    by_page: dict[int, dict | None] = {}

    def lookup(page: int, line: int) -> list[str] | None:
        if page not in by_page:
            rows = index.line_terms.get(page) or []
            found = dict(rows)
            by_page[page] = found if len(found) == len(rows) else None
        found = by_page[page]
        return None if found is None else found.get(line)

    return lookup


def evidence_lines(tables: DocTables) -> pd.DataFrame:
    """line_df without page furniture and figure-internal words, in reading order (computed
    once per line_df object; callers filter it, never change it)."""
    return _evidence(tables)[0]


def evidence_between(tables: DocTables, start: tuple[int, int], end: tuple[int, int]) -> pd.DataFrame:
    """The evidence lines from (page, line) ``start`` to ``end``, both included (a slice of
    :func:`evidence_lines`: the rows a ``page * 10**6 + line`` range mask selects, in order)."""
    keys = _keys(tables)
    lo = int(np.searchsorted(keys, start[0] * _LINE + start[1], side="left"))
    hi = int(np.searchsorted(keys, end[0] * _LINE + end[1], side="right"))
    return _rows(tables, lo, max(lo, hi))


def evidence_page(tables: DocTables, page: int) -> pd.DataFrame:
    """The evidence lines of one page (``lines[lines["page"] == page]``, as a slice)."""
    return evidence_between(tables, (page, 0), (page, _LINE - 1))


def evidence_after(tables: DocTables, page: int, line: int, n: int) -> pd.DataFrame:
    """The ``n`` evidence lines after (page, line), in reading order."""
    keys = _keys(tables)
    lo = int(np.searchsorted(keys, page * _LINE + line, side="right"))
    return _rows(tables, lo, min(lo + n, len(keys)))


def evidence_pages_after(
    tables: DocTables, page: int, line: int, n: int, end: tuple[int, int] | None = None
) -> set[int]:
    """The pages of ``evidence_after(tables, page, line, n)`` cut before the line ``end`` (page,
    line), read from the line keys without building the rows."""
    keys = _keys(tables)
    lo = int(np.searchsorted(keys, page * _LINE + line, side="right"))
    hi = min(lo + n, len(keys))
    if end is not None:
        hi = min(hi, lo + int(np.searchsorted(keys[lo:hi], end[0] * _LINE + end[1], side="left")))
    return set((keys[lo:hi] // _LINE).tolist())


def object_cells(tables: DocTables, key) -> pd.DataFrame:
    """``cell_df`` rows of one object (``cell_df[cell_df["object_key"] == key]``)."""
    cdf = tables.cell_df

    def group() -> dict:
        groups: dict = {}
        for pos, k in enumerate(cdf["object_key"].tolist()):
            if isinstance(k, str):
                groups.setdefault(k, []).append(pos)
        return groups

    groups = per_frame(_CELLS, cdf, group)
    return cdf.iloc[groups.get(key, [])] if isinstance(key, str) else cdf[cdf["object_key"] == key]


def nearest_line(page_lines: pd.DataFrame, y0: float, y1: float) -> int | None:
    if page_lines.empty:
        return None
    mid = (y0 + y1) / 2
    dist = ((page_lines["y0"] + page_lines["y1"]) / 2 - mid).abs()
    return int(page_lines.loc[dist.idxmin(), "line"])


def nearest_evidence_line(tables: DocTables, page: int, y0: float, y1: float) -> int | None:
    """:func:`nearest_line` over the evidence lines of ``page``, on their numpy columns (the
    first line at the smallest distance, NaN skipped, as ``idxmin``)."""
    lo, hi = _page_bounds(tables, page)
    if lo == hi:
        return None
    mid = (y0 + y1) / 2
    top, bottom = _evidence_column(tables, "y0")[lo:hi], _evidence_column(tables, "y1")[lo:hi]
    dist = np.abs((top + bottom) / 2 - mid)
    if np.isnan(dist).all():
        return nearest_line(evidence_page(tables, page), y0, y1)
    return int(_evidence_column(tables, "line")[lo + int(np.nanargmin(dist))])
