"""Caption lines of numbered tables and figures.

Only real captions count: a line that *starts* with the label and goes on
with a delimiter ("Table 3:", "Fig. 2.", "TABLE II", "Figure 10 to paragraph
(i)"), never a prose mention ("as shown in Table 3") nor a line that merely
continues a paragraph.
"""

from __future__ import annotations

import re

import pandas as pd

#: Caption label at the start of a line. Group kw = kind word, id = number ("3-3", "II", "B.2", "NTR-1").
#: A label in brackets ("[표 1]", "<그림 2>", "【表3】", Korean / CJK reports) needs no delimiter after it.
CAPTION = re.compile(
    r"^(?P<open>[\[<\u3008\u3010\uff3b]\s*)?"
    r"(?P<kw>Table|TABLE|Tab\.|Figure|FIGURE|Fig\.?|FIG\.?|Exhibit|EXHIBIT|Chart|Plate"
    r"|\ud45c|\uadf8\ub9bc|\ub3c4\ud45c|\u8868|\u56f3|\u56fe)\s*"
    r"(?P<id>[0-9]{1,3}(?:[.\-][0-9]{1,3})*[a-z]?|[A-Z]{2,4}-[0-9]{1,3}|[IVXLC]{1,6}|[A-Z](?:[.\-]?[0-9]{1,3})?)"
    r"(?(open)\s*[\]>\u3009\u3011\uff3d)])"
    r"(?P<rest>.*)$"
)
#: What may follow the label on a caption line: a delimiter, nothing, or "to paragraph (i)".
CAPTION_REST = re.compile(
    r"^(\s*[:.\u2014\u2013|]|\s*$|\s+-\s|\s+to\s+(paragraph|\u00a7|section|appendix)\b)", re.I
)
_KIND = {"tab": "table", "fig": "figure", "exh": "figure", "cha": "figure", "pla": "figure"}
#: CJK caption words: table (표, 도표, 表), figure (그림, 図, 图).
_CJK_KIND = {"\ud45c": "table", "\ub3c4\ud45c": "table", "\u8868": "table"}
LEADER = re.compile(r"(\.\s?){4,}\s*\S+$")


def kind_of(kw: str) -> str:
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


def caption_match(pl: pd.DataFrame, r, body: float):
    """The CAPTION match of line ``r`` when it opens a table / figure caption, else None."""
    text = str(r.text).strip()
    m = CAPTION.match(text)
    if not m or LEADER.search(text):
        return None
    # "Table 2-1 FUNCTION_USAGE view": a bare space after the label is a caption only when the
    # line is set like one (smaller than body text, or already marked caption), never "Table 2 shows"
    plain = re.match(r"\s+[A-Z(\u201c\"]", m.group("rest")) and (r.size <= body - 0.5 or r.role == "caption")
    if not (CAPTION_REST.match(m.group("rest")) or plain or m.group("open")):
        return None
    if _is_paragraph_continuation(pl, r):
        return None
    return m


def caption_object(
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
