"""Caption lines of numbered tables and figures.

Only real captions count: a line that *starts* with the label and goes on
with a delimiter ("Table 3:", "Fig. 2.", "TABLE II", "Figure 10 to paragraph
(i)"), never a prose mention ("as shown in Table 3") nor a line that merely
continues a paragraph.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from docintel.parsing import frame_rows

#: Caption label at the start of a line. Group kw = kind word, id = number ("3-3", "II", "B.2", "NTR-1").
#: A label in brackets ("[표 1]", "<그림 2>", "【表3】", Korean / CJK reports) needs no delimiter after it.
CAPTION = re.compile(
    r"^(?P<open>[\[<\u3008\u3010\uff3b]\s*)?"
    r"(?P<kw>Table|TABLE|Tab\.|Figure|FIGURE|Fig\.?|FIG\.?|Exhibit|EXHIBIT|Chart|Plate"
    r"|\ud45c|\uadf8\ub9bc|\ub3c4\ud45c|\u8868|\u56f3|\u56fe"
    # a statistical abstract's table number, "No. 1045. Retail Trade\u2014..." (bold: caption_match)
    r"|No\.(?= [0-9]{1,4}\.\s+[A-Z]))\s*"
    r"(?P<id>(?<=No\. )[0-9]{1,4}|[0-9]{1,3}(?:[.\-][0-9]{1,3})*[a-z]?|[A-Z]{2,4}-[0-9]{1,3}|[IVXLC]{1,6}|[A-Z](?:[.\-]?[0-9]{1,3})?)"
    r"(?(open)\s*[\]>\u3009\u3011\uff3d)])"
    r"(?P<rest>.*)$"
)
#: Every first character a :data:`CAPTION` match can have (an opening bracket or a keyword's first
#: letter): a set lookup before the regex, which most lines fail.
CAPTION_FIRST = frozenset("[<\u3008\u3010\uff3bTFECPN\ud45c\uadf8\ub3c4\u8868\u56f3\u56fe")
#: What may follow the label on a caption line: a delimiter, nothing, or "to paragraph (i)".
CAPTION_REST = re.compile(
    r"^(\s*[:.\u2014\u2013|]|\s*$|\s+-\s|\s+to\s+(paragraph|\u00a7|section|appendix)\b)", re.I
)
_KIND = {"no.": "table", "tab": "table", "fig": "figure", "exh": "figure", "cha": "figure", "pla": "figure"}
#: CJK caption words: table (표, 도표, 表), figure (그림, 図, 图).
_CJK_KIND = {"\ud45c": "table", "\ub3c4\ud45c": "table", "\u8868": "table"}
LEADER = re.compile(r"(\.\s?){4,}\s*\S+$")


def kind_of(kw: str) -> str:
    if kw[:1].isascii():
        return _KIND[kw[:3].lower()]
    return _CJK_KIND.get(kw, "figure")


def _label_word(kw: str) -> str:
    """A table caption's label word: "TABLE" -> "Table"; a statistical abstract's "No." is its Table."""
    return "Table" if kw == "No." else kw.rstrip(".").capitalize()


def _is_paragraph_continuation(pl: pd.DataFrame, r) -> bool:
    """True when the line directly above (same column) is prose that runs on into this line."""
    x0, y1, x1 = frame_rows.floats(pl, "x0", "y1", "x1")
    hit = np.flatnonzero((y1 <= r.y0 + 1) & (y1 >= r.y0 - 0.9 * r.size) & (x0 < r.x1) & (x1 > r.x0))
    if not len(hit):
        return False
    k = hit[np.argmax(y1[hit])]  # the first of the lowest, as idxmax picks
    text = str(pl["text"].iat[k]).rstrip()
    # prose runs on in sentences: a figure label or a table cell above ("relu", "25.03") does not
    prose = len(text.split()) >= 5 and len(re.findall(r"[^\W\d_]{2,}", text)) >= 4
    return (
        prose
        and abs(pl["size"].iat[k] - r.size) < 0.6
        and not text.endswith((".", ":", ")"))
        and pl["role"].iat[k] == "body"
    )


def _caption_block(pl: pd.DataFrame, r) -> pd.DataFrame:
    """The caption's lines: this one and the tightly stacked lines below it of the same size."""
    return pl.iloc[_caption_rows(pl, r)[0]]


def _caption_rows(pl: pd.DataFrame, r) -> tuple[list[int], tuple[np.ndarray, ...]]:
    """:func:`_caption_block`'s positions in ``pl``, and pl's x0, y0, x1, y1 as float arrays."""
    # positions in ``pl`` (its index labels are unique), masks on numpy columns
    px0, py0, px1, py1, psize = frame_rows.floats(pl, "x0", "y0", "x1", "y1", "size")
    texts = pl["text"].tolist()
    rows = [pl.index.get_loc(r.Index)]
    taken = np.zeros(len(pl), dtype=bool)
    taken[rows[0]] = True
    y1, x0, x1 = r.y1, r.x0, r.x1
    same_size = np.abs(psize - r.size) < 0.6
    # the caption text set in another font right after a bold "Table 1." on its baseline
    hit = np.flatnonzero(
        (px0 >= r.x1 - 1)
        & (px0 <= r.x1 + 3 * r.size)
        & (np.abs(py1 - r.y1) <= 0.35 * r.size)
        & same_size
        & ~taken
    )
    for k in hit[np.argsort(px0[hit], kind="quicksort")]:  # sort_values("x0")'s order
        if px0[k] > x1 + 3 * r.size or CAPTION.match(str(texts[k])):
            break
        rows.append(int(k))
        taken[k] = True
        x1 = max(x1, px1[k])
    for _ in range(8):
        nxt = np.flatnonzero(
            (py0 >= y1 - 1) & (py0 <= y1 + 0.5 * r.size) & (px0 < x1) & (px1 > x0) & same_size & ~taken
        )
        if not len(nxt):
            break
        k = int(nxt[np.argmin(py0[nxt])])
        if CAPTION.match(str(texts[k])) or len(nxt) > 1:
            break
        rows.append(k)
        taken[k] = True
        y1 = py1[k]
        x0, x1 = min(x0, px0[k]), max(x1, px1[k])
    return rows, (px0, py0, px1, py1)


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
    if (
        m.group("kw")[:3].lower() == "exh"
        and not m.group("id")[:1].isdigit()
        and not m.group("rest").strip()
        and not m.group("open")
    ):
        # "EXHIBIT A" alone on its line: an attachment's heading (a contract's), not a figure; a
        # report's numbered "Exhibit 3" alone on its line is still its figure's caption
        return None
    if m.group("kw") == "No." and not getattr(r, "bold", False):
        return None  # "No. 1. No. ..." of a scanned register: only a bold "No. 1045. Title" heads a table
    if _is_paragraph_continuation(pl, r):
        return None
    return m


def caption_object(
    line_df: pd.DataFrame, pl: pd.DataFrame, r, m, kind: str, key: str, page_no: int
) -> tuple[pd.DataFrame, tuple, dict]:
    """Mark the caption's lines in ``line_df``; return (caption block, its box, the registry row)."""
    rows, geo = _caption_rows(pl, r)
    block = pl.iloc[rows]
    caption = " ".join(str(t).strip() for t in block["text"])
    box = [a[rows] for a in geo]
    if all(pl[c].dtype == np.float64 for c in ("x0", "y0", "x1", "y1")) and not np.isnan(box).any():
        # the block's extent from the float columns already read (pandas' min / max, same values)
        cap = (box[0].min(), box[1].min(), box[2].max(), box[3].max())
    else:
        cap = (block.x0.min(), block.y0.min(), block.x1.max(), block.y1.max())
    pos = line_df.index.get_indexer(block.index) if line_df.index.is_unique else None
    if pos is not None and (pos >= 0).all():  # by position: a label write costs twice as much
        line_df.iloc[pos, line_df.columns.get_loc("role")] = "caption"
        line_df.iloc[pos, line_df.columns.get_loc("object_key")] = key
    else:
        line_df.loc[block.index, "role"] = "caption"
        line_df.loc[block.index, "object_key"] = key
    lines = pl["line"].to_numpy()[rows] if pl["line"].dtype.kind in "iu" else block["line"]
    row = {
        "object_key": key,
        "object_type": kind,
        "object_id": m.group("id"),
        "label": f"{_label_word(m.group('kw')) if kind == 'table' else m.group('kw')} {m.group('id')}",
        "caption": caption,
        "page": page_no,
        "line_start": int(lines.min()),
        "line_end": int(lines.max()),
        "page_end": page_no,
        "source": "caption",
    }
    return block, cap, row
