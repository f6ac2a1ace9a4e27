"""object_registry and cell_df: numbered tables, figures, equations, appendices, bibliography.

Captions are found by :mod:`captions`, figures and equations by :mod:`figures`, a captioned
table's cells by :mod:`tables_captioned`, tables without a caption by :mod:`tables_free`.
Appendices/annexes come from toc_df; bibliography entries from the lines of the References
section.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from docintel.parsing import clauses, figures, frame_rows, gcpause, linecols, tables_captioned, tables_free
from docintel.parsing.backmatter import appendices, bibliography
from docintel.parsing.captions import CAPTION, CAPTION_FIRST, caption_match, caption_object, kind_of
from docintel.parsing.headings import DEFAULT_BODY_SIZE, body_size
from docintel.schema.tables import CELL_DF, OBJECT_REGISTRY

__all__ = ["CAPTION", "build_objects"]

_FURNITURE = ("header", "footer", "page_number", "toc_entry")


def build_objects(doc, line_df, page_df, toc_df, doc_id: str):
    """Return (object_registry, cell_df, line_df with caption / table / formula roles and object_key)."""
    with gcpause.paused():  # rows and cells as Python objects: see gcpause
        return _build_objects(doc, line_df, page_df, toc_df, doc_id)


def _take(frame: pd.DataFrame, pos: np.ndarray) -> pd.DataFrame:
    """``frame.iloc[pos]``; a slice when ``pos`` is one ascending run (a page's lines usually are):
    the same rows without a take of every column."""
    if (
        len(pos)
        and pos[0] >= 0
        and pos[-1] - pos[0] + 1 == len(pos)
        and (len(pos) < 2 or (np.diff(pos) == 1).all())
    ):
        return frame.iloc[int(pos[0]) : int(pos[-1]) + 1]
    return frame.iloc[pos]


def _rows_of(frame: pd.DataFrame, labels: pd.Index) -> pd.DataFrame:
    """``frame.loc[labels]``, by position when the index is unique and holds every label."""
    if frame.index.is_unique:
        pos = frame.index.get_indexer(labels)
        if (pos >= 0).all():
            return _take(frame, pos)
    return frame.loc[labels]


def _body_size(line_df: pd.DataFrame, usable: pd.DataFrame, keep: np.ndarray, texts: list) -> float:
    """``headings.body_size`` of the usable body lines (the rounded size holding the most characters,
    the smallest on a tie), on numpy columns: no frame of those lines, no pandas groupby."""
    size = line_df["size"].to_numpy()
    if size.dtype.kind != "f":
        return body_size(usable.loc[usable["role"] == "body", ["text", "size"]])
    at = np.flatnonzero(keep & (line_df["role"] == "body").to_numpy(dtype=bool))
    sizes = size[at]
    keyed = ~np.isnan(sizes)  # (groupby drops a NaN key; a missing text counts no characters)
    if not keyed.any():
        return DEFAULT_BODY_SIZE
    lengths = _lengths(line_df["text"], texts, at)
    keys, group = np.unique(np.round(sizes[keyed]), return_inverse=True)
    weight = np.bincount(group, weights=lengths[keyed], minlength=len(keys))
    return float(keys[int(np.argmax(weight))])  # (the first of equal weights: idxmax)


def _lengths(text: pd.Series, texts: list, at: np.ndarray) -> np.ndarray:
    """Characters of the texts at ``at`` (0 for a missing text): of an Arrow-backed column by pyarrow's
    ``utf8_length`` (code points, as ``len``; a null is a missing text), else from the Python list."""
    arr = getattr(text.array, "_pa_array", None)
    if arr is not None and (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        return pc.utf8_length(arr).fill_null(0).to_numpy()[at]
    return np.array([len(t) if isinstance(t, str) else 0 for t in map(texts.__getitem__, at.tolist())])


def _build_objects(doc, line_df, page_df, toc_df, doc_id: str):
    line_df = line_df.copy()
    # role / object_key as object columns while the readers mark lines: a write into pandas'
    # Arrow-backed str column rebuilds the whole column, O(lines) per caption, table or figure
    restore = {}
    for col in ("role", "object_key"):
        if col in line_df and isinstance(line_df[col].dtype, pd.StringDtype):
            restore[col] = line_df[col].dtype
            line_df[col] = line_df[col].astype(object)
    reg: list[dict] = []
    cells: list[dict] = []
    seen: set[str] = set()
    drawn: dict[int, list[tuple]] = {}
    keep = ~line_df["role"].isin(_FURNITURE).to_numpy(dtype=bool)
    usable = line_df[keep]
    all_texts = linecols.tolist(line_df["text"])
    body = _body_size(line_df, usable, keep, all_texts) if len(usable) else 10.0
    # rows as namedtuples once; a page's frame and pymupdf page only for the few caption / equation lines
    positions = usable.groupby("page").indices
    all_rows = line_df.groupby("page").indices  # every line of a page, for the figure marks
    # headings an outline or contents page names stay headings even when drawn inside a graphic
    primary = toc_df[toc_df["source"] != "heading_detection"] if len(toc_df) else toc_df
    vouched = set(zip(primary["page_start"], primary["line_start"], strict=False)) if len(primary) else set()
    # the label tests on plain column lists; rows (namedtuples) only for the lines that have a hit
    # (the usable lines' texts from the whole column's list, which the earlier stages converted)
    texts = [str(all_texts[k]).strip() for k in np.flatnonzero(keep).tolist()]
    roles = usable["role"].tolist()
    sides = {"above": 0, "below": 0, None: 0}  # where table captions sit (caption above its table)
    # the caption-like lines and the equation-label lines, in one pass over the texts
    # "(512)" in a statistics or financial table is a negative amount, not an equation label
    # (roles as they were before any caption marked its table)
    page_of = usable["page"].tolist()
    # (each regex only on lines whose first character it can match)
    cap_lines = {
        k for k, t in enumerate(texts) if t[:1] in CAPTION_FIRST and CAPTION.match(t)
    }  # caption_match's first test
    eq_lines = {
        k for k, t in enumerate(texts) if t[:1] == "(" and roles[k] != "table" and figures.EQ_LABEL.match(t)
    }
    cap_pages = {page_of[k] for k in cap_lines}
    eq_pages = {page_of[k] for k in eq_lines}
    hit = sorted(cap_lines | eq_lines)
    row_at = dict(zip(hit, frame_rows.rows(usable.iloc[hit]), strict=True))
    for page_no in sorted(positions):
        has_caption = page_no in cap_pages
        if not has_caption and page_no not in eq_pages:
            continue
        pos = positions[page_no]
        pos_list = pos.tolist()
        eq_rows = [row_at[k] for k in pos_list if k in eq_lines]
        pl = _take(usable, pos) if has_caption else None
        # the pymupdf page only once a caption is accepted or an equation label is read on the page:
        # loading one costs, and most caption-like lines are no caption (or a label already seen)
        page = None
        # a line CAPTION does not match is never a caption (caption_match tests it first)
        for r in [row_at[k] for k in pos_list if k in cap_lines] if pl is not None else ():
            m = caption_match(pl, r, body)
            if m is None:
                continue
            kind = kind_of(m.group("kw"))
            key = f"{kind}:{m.group('id')}"
            if key in seen:
                continue
            seen.add(key)
            if page is None:
                page = tables_free.CachedPage(doc[int(page_no) - 1])
            block, cap, row = caption_object(line_df, pl, r, m, kind, key, int(page_no))
            if kind == "table":
                # the caption's own side when table rows adjoin it on one side, else the document's habit
                side = tables_free.caption_side(_rows_of(line_df, pl.index), cap, float(r.size))
                sides[side] += 1
                above_first = (side or max(("below", "above"), key=sides.get)) == "above"
            if kind == "figure":
                bb = figures.figure_box(
                    line_df, page, page_no, drawn, block, cap, key, vouched, rows=all_rows[page_no]
                )
            else:
                bb = tables_captioned.table_box(
                    line_df, page, page_no, pl, block, cap, key, body, row, cells, doc_id, above_first
                )
            row.update(x0=bb[0], y0=bb[1], x1=bb[2], y1=bb[3])
            reg.append(row)
        if eq_rows:
            if page is None:  # (the reader's page as before: cached on a page with caption lines)
                page = (
                    tables_free.CachedPage(doc[int(page_no) - 1]) if pl is not None else doc[int(page_no) - 1]
                )
            reg += figures.equations(line_df, _take(usable, pos) if pl is None else pl, eq_rows, page, seen)
    n_draw = (
        dict(zip(page_df["page"], page_df["n_drawings"], strict=False)) if "n_drawings" in page_df else None
    )
    found, more = tables_free.uncaptioned_tables(doc, line_df, seen, doc_id, n_draw, reg)
    reg += found
    cells += more
    reg += appendices(toc_df, line_df, seen)
    reg += clauses.clause_objects(toc_df, line_df, seen)
    reg += bibliography(toc_df, line_df, seen)
    for col, dtype in restore.items():
        line_df[col] = line_df[col].astype(dtype)
    registry = pd.DataFrame(reg) if reg else OBJECT_REGISTRY.empty()
    registry["doc_id"] = doc_id
    registry = OBJECT_REGISTRY.conform(registry)
    cell_df = CELL_DF.conform(pd.DataFrame(cells)) if cells else CELL_DF.empty()
    return registry, cell_df, line_df
