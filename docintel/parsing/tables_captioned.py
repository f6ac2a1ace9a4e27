"""Captioned tables: the region below (or above) a caption, its cells and lines."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from docintel.parsing import frame_rows, tables_cells, tables_free, tables_text
from docintel.parsing.captions import CAPTION

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
#: A body-size line with this many CJK characters is running text (it has too few spaces to count words).
CJK_PROSE_CHARS = 16


def _column_of(pl: pd.DataFrame, cap: tuple, cols=None):
    """The text column (line_df.column) of the caption's first line, None when unknown."""
    x0, y0, column = cols if cols is not None else frame_rows.floats(pl, "x0", "y0", "column")
    hit = np.flatnonzero((y0 >= cap[1] - 1) & (y0 <= cap[1] + 1) & (x0 >= cap[0] - 1) & (x0 <= cap[0] + 1))
    if not len(hit) or np.isnan(column[hit[0]]):
        return None
    return int(column[hit[0]])


def _table_clip(
    pl: pd.DataFrame,
    cap: tuple,
    width: float,
    height: float,
    *,
    above: bool = False,
    prose_stops: bool = True,
    body: float = 10.0,
) -> tuple:
    """Region below a caption (or above it, for captions under their table).

    It runs until a prose paragraph, a heading or another caption. A caption
    inside one column of a multi-column page limits the region to that column;
    a centred or wide caption gets the full text width.
    """
    xc = (cap[0] + cap[2]) / 2
    # numpy columns of the page's lines; rows only for the lines the region walks over
    px0, py0, px1, py1, column = frame_rows.floats(pl, "x0", "y0", "x1", "y1", "column")
    known = column[~np.isnan(column)]
    col = _column_of(pl, cap, (px0, py0, column))
    in_col = (column == col) if col is not None else np.zeros(len(pl), dtype=bool)
    full = (
        (len(known) > 0 and known.max() < 1)
        or col is None
        or col < 0
        or int(in_col.sum()) < 3
        or (cap[2] - cap[0]) > 0.55 * width
        or abs(xc - width / 2) < 0.08 * width
    )
    if full:
        x0, x1 = min(cap[0], 0.08 * width), max(cap[2], 0.92 * width)
    else:
        x0, x1 = min(cap[0], px0[in_col].min()) - 2, max(cap[2], px1[in_col].max()) + 2
    near = (px1 > x0) & (px0 < x1)
    if above:
        hit = np.flatnonzero(near & (py1 <= cap[1] + 1))
        order = hit[np.argsort(-py1[hit], kind="stable")]  # bottom-up (ties end at the same edge)
        edge = max(40.0, cap[1] - 0.6 * height)
    else:
        hit = np.flatnonzero(near & (py0 >= cap[3] - 1))
        order = hit[np.argsort(py0[hit], kind="stable")]  # top-down
        edge = min(height - 40, cap[3] + 0.6 * height)
    if not len(order):
        return (x0, edge, x1, cap[1] - 0.5) if above else (x0, cap[3] + 0.5, x1, edge)
    texts, sizes, roles = pl["text"].tolist(), pl["size"].tolist(), pl["role"].tolist()
    for k in order:
        text = str(texts[k])
        words = len(text.split())
        # CJK prose has few spaces: a body-size line of many CJK characters reads as running text
        cjk = len(_CJK.findall(text)) >= CJK_PROSE_CHARS and sizes[k] >= body - 0.5
        prose = prose_stops and (words >= 12 or cjk) and (px1[k] - px0[k]) > 0.6 * (cap[2] - cap[0])
        if prose or roles[k] in ("heading", "caption", "title") or CAPTION.match(text):
            edge = float(py1[k] + 1) if above else float(py0[k] - 1)
            break
    return (x0, edge, x1, cap[1] - 0.5) if above else (x0, cap[3] + 0.5, x1, edge)


def table_box(
    line_df,
    page,
    page_no,
    pl,
    block: pd.DataFrame,
    cap: tuple,
    key: str,
    body: float,
    row: dict,
    cells: list,
    doc_id,
    above_first: bool = False,
):
    """A table's box and cells (appended to ``cells``, sizes set on ``row``); marks its lines ``table``.

    The table is looked for below its caption, then above it (``above_first``: the other way round).
    """
    tc, tb = [], None
    if not isinstance(page, tables_free.CachedPage):  # the readers below share one get_drawings / words
        page = tables_free.CachedPage(page)
    for above in (True, False) if above_first else (False, True):
        clip = _table_clip(pl, cap, page.rect.width, page.rect.height, above=above, body=body)
        # a ruled grid delimits itself: long cell text must not end its region
        grid = _table_clip(pl, cap, page.rect.width, page.rect.height, above=above, prose_stops=False)
        ruled = False
        if clip[3] - clip[1] > 8 or grid[3] - grid[1] > 8:
            tc, tb, ruled = tables_cells.read_table(page, clip, grid, near_top=not above)
        numeric = sum(tables_cells.is_numeric(str(c["text"])) for c in tc) > tables_text.MAX_NUMERIC * len(tc)
        if (
            not above and not ruled and not numeric
        ):  # wrapped text cells: the region ends where the columns do
            tc, tb = _text_table(page, pl, cap, grid) or (tc, tb)
        if tc:
            break
    bb = cap if tb is None else (min(cap[0], tb[0]), cap[1], max(cap[2], tb[2]), max(cap[3], tb[3]))
    if tc:
        row["n_rows"] = max(c["row"] for c in tc) + 1
        row["n_cols"] = max(c["col"] for c in tc) + 1
        cells += [{**c, "doc_id": doc_id, "object_key": key, "page": int(page_no)} for c in tc]
        # the same masks on numpy columns, the marks written by position (no pandas mask per table)
        x0, y0, x1, y1 = frame_rows.floats(line_df, "x0", "y0", "x1", "y1")
        inside = np.flatnonzero(
            (line_df["page"].to_numpy() == page_no)
            & (y0 >= tb[1] - 1)
            & (y1 <= tb[3] + 1)
            & (x0 >= tb[0] - 1)
            & (x1 <= tb[2] + 1)
            & ~line_df.index.isin(block.index)
        )
        line_df.iloc[inside, line_df.columns.get_loc("role")] = "table"
        line_df.iloc[inside, line_df.columns.get_loc("object_key")] = key
    return bb


def _text_table(page, pl: pd.DataFrame, cap: tuple, grid: tuple) -> tuple[list, tuple] | None:
    """Cells and box of a wrapped text table right under the caption (``tables_text``), else None."""
    # the reader ends the region where the columns end (a heading-styled header row must not)
    clip = (grid[0], cap[3] + 0.5, grid[2], page.rect.y1 - tables_text.BOTTOM_MARGIN * page.rect.height)
    cells, box, _ = tables_text.read_text_table(
        page.get_text("words"),
        clip,
        tables_text.style_lookup(pl),
        lambda b: tables_cells.horizontal_rules(page, b),
    )
    if not tables_text.looks_like_text_table(cells) or box[1] - cap[3] > 40:
        return None
    return tables_text.clean(cells), box
