"""Blocks: the corpus retrieval unit, bounded by the document's own structure.

A block is a run of lines of one section (``line_df.section_id``) on one page, split at a size
cap at a paragraph boundary where one is near. It never crosses a section or a page, so its
page/line span and bbox always highlight in the PDF.
"""

from __future__ import annotations

import pandas as pd

from docintel.text import dehyphenate, terms

#: Line roles that are not content: running headers/footers, page numbers, figure internals,
#: contents-page entries (they only echo other pages' headings).
SKIP_ROLES = frozenset({"header", "footer", "page_number", "figure_text", "toc_entry"})
#: Measured on the NIST dev corpus (1000 beat 600 and 1500 for the winning document).
MAX_CHARS = 1000
#: Bump when the block rules change: re-ingesting then rebuilds every document's blocks.
BLOCKS_VERSION = "2"
_CONTROLS = {c: None for c in range(32) if c not in (9, 10, 13)}

BLOCK_COLUMNS = [
    "block_id",
    "doc_id",
    "page",
    "line_start",
    "line_end",
    "section_id",
    "section_title",
    "text",
    "terms",
    "x0",
    "y0",
    "x1",
    "y1",
]


def empty_blocks() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="object") for c in BLOCK_COLUMNS})


def _emit(out: list[dict], doc_id: str, rows: list, titles: dict, context: str) -> None:
    if not rows:
        return
    # NUL and other C0 controls are extraction debris (a Postgres text field cannot hold NUL)
    text = dehyphenate([str(r.text) for r in rows]).translate(_CONTROLS).strip()
    if not text:
        return
    sec = rows[0].section_id if isinstance(rows[0].section_id, str) else None
    title = (titles.get(sec, "") if sec else "").translate(_CONTROLS)
    out.append(
        {
            "block_id": f"{doc_id}:{int(rows[0].page)}:{int(rows[0].line)}",
            "doc_id": doc_id,
            "page": int(rows[0].page),
            "line_start": int(rows[0].line),
            "line_end": int(rows[-1].line),
            "section_id": sec,
            "section_title": title,
            "text": text,
            # the document's title and the section title are indexed with every block: a passage
            # is read in the context of what it belongs to
            "terms": " ".join(terms(f"{context} {title} {text}")),
            "x0": float(min(r.x0 for r in rows)),
            "y0": float(min(r.y0 for r in rows)),
            "x1": float(max(r.x1 for r in rows)),
            "y1": float(max(r.y1 for r in rows)),
        }
    )


def make_blocks(tables, max_chars: int = MAX_CHARS, context: str = "") -> pd.DataFrame:
    """Blocks of one parsed document (DocTables), in reading order; ``context`` (the document's
    title and publication id) is indexed with each."""
    lines = tables.line_df
    if lines.empty:
        return empty_blocks()
    lines = lines[~lines["role"].isin(SKIP_ROLES)].sort_values(["page", "line"])
    titles = dict(zip(tables.toc_df["toc_id"], tables.toc_df["title"].astype(str), strict=False))
    out: list[dict] = []
    cur: list = []
    size = 0
    for r in lines.itertuples(index=False):
        if cur and (r.page != cur[0].page or r.section_id != cur[0].section_id):
            _emit(out, tables.doc_id, cur, titles, context)
            cur, size = [], 0
        if cur and size + len(str(r.text)) > max_chars:
            # break at the last paragraph (text block) change in the second half, else here
            cut = len(cur)
            for i in range(len(cur) - 1, len(cur) // 2, -1):
                if cur[i].block != cur[i - 1].block:
                    cut = i
                    break
            _emit(out, tables.doc_id, cur[:cut], titles, context)
            cur = cur[cut:]
            size = sum(len(str(x.text)) for x in cur)
        cur.append(r)
        size += len(str(r.text)) + 1
    _emit(out, tables.doc_id, cur, titles, context)
    return pd.DataFrame(out, columns=BLOCK_COLUMNS) if out else empty_blocks()
