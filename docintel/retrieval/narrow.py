"""Which of several toc sections a reference means, and how deep it goes.

A rule numbers the sub-units of every section alike ("(a)", "(1)", "1."): a reference to
"paragraph (a)" names the (a) of the provision it is written in, and "§ 164.312(b)(1)" names
the toc's own sub-paragraph when the parser registered it.
"""

from __future__ import annotations

import re

import pandas as pd

from docintel.retrieval.bm25 import _page_rows as page_rows
from docintel.retrieval.framememo import per_frame
from docintel.schema.answer import PendingReference
from docintel.schema.document import DocTables

#: Labels whose ids may be written without their parentheses ("paragraph b" for "(b)").
PAREN_LABEL = re.compile(r"(?i)\s*(?:(?:sub)?paragraphs?|paras?\.|clauses?|cl\.|\u00b6|\()")


def nearest(tables: DocTables, secs: pd.DataFrame, ref: PendingReference, target: str = "") -> pd.DataFrame:
    """Of several sections with the id a reference names ("paragraph (a)" in a rule where every
    section has its (a)), the one the reader means. The id as written first: "(d)" is not "(D)".
    Then the one inside the provision the reference is written in, taken from the outermost
    enclosing provision down (a paragraph chain is counted from its section: "(i)(1)" of this
    section is the section's (i), not a roman (i) deeper in), else the nearest one before the
    reference, else the first."""
    if len(secs) < 2:
        return secs
    exact = secs[secs["number"].map(lambda n: str(n).strip().rstrip(".")) == target.strip().rstrip(".")]
    if len(exact):
        secs = exact
        if len(secs) < 2:
            return secs
    lines = page_rows(tables.line_df, ref.origin_page)  # a slice when line_df is in page order
    at = lines.loc[lines["line"] == ref.origin_line, "section_id"]
    parents = toc_parents(tables.toc_df)
    chain, sid = [], at.iloc[0] if len(at) and isinstance(at.iloc[0], str) else None
    while isinstance(sid, str) and sid not in chain:
        chain.append(sid)
        sid = parents.get(sid)
    for anc in reversed(chain):  # the outermost enclosing provision that holds such an id
        inside = secs[(secs["parent_id"] == anc) | (secs["toc_id"] == anc)]
        if len(inside):
            return inside.head(1)
    key = ref.origin_page * 10**6 + ref.origin_line
    starts = secs["page_start"].fillna(0).astype(int) * 10**6 + secs["line_start"].fillna(0).astype(int)
    before = secs[starts.to_numpy() <= key]
    return before.tail(1) if len(before) else secs.head(1)


#: id(toc_df) -> (toc_df, {toc_id: parent_id}): the map :func:`nearest` walks, once per toc.
_PARENTS: dict[int, tuple[pd.DataFrame, dict]] = {}


def toc_parents(toc: pd.DataFrame) -> dict:
    """``{toc_id: parent_id}`` of ``toc`` (the last row of an id wins, as ``dict(zip(...))``),
    built once per toc frame object: a 600-page document's toc was zipped per reference."""
    return per_frame(_PARENTS, toc, lambda: dict(zip(toc["toc_id"], toc["parent_id"], strict=True)))


SUB_CHAIN = re.compile(r"^paragraph\s+((?:\([A-Za-z0-9]{1,4}\))+)\s*(?:;\s*)?")


def descend(tables: DocTables, secs: pd.DataFrame, sub: str | None) -> tuple[pd.DataFrame, str | None]:
    """Section "164.312" with sub-selector "paragraph (b)(1)" is the toc's own provision
    164.312(b)(1) when the parser registered it (else as deep as it goes): the sub-paragraph
    itself, not the first "(1)" of the section. Returns the section and what is left to select."""
    m = SUB_CHAIN.match(sub or "")
    if not m:
        return secs, sub
    tags = re.findall(r"\([A-Za-z0-9]{1,4}\)", m.group(1))
    toc = tables.toc_df
    kids = toc.groupby("parent_id")
    cur, used = secs, 0
    for tag in tags:
        pid = str(cur.iloc[0]["toc_id"])
        if pid not in kids.groups:
            break
        child = kids.get_group(pid)
        child = child[child["number"].map(lambda n: str(n).strip().rstrip(".")) == tag]
        if child.empty:
            break
        cur, used = child.head(1), used + 1
    if not used:
        return secs, sub
    rest = "".join(tags[used:])
    left = ((f"paragraph {rest}; " if rest else "") + (sub or "")[m.end() :]).strip("; ") or None
    return cur, left
