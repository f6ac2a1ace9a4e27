"""Wrapped text tables (issue 19): the page's lines of a captioned one rewritten cell by cell.

:func:`reorder_lines` runs before the toc stage on the pages with a table caption line: where the
region under the caption reads as a wrapped text table (:mod:`text_table_read`, whose reader and
checks this module re-exports for the captioned-table reader), its lines are rewritten phrase by
phrase, cell by cell, so reading order keeps a cell's lines together. :func:`held_page` is what the
page stage keeps of such a page. (The reader moved to :mod:`text_table_read` in session 15: this
file was past ~400 lines.)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from docintel.parsing import captions, frame_rows, linecols, tables_cells, tables_free
from docintel.parsing.text_table_read import (
    BOTTOM_MARGIN,
    MAX_COLS,
    MAX_CROWDED,
    MAX_NUMERIC,
    MAX_WORDS_PER_LINE,
    MIN_BODY_ROWS,
    MIN_LINES_PER_ROW,
    MIN_SYNC,
    ROW_GAP_LINES,
    _boxes,
    _table_caption_text,
    clean,
    has_table_caption,
    looks_like_text_table,
    read_text_table,
    style_lookup,
)

__all__ = [
    "BOTTOM_MARGIN",
    "MAX_COLS",
    "MAX_CROWDED",
    "MAX_NUMERIC",
    "MAX_WORDS_PER_LINE",
    "MIN_BODY_ROWS",
    "MIN_LINES_PER_ROW",
    "MIN_SYNC",
    "ROW_GAP_LINES",
    "clean",
    "has_table_caption",
    "looks_like_text_table",
    "read_text_table",
    "style_lookup",
    "held_page",
    "reorder_lines",
]


#: A page with more drawings than this is not held with them (memory): a reader asks pymupdf again.
HELD_MAX_DRAWINGS = 5000


def held_page(page, textpage, cdrawings: list | None, words: list | None = None) -> dict:
    """What :func:`reorder_lines` reads of a page, from the page stage's text page and drawings.

    ``textpage`` holds the page's text as ``get_text("words")`` reads it (the fast path's flags
    are ``TEXTFLAGS_WORDS``); ``cdrawings``: the page's ``get_cdrawings()``, None when not at hand;
    ``words``: that text page's words when the caller already read them (the link anchors').
    """
    held = {"words": page.get_text("words", textpage=textpage) if words is None else words}
    if cdrawings is not None and len(cdrawings) <= HELD_MAX_DRAWINGS:
        held["cd"] = cdrawings
    return held


#: The columns :func:`reorder_lines` reads and rewrites (the caption test, ``_rewrite``): a page's
#: working frame holds these only, the other columns are taken once from the source lines at the end.
_WORK = ("text", "x0", "y0", "x1", "y1", "size", "bold", "role", "column", "line")
#: Roles a rewrite leaves where they are (the page's furniture).
_FURNITURE = ["header", "footer", "page_number"]


def reorder_lines(doc, line_df: pd.DataFrame, held: dict[int, dict] | None = None) -> pd.DataFrame:
    """Lines of each captioned wrapped text table rewritten cell by cell (row, column, top-down).

    Runs before the toc stage (nothing refers to line numbers yet): a page's lines are
    renumbered when one of its tables is rewritten. Only pages with a table caption line are read.
    ``held``: page -> :func:`held_page` of the pages the page stage kept (their words and
    drawings are not read again).

    The pages are rewritten on a working frame of the ``_WORK`` columns whose index is each
    row's source position in ``line_df`` (a phrase row: its source line's); the result is one
    ``take`` of ``line_df`` in the new order with the rewritten columns set, which is what
    concatenating the untouched pages with the rewritten pages and sorting by (page, line) gave.
    """
    if line_df.empty:
        return line_df
    match, first = captions.CAPTION.match, captions.CAPTION_FIRST
    hits = [
        k
        for k, t in enumerate(map(str, linecols.tolist(line_df["text"])))
        if t[:1] in first and match(t) and _table_caption_text(t.strip())
    ]
    if not hits:
        return line_df
    maybe = line_df.iloc[hits]
    body = float(line_df["size"].median())
    positions = line_df.groupby("page").indices
    # (a frame without those columns is read whole: the rewrite fails on it as it did, stage isolated)
    work = line_df[list(_WORK)] if set(_WORK) <= set(line_df.columns) else line_df
    work = work.set_axis(np.arange(len(line_df)), axis=0)
    # (by source position; a frame without roles fails in the rewrite, as it did)
    furniture = line_df["role"].isin(_FURNITURE).to_numpy(dtype=bool) if "role" in line_df else None
    by_page: dict = {}  # page -> its caption rows (``itertuples`` rows, in frame order)
    for r in frame_rows.rows(maybe):
        by_page.setdefault(r.page, []).append(r)
    new_pages: dict[int, pd.DataFrame] = {}
    for page_no in sorted(maybe["page"].unique()):
        at = positions[page_no]
        # a page's lines are usually one run of positions: a slice (read only here), not a take
        one_run = len(at) and at[-1] - at[0] + 1 == len(at) and (np.diff(at) == 1).all()
        pl = work.iloc[int(at[0]) : int(at[-1]) + 1] if one_run else work.iloc[at]
        caps = [r for r in by_page[page_no] if captions.caption_match(pl, r, body)]
        if not caps:
            continue
        page = tables_free.CachedPage(doc[int(page_no) - 1])  # one get_drawings / words per page
        if held and int(page_no) in held:
            page._memo.update(held[int(page_no)])  # what the page stage read: the same calls' results
        words = page.get_text("words")
        new = pl
        for cap in caps:
            new = _rewrite(new, words, cap, page, furniture)
        if new is not pl:
            new_pages[int(page_no)] = new
    if not new_pages:
        return line_df
    return _assemble(line_df, positions, new_pages)


def _assemble(line_df: pd.DataFrame, positions: dict, new_pages: dict[int, pd.DataFrame]) -> pd.DataFrame:
    """``line_df`` with each rewritten page's rows (working frames indexed by source position)
    in place of its lines, sorted by (page, line) as ``sort_values(kind="stable")`` sorts."""
    keep = np.ones(len(line_df), dtype=bool)
    for p in new_pages:
        keep[positions[p]] = False
    rest = np.flatnonzero(keep)
    src = np.concatenate([rest, *(new.index.to_numpy(dtype=np.intp) for new in new_pages.values())])
    own = ["text", "x0", "y0", "x1", "y1", "line"]
    # an extension text column (pandas' Arrow str) of one dtype throughout is concatenated and taken as
    # it is: the values and dtype ``pd.array`` of its Python strings gave, without converting them
    dtype = line_df["text"].dtype
    as_is = isinstance(dtype, pd.api.extensions.ExtensionDtype) and all(
        new["text"].dtype == dtype for new in new_pages.values()
    )
    if as_is:
        own.remove("text")
    vals = {c: [line_df[c].to_numpy()[rest], *(new[c].to_numpy() for new in new_pages.values())] for c in own}
    vals = {c: np.concatenate(v) for c, v in vals.items()}
    key = pd.DataFrame({"page": line_df["page"].to_numpy()[src], "line": vals["line"]})
    order = key.sort_values(["page", "line"], kind="stable").index.to_numpy()
    out = line_df.take(src[order]).reset_index(drop=True)
    if as_is:
        parts = [line_df["text"].iloc[rest], *(new["text"] for new in new_pages.values())]
        out["text"] = pd.concat(parts, ignore_index=True).array.take(order)
    for c in own:
        out[c] = pd.array(vals[c][order], dtype=line_df[c].dtype)
    return out


def _column_span(pl: pd.DataFrame, cap, rect) -> tuple[float, float]:
    """x-range of the caption's text column on a multi-column page, else the page less its margins."""
    full = (rect.x0 + 0.05 * rect.width, rect.x1 - 0.05 * rect.width)
    col = cap.column
    if pd.isna(col) or int(col) < 0 or pl["column"].dropna().max() < 1:
        return full
    mine = np.flatnonzero((pl["column"] == col).to_numpy())
    if len(mine) < 3:
        return full
    return float(pl["x0"].iloc[mine].min()) - 2, float(pl["x1"].iloc[mine].max()) + 2


def _rewrite(pl: pd.DataFrame, words: list, cap, page, furniture: np.ndarray | None = None) -> pd.DataFrame:
    """The page's rows with the caption's text table read phrase by phrase (``pl`` when none is).

    ``furniture``: per source position (``pl``'s index), whether the line is a header, footer or page
    number (the rewrite keeps every row's role); read from ``pl`` when not given.
    """
    rect = page.rect
    x0, x1 = _column_span(pl, cap, rect)
    clip = (x0, cap.y1 + 0.5, x1, rect.y1 - BOTTOM_MARGIN * rect.height)
    cells, box, pieces = read_text_table(
        words, clip, style_lookup(pl), lambda b: tables_cells.horizontal_rules(page, b)
    )
    if not looks_like_text_table(cells) or tables_cells.ruled_cells(page, box)[1] is not None:
        return pl  # a ruled grid is read by its rules (``tables_cells``), lines as they are
    xy = _boxes(pl)  # (float64 columns: the same comparisons)
    inside = (
        (xy[:, 1] >= box[1] - 1)
        & (xy[:, 3] <= box[3] + 1)
        & (xy[:, 0] >= box[0] - 1)
        & (xy[:, 2] <= box[2] + 1)
        & ~(
            pl["role"].isin(_FURNITURE).to_numpy()
            if furniture is None
            else furniture[pl.index.to_numpy(dtype=np.intp)]
        )
    )
    pos = np.flatnonzero(inside)
    if not len(pos):
        return pl
    bx = xy[pos]
    # each phrase and the line it came from (its style and other values): the first line whose box
    # (1 pt out) holds the phrase's centre, else the first line inside; every phrase at once
    phrases = [p for ps in pieces for p in ps]
    cx = np.array([(p.x0 + p.x1) / 2 for p in phrases], dtype=float)[:, None]
    cy = np.array([p.yc for p in phrases], dtype=float)[:, None]
    under = (bx[:, 0] <= cx + 1) & (bx[:, 2] >= cx - 1) & (bx[:, 1] <= cy + 1) & (bx[:, 3] >= cy - 1)
    src = pos[under.argmax(axis=1)].tolist() if len(phrases) else []  # (no hit: argmax 0)
    line = pl["line"].to_numpy()
    first = int(line[pos].min())
    before = np.flatnonzero(~inside & (line < first))
    after = np.flatnonzero(~inside & (line > first))
    # the lines before, the phrases (each its source line's row, index: the source position),
    # the lines after: one take of the page, then the phrases' own text and box set
    out = _taken(pl, np.concatenate([before, np.asarray(src, dtype=np.intp), after]), before, after, phrases)
    for c in ("line", "page"):  # what ``astype`` of the two columns gives, without copying the frame
        if c in out.columns and out[c].dtype != pl[c].dtype:
            out[c] = out[c].astype(pl[c].dtype)
    return out


def _taken(pl: pd.DataFrame, at: np.ndarray, before, after, phrases: list) -> pd.DataFrame:
    """``pl.take(at)`` with :func:`_set_phrases` applied and ``line`` set to 1..n (int64), built
    column by column in one frame (a take of every column, then six column writes, cost more).

    Each column holds what the take and the writes left there: the other columns ``pl``'s own
    arrays taken at ``at`` (their dtypes), the phrase columns :func:`_phrase_columns`' arrays.
    """
    own = _phrase_columns(pl, before, after, phrases)
    n = len(at)
    cols = {}
    for c in pl.columns:
        if c == "line":
            cols[c] = np.arange(1, n + 1, dtype=np.int64)  # what writing ``range(1, n + 1)`` stores
        elif c in own:
            cols[c] = own[c]
        else:
            cols[c] = pl[c].array.take(at)
    return pd.DataFrame(cols, index=pl.index.take(at), copy=False)


def _set_phrases(out: pd.DataFrame, pl: pd.DataFrame, before, after, phrases: list) -> None:
    """``out`` (``pl`` taken at before, the phrases' source lines, after) with :func:`_phrase_columns` written."""
    for c, vals in _phrase_columns(pl, before, after, phrases).items():
        out[c] = vals


def _phrase_columns(pl: pd.DataFrame, before, after, phrases: list) -> dict:
    """The text and box columns: ``pl``'s at ``before``, the phrases', ``pl``'s at ``after``.

    The values and dtypes of concatenating those rows with a frame of the phrases' rows (text
    as ``pl``'s text dtype, the box as float64: numpy's promotion is pandas' for floats).
    """
    own = {
        "text": [p.text for p in phrases],
        "x0": [p.x0 for p in phrases],
        "y0": [p.y0 for p in phrases],
        "x1": [p.x1 for p in phrases],
        "y1": [p.y1 for p in phrases],
    }
    out = {}
    for c, vals in own.items():
        col = pl[c].to_numpy()
        if c == "text":
            merged = np.concatenate([col[before], np.array(vals, dtype=object), col[after]])
            out[c] = pd.array(merged, dtype=pl[c].dtype)
        else:
            out[c] = np.concatenate([col[before], np.array(vals, dtype=np.float64), col[after]])
    return out
