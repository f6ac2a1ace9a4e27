"""Tables of aligned text columns whose cells wrap over several lines (no rules needed).

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

Two uses: :func:`reorder_lines` (before the toc stage, on pages with a table caption) rewrites
the region's lines cell by cell so that reading order keeps a cell's lines together, and the
captioned-table reader takes :func:`read_text_table`'s cells when they qualify.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from docintel.parsing import captions, frame_rows, linecols, tables_cells, tables_free

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
    own = ("text", "x0", "y0", "x1", "y1", "line")
    vals = {c: [line_df[c].to_numpy()[rest], *(new[c].to_numpy() for new in new_pages.values())] for c in own}
    vals = {c: np.concatenate(v) for c, v in vals.items()}
    key = pd.DataFrame({"page": line_df["page"].to_numpy()[src], "line": vals["line"]})
    order = key.sort_values(["page", "line"], kind="stable").index.to_numpy()
    out = line_df.take(src[order]).reset_index(drop=True)
    for c in own:
        out[c] = pd.array(vals[c][order], dtype=line_df[c].dtype)
    return out


def style_lookup(pl: pd.DataFrame):
    """phrase -> (size, bold) of the page line under its centre (None when no line is).

    The page's boxes and styles are read on the first call (a table read that stops early asks none).
    """
    memo: list = []

    def style_of(p):
        if not memo:
            memo.append(_boxes(pl))
            memo.append(pl["size"].astype(float).round(1).tolist())
            memo.append(pl["bold"].fillna(False).astype(bool).tolist())
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
    out = pl.take(np.concatenate([before, np.asarray(src, dtype=np.intp), after]))
    _set_phrases(out, pl, before, after, phrases)
    out["line"] = range(1, len(out) + 1)
    for c in ("line", "page"):  # what ``astype`` of the two columns gives, without copying the frame
        if c in out.columns and out[c].dtype != pl[c].dtype:
            out[c] = out[c].astype(pl[c].dtype)
    return out


def _set_phrases(out: pd.DataFrame, pl: pd.DataFrame, before, after, phrases: list) -> None:
    """``out``'s text and box columns: ``pl``'s at ``before``, the phrases', ``pl``'s at ``after``.

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
    for c, vals in own.items():
        col = pl[c].to_numpy()
        if c == "text":
            merged = np.concatenate([col[before], np.array(vals, dtype=object), col[after]])
            out[c] = pd.array(merged, dtype=pl[c].dtype)
        else:
            out[c] = np.concatenate([col[before], np.array(vals, dtype=np.float64), col[after]])
