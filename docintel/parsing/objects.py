"""object_registry and cell_df: numbered tables, figures, equations, appendices, bibliography.

Only real captions count: a line that *starts* with the label and goes on
with a delimiter ("Table 3:", "Fig. 2.", "TABLE II", "Figure 10 to paragraph
(i)"), never a prose mention ("as shown in Table 3") nor a line that merely
continues a paragraph. Equations are "(n)" labels at the right margin of a
formula line. Appendices/annexes come from toc_df; bibliography entries from
the lines of the References section.
"""

from __future__ import annotations

import contextlib
import re

import pandas as pd

from docintel.parsing import clauses, graphics, tables_cells, tables_free
from docintel.parsing.backmatter import appendices, bibliography
from docintel.parsing.headings import body_size
from docintel.schema.tables import CELL_DF, OBJECT_REGISTRY

#: Caption label at the start of a line. Group kw = kind word, id = number.
#: A label in brackets ("[표 1]", "<그림 2>", "【表3】", Korean / CJK reports) needs no delimiter after it.
CAPTION = re.compile(
    r"^(?P<open>[\[<\u3008\u3010\uff3b]\s*)?"
    r"(?P<kw>Table|TABLE|Tab\.|Figure|FIGURE|Fig\.?|FIG\.?|Exhibit|EXHIBIT|Chart|Plate"
    r"|\ud45c|\uadf8\ub9bc|\ub3c4\ud45c|\u8868|\u56f3|\u56fe)\s*"
    r"(?P<id>[0-9]{1,3}(?:[.\-][0-9]{1,3})*[a-z]?|[IVXLC]{1,6}|[A-Z](?:[.\-]?[0-9]{1,3})?)"
    r"(?(open)\s*[\]>\u3009\u3011\uff3d)])"
    r"(?P<rest>.*)$"
)
#: What may follow the label on a caption line: a delimiter, nothing, or "to paragraph (i)".
_CAPTION_REST = re.compile(
    r"^(\s*[:.\u2014\u2013|]|\s*$|\s+-\s|\s+to\s+(paragraph|\u00a7|section|appendix)\b)", re.I
)
_KIND = {"tab": "table", "fig": "figure", "exh": "figure", "cha": "figure", "pla": "figure"}
#: CJK caption words: table (표, 도표, 表), figure (그림, 図, 图).
_CJK_KIND = {"\ud45c": "table", "\ub3c4\ud45c": "table", "\u8868": "table"}
_EQ_LABEL = re.compile(r"^\((?P<id>[0-9]{1,3}[a-z]?|[A-Z]?[0-9]{1,2}\.[0-9]{1,3})\)$")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
#: A body-size line with this many CJK characters is running text (it has too few spaces to count words).
CJK_PROSE_CHARS = 16
_LEADER = re.compile(r"(\.\s?){4,}\s*\S+$")
_FURNITURE = ("header", "footer", "page_number", "toc_entry")


def _kind(kw: str) -> str:
    if kw[:1].isascii():
        return _KIND[kw[:3].lower()]
    return _CJK_KIND.get(kw, "figure")


def _is_paragraph_continuation(pl: pd.DataFrame, r) -> bool:
    """True when the line directly above (same column) is prose that runs on into this line."""
    above = pl[(pl.y1 <= r.y0 + 1) & (pl.y1 >= r.y0 - 0.9 * r.size) & (pl.x0 < r.x1) & (pl.x1 > r.x0)]
    if above.empty:
        return False
    prev = above.loc[above.y1.idxmax()]
    text = str(prev.text).rstrip()
    # prose runs on in sentences: a figure label or a table cell above ("relu", "25.03") does not
    prose = len(text.split()) >= 5 and len(re.findall(r"[^\W\d_]{2,}", text)) >= 4
    return (
        prose
        and abs(prev["size"] - r.size) < 0.6
        and not text.endswith((".", ":", ")"))
        and prev.role == "body"
    )


def _caption_block(pl: pd.DataFrame, r) -> pd.DataFrame:
    """The caption's lines: this one and the tightly stacked lines below it of the same size."""
    rows = [r.Index]
    y1, x0, x1 = r.y1, r.x0, r.x1
    # the caption text set in another font right after a bold "Table 1." on its baseline
    same_row = pl[
        (pl.x0 >= r.x1 - 1)
        & (pl.x0 <= r.x1 + 3 * r.size)
        & ((pl.y1 - r.y1).abs() <= 0.35 * r.size)
        & ((pl["size"] - r.size).abs() < 0.6)
        & ~pl.index.isin(rows)
    ].sort_values("x0")
    for k, n in same_row.iterrows():
        if n.x0 > x1 + 3 * r.size or CAPTION.match(str(n.text)):
            break
        rows.append(k)
        x1 = max(x1, n.x1)
    for _ in range(8):
        nxt = pl[
            (pl.y0 >= y1 - 1)
            & (pl.y0 <= y1 + 0.5 * r.size)
            & (pl.x0 < x1)
            & (pl.x1 > x0)
            & ((pl["size"] - r.size).abs() < 0.6)
            & ~pl.index.isin(rows)
        ]
        if nxt.empty:
            break
        n = nxt.loc[nxt.y0.idxmin()]
        if CAPTION.match(str(n.text)) or len(nxt) > 1:
            break
        rows.append(n.name)
        y1 = n.y1
        x0, x1 = min(x0, n.x0), max(x1, n.x1)
    return pl.loc[rows]


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


def _column_of(pl: pd.DataFrame, cap: tuple):
    """The text column (line_df.column) of the caption's first line, None when unknown."""
    hit = pl[(pl.y0 >= cap[1] - 1) & (pl.y0 <= cap[1] + 1) & (pl.x0 >= cap[0] - 1) & (pl.x0 <= cap[0] + 1)]
    if hit.empty or pd.isna(hit.iloc[0]["column"]):
        return None
    return int(hit.iloc[0]["column"])


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
    cols = pl["column"].dropna()
    col_lines = pl[pl["column"] == col] if (col := _column_of(pl, cap)) is not None else pl.iloc[0:0]
    full = (
        cols.max() < 1
        or col is None
        or col < 0
        or len(col_lines) < 3
        or (cap[2] - cap[0]) > 0.55 * width
        or abs(xc - width / 2) < 0.08 * width
    )
    if full:
        x0, x1 = min(cap[0], 0.08 * width), max(cap[2], 0.92 * width)
    else:
        x0, x1 = min(cap[0], col_lines.x0.min()) - 2, max(cap[2], col_lines.x1.max()) + 2
    near = pl[(pl.x1 > x0) & (pl.x0 < x1)]
    if above:
        cand = near[near.y1 <= cap[1] + 1].sort_values("y1", ascending=False)
        edge = max(40.0, cap[1] - 0.6 * height)
    else:
        cand = near[near.y0 >= cap[3] - 1].sort_values("y0")
        edge = min(height - 40, cap[3] + 0.6 * height)
    for r in cand.itertuples():
        words = len(str(r.text).split())
        # CJK prose has few spaces: a body-size line of many CJK characters reads as running text
        cjk = len(_CJK.findall(str(r.text))) >= CJK_PROSE_CHARS and r.size >= body - 0.5
        prose = prose_stops and (words >= 12 or cjk) and (r.x1 - r.x0) > 0.6 * (cap[2] - cap[0])
        if prose or r.role in ("heading", "caption", "title") or CAPTION.match(str(r.text)):
            edge = (r.y1 + 1) if above else (r.y0 - 1)
            break
    return (x0, edge, x1, cap[1] - 0.5) if above else (x0, cap[3] + 0.5, x1, edge)


def build_objects(doc, line_df, page_df, toc_df, doc_id: str):
    """Return (object_registry, cell_df, line_df with caption / table / formula roles and object_key)."""
    line_df = line_df.copy()
    reg: list[dict] = []
    cells: list[dict] = []
    seen: set[str] = set()
    drawn: dict[int, list[tuple]] = {}
    usable = line_df[~line_df["role"].isin(_FURNITURE)]
    body = body_size(usable[usable["role"] == "body"]) if len(usable) else 10.0
    # rows as namedtuples once; a page's frame and pymupdf page only for the few caption / equation lines
    positions = usable.groupby("page").indices
    # headings an outline or contents page names stay headings even when drawn inside a graphic
    primary = toc_df[toc_df["source"] != "heading_detection"] if len(toc_df) else toc_df
    vouched = set(zip(primary["page_start"], primary["line_start"], strict=False)) if len(primary) else set()
    all_rows = list(usable.itertuples())
    sides = {"above": 0, "below": 0, None: 0}  # where table captions sit (caption above its table)
    for page_no in sorted(positions):
        pos = positions[page_no]
        rows = [all_rows[k] for k in pos]
        pl = usable.iloc[pos] if any(CAPTION.match(str(r.text).strip()) for r in rows) else None
        page = doc[int(page_no) - 1]
        for r in rows if pl is not None else ():
            m = _caption_match(pl, r, body)
            if m is None:
                continue
            kind = _kind(m.group("kw"))
            key = f"{kind}:{m.group('id')}"
            if key in seen:
                continue
            seen.add(key)
            block, cap, row = _caption_object(line_df, pl, r, m, kind, key, int(page_no))
            if kind == "table":
                # the caption's own side when table rows adjoin it on one side, else the document's habit
                side = tables_free.caption_side(line_df.loc[pl.index], cap, float(r.size))
                sides[side] += 1
                above_first = (side or max(("below", "above"), key=sides.get)) == "above"
            if kind == "figure":
                bb = _figure_box(line_df, page, page_no, drawn, block, cap, key, vouched)
            else:
                bb = _table_box(
                    line_df, page, page_no, pl, block, cap, key, body, row, cells, doc_id, above_first
                )
            row.update(x0=bb[0], y0=bb[1], x1=bb[2], y1=bb[3])
            reg.append(row)
        # "(512)" in a statistics or financial table is a negative amount, not an equation label
        eq_rows = [r for r in rows if r.role != "table" and _EQ_LABEL.match(str(r.text).strip())]
        if eq_rows:
            reg += _equations(line_df, usable.iloc[pos] if pl is None else pl, eq_rows, page, seen)
    n_draw = (
        dict(zip(page_df["page"], page_df["n_drawings"], strict=False)) if "n_drawings" in page_df else None
    )
    found, more = tables_free.uncaptioned_tables(doc, line_df, seen, doc_id, n_draw, reg)
    reg += found
    cells += more
    reg += appendices(toc_df, line_df, seen)
    reg += clauses.clause_objects(toc_df, line_df, seen)
    reg += bibliography(toc_df, line_df, seen)
    registry = pd.DataFrame(reg) if reg else OBJECT_REGISTRY.empty()
    registry["doc_id"] = doc_id
    registry = OBJECT_REGISTRY.conform(registry)
    cell_df = CELL_DF.conform(pd.DataFrame(cells)) if cells else CELL_DF.empty()
    return registry, cell_df, line_df


def _caption_match(pl: pd.DataFrame, r, body: float):
    """The CAPTION match of line ``r`` when it opens a table / figure caption, else None."""
    text = str(r.text).strip()
    m = CAPTION.match(text)
    if not m or _LEADER.search(text):
        return None
    # "Table 2-1 FUNCTION_USAGE view": a bare space after the label is a caption only when the
    # line is set like one (smaller than body text, or already marked caption), never "Table 2 shows"
    plain = re.match(r"\s+[A-Z(\u201c\"]", m.group("rest")) and (r.size <= body - 0.5 or r.role == "caption")
    if not (_CAPTION_REST.match(m.group("rest")) or plain or m.group("open")):
        return None
    if _is_paragraph_continuation(pl, r):
        return None
    return m


def _caption_object(
    line_df: pd.DataFrame, pl: pd.DataFrame, r, m, kind: str, key: str, page_no: int
) -> tuple[pd.DataFrame, tuple, dict]:
    """Mark the caption's lines in ``line_df``; return (caption block, its box, the registry row)."""
    block = _caption_block(pl, r)
    caption = " ".join(str(t).strip() for t in block["text"])
    cap = (block.x0.min(), block.y0.min(), block.x1.max(), block.y1.max())
    line_df.loc[block.index, "role"] = "caption"
    line_df.loc[block.index, "object_key"] = key
    row = {
        "object_key": key,
        "object_type": kind,
        "object_id": m.group("id"),
        "label": f"{m.group('kw').rstrip('.').capitalize() if kind == 'table' else m.group('kw')} {m.group('id')}",
        "caption": caption,
        "page": page_no,
        "line_start": int(block.line.min()),
        "line_end": int(block.line.max()),
        "page_end": page_no,
        "source": "caption",
    }
    return block, cap, row


def _figure_box(line_df, page, page_no, drawn: dict, block: pd.DataFrame, cap: tuple, key: str, vouched: set):
    """A figure's box from the page's graphics around its caption; marks the text drawn in it."""
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
        graphics.mark_figure_text(line_df, page_no, art, key, exclude=block.index)
        graphics.mark_figure_headings(line_df, page_no, art, key, vouched)
    return bb


def _table_box(
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
    for above in (True, False) if above_first else (False, True):
        clip = _table_clip(pl, cap, page.rect.width, page.rect.height, above=above, body=body)
        # a ruled grid delimits itself: long cell text must not end its region
        grid = _table_clip(pl, cap, page.rect.width, page.rect.height, above=above, prose_stops=False)
        if clip[3] - clip[1] > 8 or grid[3] - grid[1] > 8:
            tc, tb = tables_cells.table_cells(page, clip, grid, near_top=not above)
        if tc:
            break
    bb = cap if tb is None else (min(cap[0], tb[0]), cap[1], max(cap[2], tb[2]), max(cap[3], tb[3]))
    if tc:
        row["n_rows"] = max(c["row"] for c in tc) + 1
        row["n_cols"] = max(c["col"] for c in tc) + 1
        cells += [{**c, "doc_id": doc_id, "object_key": key, "page": int(page_no)} for c in tc]
        inside = (
            (line_df.page == page_no)
            & (line_df.y0 >= tb[1] - 1)
            & (line_df.y1 <= tb[3] + 1)
            & (line_df.x0 >= tb[0] - 1)
            & (line_df.x1 <= tb[2] + 1)
            & ~line_df.index.isin(block.index)
        )
        line_df.loc[inside, "role"] = "table"
        line_df.loc[inside, "object_key"] = key
    return bb


def _equations(line_df: pd.DataFrame, pl: pd.DataFrame, rows: list, page, seen: set[str]) -> list[dict]:
    """'(n)' alone at the right margin with formula text on its baseline (``rows``: pl's candidates)."""
    out = []
    width = page.rect.width
    for r in rows:
        m = _EQ_LABEL.match(str(r.text).strip())
        if not m or r.x0 < 0.6 * width:
            continue
        band = pl[
            (pl.y1 >= r.y0 - 2 * r.size)
            & (pl.y0 <= r.y1 + 2 * r.size)
            & (pl.x1 < r.x0)
            & (pl.index != r.Index)
        ]
        same = band[(band.y0 <= r.y1) & (band.y1 >= r.y0)]
        if same.empty or same.text.str.split().str.len().sum() > 40:
            continue
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
