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
