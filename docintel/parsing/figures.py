"""Figures (the graphics around a caption, the text drawn in them) and numbered equations."""

from __future__ import annotations

import contextlib
import re

import numpy as np
import pandas as pd

from docintel.parsing import frame_rows, graphics

EQ_LABEL = re.compile(r"^\((?P<id>[0-9]{1,3}[a-z]?|[A-Z]?[0-9]{1,2}\.[0-9]{1,3})\)$")


def _graphics(page) -> list[tuple]:
    rects: list[tuple] = []
    # image info can fail on broken streams; drawings still work
    with contextlib.suppress(Exception):
        rects += [tuple(i["bbox"]) for i in page.get_image_info() if i["bbox"][2] - i["bbox"][0] > 20]
    # page.cluster_drawings()'s rectangles, from plain tuples (its Rect objects were most of this stage)
    with contextlib.suppress(Exception):
        rects += [r for r in graphics.cluster_drawings(page) if r[2] - r[0] > 20 and r[3] - r[1] > 20]
    return rects


def _figure_region(rects: list[tuple], cap: tuple) -> tuple[tuple, tuple | None]:
    """(caption bbox plus the nearest graphic just above (usual) or below it, that graphic or None)."""
    best, dist = None, 60.0
    for g in rects:
        if g[0] > cap[2] or g[2] < cap[0]:
            continue
        d = cap[1] - g[3] if g[3] <= cap[1] + 2 else (g[1] - cap[3] if g[1] >= cap[3] - 2 else None)
        if d is not None and d < dist:
            best, dist = g, d
    if best is None:
        return cap, None
    return (min(cap[0], best[0]), min(cap[1], best[1]), max(cap[2], best[2]), max(cap[3], best[3])), best


def _enclosing(rects: list[tuple], cap: tuple) -> tuple | None:
    """The smallest graphic holding the caption's centre, None when no graphic does."""
    cx, cy = (cap[0] + cap[2]) / 2, (cap[1] + cap[3]) / 2
    inside = [g for g in rects if g[0] <= cx <= g[2] and g[1] <= cy <= g[3]]
    return min(inside, key=lambda g: (g[2] - g[0]) * (g[3] - g[1])) if inside else None


def _claim_ocr_figure_text(line_df: pd.DataFrame, page_no: int, box: tuple, key: str) -> None:
    """Recognised figure text inside the caption's picture belongs to that figure."""
    cx, cy = (line_df["x0"] + line_df["x1"]) / 2, (line_df["y0"] + line_df["y1"]) / 2
    mine = (
        (line_df["page"] == page_no)
        & (line_df["role"] == "figure_text")
        & (line_df["parse_method"] == "ocr")
        & line_df["object_key"].isna()
        & cx.between(box[0], box[2])
        & cy.between(box[1], box[3])
    )
    line_df.loc[mine, "object_key"] = key


def figure_box(
    line_df, page, page_no, drawn: dict, block: pd.DataFrame, cap: tuple, key: str, vouched: set, rows=None
):
    """A figure's box from the page's graphics around its caption; marks the text drawn in it.

    ``rows``: positions of the page's lines in ``line_df`` (all of them, any role), when the
    caller has them: the figure's text is then marked on that page's frame and written back,
    not looked for by masks over every line of the document.
    """
    if page_no not in drawn:  # one page's graphics serve all its figure captions
        drawn[page_no] = _graphics(page)
    bb, art = _figure_region(drawn[page_no], cap)
    if art is None and "parse_method" in block and (block["parse_method"] == "ocr").all():
        # a caption recognised inside a raster image: the figure is that image, and
        # the text recognised in it (figure_text, see ocr.py) is the figure's
        pic = _enclosing(drawn[page_no], cap)
        if pic is not None:
            bb = pic
            _claim_ocr_figure_text(line_df, page_no, pic, key)
    if art is not None:
        if rows is None or not line_df.index.is_unique:
            graphics.mark_figure_text(line_df, page_no, art, key, exclude=block.index)
            graphics.mark_figure_headings(line_df, page_no, art, key, vouched)
        else:
            _mark_on_page(line_df, rows, page_no, art, key, block.index, vouched)
    return bb


def _mark_on_page(line_df, rows, page_no: int, art: tuple, key: str, exclude, vouched: set) -> None:
    """:func:`graphics.mark_figure_text` then ``mark_figure_headings``, on the page's numpy columns.

    The same tests on the page's rows (positions ``rows`` in ``line_df``) with no pandas mask or
    frame per figure; the two columns are written once at the marked positions. A page whose
    geometry is not plain float64 without NaN takes :func:`_mark_on_frame` (pandas' NaN
    handling and ``sort_values`` order).
    """
    rows = np.asarray(rows, dtype=np.intp)
    geo_cols = ("x0", "y0", "x1", "y1")
    if any(line_df[c].dtype != np.float64 for c in geo_cols):
        return _mark_on_frame(line_df, rows, page_no, art, key, exclude, vouched)
    x0, y0, x1, y1 = (line_df[c].to_numpy()[rows] for c in geo_cols)
    if any(np.isnan(a).any() for a in (x0, y0, x1, y1)):
        return _mark_on_frame(line_df, rows, page_no, art, key, exclude, vouched)
    ax0, ay0, ax1, ay1 = art
    tol = 1.5
    on_page = line_df["page"].to_numpy()[rows] == page_no
    roles = line_df["role"].iloc[rows].tolist()
    within = (x0 >= ax0 - tol) & (x1 <= ax1 + tol) & (y0 >= ay0 - tol) & (y1 <= ay1 + tol)
    marked = _figure_text(line_df, rows, on_page, roles, (x0, y0, x1, y1), within, art, exclude)
    # mark_figure_headings: the heading lines inside the graphic (never a plain role, so the text
    # marked above does not change which), except those an outline or contents page vouches for
    lines = line_df["line"].to_numpy()[rows]
    for k in np.flatnonzero(on_page & within).tolist():
        if roles[k] == "heading" and (page_no, int(lines[k])) not in vouched:
            marked[k] = True
    pos = rows[marked]
    if len(pos):
        line_df.iloc[pos, line_df.columns.get_loc("role")] = "figure_text"
        line_df.iloc[pos, line_df.columns.get_loc("object_key")] = key
    return None


def _figure_text(line_df, rows, on_page, roles, geo, within, art, exclude) -> np.ndarray:
    """:func:`graphics.mark_figure_text`'s lines as a mask over ``rows`` (geometry without NaN)."""
    x0, y0, x1, y1 = geo
    n = len(rows)
    none = np.zeros(n, dtype=bool)
    plain = np.fromiter((r in graphics._PLAIN_ROLES for r in roles), bool, n)
    pg = on_page & plain & ~line_df.index[rows].isin(exclude)
    inside = pg & within
    if not inside.any():
        return none
    ax0, ay0, ax1, ay1 = art
    area = max(ax1 - ax0, 1.0) * max(ay1 - ay0, 1.0)
    text_area = float(((x1 - x0) * (y1 - y0))[inside].sum())
    # words per line (astype(str).str.split().str.len(): a missing text has none and passes no test)
    words = [len(t.split()) if isinstance(t, str) else None for t in line_df["text"].iloc[rows].tolist()]
    prose = np.zeros(n, dtype=bool)
    prose[pg] = _prose(
        np.array([w is not None and w >= graphics.PROSE_WORDS for w, p in zip(words, pg, strict=True) if p]),
        x0[pg],
        y0[pg],
        y1[pg],
    )
    n_prose = int(prose[inside].sum())
    if text_area > graphics.MAX_TEXT_COVER * area or (n_prose >= 2 and n_prose / int(inside.sum()) >= 0.5):
        return none
    labels = inside & ~prose
    # graphics._side_labels: short labels just left or right of the graphic, on a row with its text
    h = y1 - y0
    left = (x1 <= ax0 + 1.5) & (x1 >= ax0 - 2 * h)
    right = (x0 >= ax1 - 1.5) & (x0 <= ax1 + 2 * h)
    short = np.fromiter((w is not None and w <= 3 for w in words), bool, n)
    near = pg & ~labels & (y0 >= ay0 - 1.5) & (y1 <= ay1 + 1.5) & (left | right) & short
    ly0, ly1 = y0[labels], y1[labels]
    out = labels.copy()
    for k in np.flatnonzero(near).tolist():
        half = 0.5 * (y1[k] - y0[k])
        if ((ly0 < y1[k] - half) & (ly1 > y0[k] + half)).any():
            out[k] = True
    return out


def _prose(prose: np.ndarray, x0: np.ndarray, y0: np.ndarray, y1: np.ndarray) -> np.ndarray:
    """``graphics._prose_lines`` as a mask: a line of many words, or a paragraph's short last line
    right below one with the same left edge (walked top-down, as ``argsort`` orders y0 there)."""
    prose = prose.copy()
    for k in np.argsort(y0, kind="quicksort"):
        if prose[k]:
            continue
        h = y1[k] - y0[k]
        if (prose & (np.abs(x0 - x0[k]) <= 2) & (y1 <= y0[k] + 0.5 * h) & (y1 >= y0[k] - 0.8 * h)).any():
            prose[k] = True
    return prose


def _mark_on_frame(line_df, rows, page_no: int, art: tuple, key: str, exclude, vouched: set) -> None:
    """:func:`graphics.mark_figure_text` and ``mark_figure_headings`` on the page's own rows.

    Both select the page's lines first, so on a frame of that page alone they mark the same
    lines; the two columns they write are copied back where a value changed.
    """
    sub = line_df.iloc[rows]
    cols = [line_df.columns.get_loc(c) for c in ("role", "object_key")]
    before = [sub.iloc[:, c].to_numpy(copy=True) for c in cols]
    graphics.mark_figure_text(sub, page_no, art, key, exclude=exclude)
    graphics.mark_figure_headings(sub, page_no, art, key, vouched)
    for c, old in zip(cols, before, strict=True):
        new = sub.iloc[:, c].to_numpy()
        changed = np.flatnonzero(
            np.fromiter((a is not b and a != b for a, b in zip(old, new, strict=True)), bool, len(new))
        )
        if len(changed):
            line_df.iloc[np.asarray(rows)[changed], c] = new[changed]


def equations(line_df: pd.DataFrame, pl: pd.DataFrame, rows: list, page, seen: set[str]) -> list[dict]:
    """'(n)' alone at the right margin with formula text on its baseline (``rows``: pl's candidates)."""
    out = []
    width = page.rect.width
    # numpy columns of the page once; a frame only for the formula of a label that passes
    px0, py0, px1, py1 = frame_rows.floats(pl, "x0", "y0", "x1", "y1")
    labels, texts = pl.index.to_numpy(), pl["text"].tolist()
    for r in rows:
        m = EQ_LABEL.match(str(r.text).strip())
        if not m or r.x0 < 0.6 * width:
            continue
        in_band = (py1 >= r.y0 - 2 * r.size) & (py0 <= r.y1 + 2 * r.size) & (px1 < r.x0) & (labels != r.Index)
        same = np.flatnonzero(in_band & (py0 <= r.y1) & (py1 >= r.y0))
        # str.split().str.len().sum(): a missing text counts no words
        if not len(same) or sum(len(texts[k].split()) for k in same if isinstance(texts[k], str)) > 40:
            continue
        band = pl.iloc[np.flatnonzero(in_band)]
        key = f"equation:{m.group('id')}"
        if key in seen:
            continue
        seen.add(key)
        formula = band[(band.y0 <= r.y1 + 0.5 * r.size) & (band.y1 >= r.y0 - 0.5 * r.size)]
        idx = list(formula.index) + [r.Index]
        line_df.loc[idx, "role"] = "formula"
        line_df.loc[idx, "object_key"] = key
        sel = line_df.loc[idx]
        out.append(
            {
                "object_key": key,
                "object_type": "equation",
                "object_id": m.group("id"),
                "label": f"Eq. ({m.group('id')})",
                "caption": " ".join(formula.sort_values("x0").text),
                "page": int(r.page),
                "line_start": int(sel.line.min()),
                "line_end": int(sel.line.max()),
                "page_end": int(r.page),
                "x0": sel.x0.min(),
                "y0": sel.y0.min(),
                "x1": sel.x1.max(),
                "y1": sel.y1.max(),
                "source": "caption",
            }
        )
    return out
