"""The reader of tables of aligned text columns whose cells wrap over several lines (no rules needed).

A "When should it be used? | How may it be shared?" table or a "change | description" table
sets two or three columns of short wrapped lines side by side. The fast line pass reads one
baseline across the page, so a cell's lines come out interleaved with its neighbours' and,
where two cells' lines sit close, glued into one line. Here the region is read from the
page's words:

- words are joined into phrases (``tables_cells.phrases``), so a glued line splits at the gutter;
- columns are the x-projection of the phrases; the table ends at the first baseline with a
  phrase that crosses a gutter (a full-width prose line after the table);
- a logical row starts where the first column starts a cell after a blank in some column,
  or after a vertical gap (``ROW_GAP_LINES``): cells wrap, and a row's cells start together.

It is a table only when the reading says so (:func:`looks_like_text_table`): 2 to
``MAX_COLS`` columns, ``MIN_BODY_ROWS`` logical rows under the header, rows that really wrap
(``MIN_LINES_PER_ROW``) and row starts that agree across columns (``MIN_SYNC``). Prose in
two columns fails the last check: its paragraphs do not start on the same baselines.

Two uses: :func:`tables_text.reorder_lines` (before the toc stage, on pages with a table caption) rewrites
the region's lines cell by cell so that reading order keeps a cell's lines together, and the
captioned-table reader takes :func:`read_text_table`'s cells when they qualify.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from docintel.parsing import captions, tables_cells

#: A vertical gap over this many line pitches between baselines starts a new logical row.
ROW_GAP_LINES = 1.45
#: Columns of a text table (more is a statistics table, read by ``tables_cells``).
MAX_COLS = 4
#: Logical rows under the header a text table needs (2 let two paragraphs in two columns pass).
MIN_BODY_ROWS = 3
#: Average baselines per logical row: below it, cells do not wrap and the baseline reader is right.
MIN_LINES_PER_ROW = 1.5
#: Share of the body rows whose cells start on the row's first baseline in 2+ columns.
MIN_SYNC = 0.75
#: Average words per phrase line above this is prose (a cell line is a few words).
MAX_WORDS_PER_LINE = 12
#: Share of the page height at the bottom left out of a table's region (the footer band).
BOTTOM_MARGIN = 0.06
#: Share of numeric cells above which the table is statistics, not wrapped text.
MAX_NUMERIC = 0.3
#: A cell of list markers only ("•", "• • •", "1.", "(a)"): a list, not a table column.
_MARKERS = re.compile(
    r"^\s*(?:(?:[\u2022\u25aa\u25cf\u25e6\u25a0\u2013\u2014\-*o\uf0b7\uf0a7]|\(?[0-9a-zA-Z]{1,3}[.)])\s*)+$"
)
#: Share of a table's baselines with two phrases side by side in one column (merged columns).
MAX_CROWDED = 0.2


def _baselines(phrases: list) -> list[list]:
    rows = tables_cells.rows_of(phrases)
    return [sorted(r, key=lambda p: p.x0) for r in rows]


def _gutters_crossed(p, cols: list[list[float]]) -> int:
    """How many gaps between the columns so far the phrase covers."""
    return sum(1 for a, b in zip(cols, cols[1:], strict=False) if p.x0 < a[1] - 1 and p.x1 > b[0] + 1)


def _add_span(cols: list[list[float]], a: float, b: float) -> list[list[float]]:
    spans = sorted([*([c[0], c[1]] for c in cols), [a, b]])
    out: list[list[float]] = []
    for x0, x1 in spans:
        if out and x0 <= out[-1][1] + 1.5:
            out[-1][1] = max(out[-1][1], x1)
        else:
            out.append([x0, x1])
    return out


def _col(p, cols: list[list[float]]) -> int:
    xc = (p.x0 + p.x1) / 2
    for i, (a, b) in enumerate(cols):
        if a - 1 <= xc <= b + 1:
            return i
    return min(range(len(cols)), key=lambda i: abs((cols[i][0] + cols[i][1]) / 2 - xc))


#: A cell's last line ends this share of its column's width short of the column's right edge.
ENDED_SHARE = 0.15


def _all_ended(
    prev: list, here: set[int], cols: list[list[float]], prev_cols: list[int] | None = None
) -> bool:
    """Most columns starting a line here (over half) had no line on the baseline above, or a short one.

    A row's cells start together after the previous cells ended; prose in two columns starts
    a paragraph in one column while the other runs on in full lines. (A cell's last line can
    fill its column by chance: hence "most", not "all".)
    """
    running = set()
    for k, p in enumerate(prev):
        c = _col(p, cols) if prev_cols is None else prev_cols[k]
        a, b = cols[c]
        if c in here and p.x1 > b - ENDED_SHARE * (b - a):
            running.add(c)
    return len(here - running) > len(here) / 2


def read_text_table(
    words: list, clip, style_of=None, rules_of=None
) -> tuple[list[dict], tuple | None, list[list]]:
    """(cells, bbox, pieces) of the wrapped text table at the top of ``clip``; ([], None, []) when none.

    ``pieces[k]`` are the phrases of cell ``k`` top-down (what :func:`reorder_lines` emits).
    ``style_of(phrase)``: its (size, bold); a first baseline set in another style than the
    second is the header row on its own. ``rules_of(box)``: y of the horizontal rules across
    the box; when they separate the rows, they, not the cell starts, delimit the rows.
    """
    base = _baselines(tables_cells.phrases(words, clip))
    if len(base) < 3:
        return [], None, []
    cols: list[list[float]] = []
    kept: list[list] = []
    for k, b in enumerate(base):
        if k >= 2 and len(cols) >= 2 and any(_gutters_crossed(p, cols) for p in b):
            break  # a phrase over a gutter: prose after the table
        if k >= 1 and any(captions.CAPTION.match(p.text) for p in b[:1]):
            break  # the next table's or figure's caption
        for p in b:
            cols = _add_span(cols, p.x0, p.x1)
        kept.append(b)
    if not 2 <= len(cols) <= MAX_COLS or len(kept) < 3:
        return [], None, []
    pitch = sorted(kept[i + 1][0].yc - kept[i][0].yc for i in range(len(kept) - 1))[(len(kept) - 1) // 2]
    # each phrase's column once (the columns are final here; every test below reads them)
    col_of = [[_col(p, cols) for p in b] for b in kept]
    starts, prev_cols = [0], set(col_of[0])
    styled_head = style_of is not None and not (
        {style_of(p) for p in kept[0]} & {style_of(p) for p in kept[1]}
    )
    for i in range(1, len(kept)):
        here = set(col_of[i])
        gap = kept[i][0].yc - kept[i - 1][0].yc > ROW_GAP_LINES * max(pitch, 1.0)
        if (
            gap
            or (i == 1 and styled_head)
            or (
                0 in here
                and len(here) >= 2
                and prev_cols != set(range(len(cols)))
                and _all_ended(kept[i - 1], here, cols, col_of[i - 1])
            )
        ):
            starts.append(i)
        prev_cols = here
    if rules_of is not None:
        box = (min(c[0] for c in cols), kept[0][0].y0, max(c[1] for c in cols), kept[-1][0].y1)
        rules = [y for y in rules_of(box) if box[1] + 1 < y < box[3] - 1]
        if len(rules) >= MIN_BODY_ROWS - 1:  # rules between the rows say where each row starts
            starts = [0] + [
                i for i in range(1, len(kept)) if any(kept[i - 1][0].yc < y < kept[i][0].yc for y in rules)
            ]
    bounds = list(zip(starts, [*starts[1:], len(kept)], strict=True))
    cells, pieces = [], []
    for r, (a, z) in enumerate(bounds):
        group = kept[a:z]
        gcols = col_of[a:z]
        for c in range(len(cols)):
            ps = [
                p for b, bc in zip(group, gcols, strict=True) for p, pc in zip(b, bc, strict=True) if pc == c
            ]
            pieces.append(ps)
            bb = (
                (min(p.x0 for p in ps), min(p.y0 for p in ps), max(p.x1 for p in ps), max(p.y1 for p in ps))
                if ps
                else (cols[c][0], group[0][0].y0, cols[c][1], group[-1][0].y1)
            )
            cells.append(
                {
                    "row": r,
                    "col": c,
                    "text": " ".join(p.text for p in ps),
                    "is_header": False,
                    "row_label": None,
                    "x0": bb[0],
                    "y0": bb[1],
                    "x1": bb[2],
                    "y1": bb[3],
                    "_lines": len(group),
                    "_first": sum(1 for p in group[0] if p),
                    "_crowded": sum(1 for bc in gcols if bc.count(c) >= 2),
                }
            )
    _mark_header(cells, styled_head)
    ps = [p for b in kept for p in b]
    box = (min(p.x0 for p in ps), min(p.y0 for p in ps), max(p.x1 for p in ps), max(p.y1 for p in ps))
    return cells, box, pieces


def _mark_header(cells: list[dict], styled: bool) -> None:
    """Row 0 heads the table when it is one baseline of short labels and the rows below wrap."""
    head = [c for c in cells if c["row"] == 0]
    body = [c for c in cells if c["row"] > 0]
    if styled and head and head[0]["_lines"] == 1:
        for c in head:
            c["is_header"] = True
        return
    wraps = sum(c["_lines"] for c in body if c["col"] == 0) / max(1, len({c["row"] for c in body})) >= 2
    if head and body and head[0]["_lines"] == 1 and wraps and all(len(c["text"].split()) <= 8 for c in head):
        for c in head:
            c["is_header"] = True


def looks_like_text_table(cells: list[dict]) -> bool:
    """The checks of the module doc on one reading."""
    if not cells:
        return False
    n_rows = max(c["row"] for c in cells) + 1
    n_cols = max(c["col"] for c in cells) + 1
    body_rows = n_rows - (1 if any(c["is_header"] for c in cells) else 0)
    if not 2 <= n_cols <= MAX_COLS or body_rows < MIN_BODY_ROWS:
        return False
    firsts = {c["row"]: c for c in cells if c["col"] == 0}
    if sum(c["_lines"] for c in firsts.values()) / n_rows < MIN_LINES_PER_ROW:
        return False
    filled = [c for c in cells if c["text"].strip()]
    if len(filled) < 0.7 * n_rows * n_cols:
        return False
    lines = sum(c["_lines"] for c in firsts.values())
    if sum(len(c["text"].split()) for c in filled) / max(1, lines * n_cols) > MAX_WORDS_PER_LINE:
        return False
    if sum(1 for c in filled if tables_cells.is_numeric(c["text"])) > MAX_NUMERIC * len(filled):
        return False  # a statistics table: the baseline reader (``tables_cells``) keeps its rows
    for col in range(n_cols):
        mine = [c for c in filled if c["col"] == col]
        if mine and sum(1 for c in mine if _MARKERS.match(c["text"])) >= 0.5 * len(mine):
            return False  # a bulleted or numbered list: its markers make a "column"
    if sum(c["_crowded"] for c in cells) > MAX_CROWDED * max(1, sum(c["_lines"] for c in firsts.values())):
        return False  # phrases side by side in one column: the projection merged columns
    sync = sum(1 for r in firsts.values() if r["_first"] >= 2)
    return sync >= MIN_SYNC * n_rows


def clean(cells: list[dict]) -> list[dict]:
    """The cells without the reader's private keys."""
    return [{k: v for k, v in c.items() if not k.startswith("_")} for c in cells]


def _table_caption_text(text: str) -> bool:
    """A table caption by its text alone (label, then a delimiter; no contents-page leader)."""
    m = captions.CAPTION.match(text)
    return bool(
        m
        and captions.kind_of(m.group("kw")) == "table"
        and not captions.LEADER.search(text)
        and (captions.CAPTION_REST.match(m.group("rest")) or m.group("open"))
    )


def has_table_caption(texts) -> bool:
    """Some line of a page is a table caption by its text (the pages :func:`reorder_lines` reads)."""
    return any(captions.CAPTION.match(t) and _table_caption_text(t.strip()) for t in texts)


def style_lookup(pl: pd.DataFrame):
    """phrase -> (size, bold) of the page line under its centre (None when no line is).

    The page's boxes and styles are read on the first call (a table read that stops early asks none).
    """
    memo: list = []

    def style_of(p):
        if not memo:
            memo.append(_boxes(pl))
            size, bold = pl["size"], pl["bold"]
            if size.dtype == np.float64 and bold.dtype == np.bool_:
                # numpy columns: Series.round is ndarray.round, a bool column has no NA to fill
                memo.append(np.round(size.to_numpy(), 1).tolist())
                memo.append(bold.to_numpy().tolist())
            else:
                memo.append(size.astype(float).round(1).tolist())
                memo.append(bold.fillna(False).astype(bool).tolist())
        bx, sizes, bolds = memo
        cx, cy = (p.x0 + p.x1) / 2, p.yc
        hit = np.flatnonzero(
            (bx[:, 0] - 1 <= cx) & (cx <= bx[:, 2] + 1) & (bx[:, 1] - 1 <= cy) & (cy <= bx[:, 3] + 1)
        )
        return (sizes[int(hit[0])], bolds[int(hit[0])]) if len(hit) else None

    return style_of


def _boxes(pl: pd.DataFrame) -> np.ndarray:
    """``pl[["x0", "y0", "x1", "y1"]].to_numpy(dtype=float)``, one column at a time (no frame selection)."""
    out = np.empty((len(pl), 4), dtype=float)
    for k, c in enumerate(("x0", "y0", "x1", "y1")):
        out[:, k] = pl[c].to_numpy(dtype=float)
    return out
