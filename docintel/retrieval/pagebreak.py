"""A first-hop window that ends where its page's running text ends, continued over the page break.

A section that runs over a page break is one passage in the reader's eyes: "3.15.2 Requirements"
opens at the foot of a page with the PID files' name and location and goes on, on the next page,
with what the file must contain. The page-bounded window (``passage.best_passage``) can only end
at the page's last line, so the next page's half of the section is lost to pass 1 unless that page
also ranks first. When the window reaches the last running-text line of its page (footnotes
below it, which it may hold, are no text the section continues), and the next page opens (no heading first) in the
same section, the windows that bridge the break, from the page's foot into the next page's head,
within the same token budget, are scored as ``best_passage`` scores a window; one that scores
higher than the page's own window replaces it.
"""

from __future__ import annotations

import pandas as pd

from docintel.retrieval.bm25 import body_lines, page_index
from docintel.retrieval.passage import count_tokens, default_budget, page_passage, window_score
from docintel.retrieval.rank import phrase_bigrams, query_terms
from docintel.schema.document import DocTables
from docintel.schema.evidence import EvidenceLine, ParsedQuestion, Passage
from docintel.text import terms

#: Lines of the next page read at most (the continuation of one section's paragraph or two).
MAX_CONTINUATION = 12
_STOP_ROLES = ("heading", "title", "caption")


def _continuation(tables: DocTables, page: int, section, held: frozenset) -> pd.DataFrame:
    """The next page's leading lines still in ``section``: up to its first heading, title or
    caption, another section's line, a footnote or a line ``held`` (another pass-1 window reads
    it: a page read for itself is not read twice), at most :data:`MAX_CONTINUATION`."""
    nxt = body_lines(tables, page + 1)
    keep = 0
    for r in nxt.head(MAX_CONTINUATION).itertuples(index=False):
        if (
            str(r.role) in _STOP_ROLES
            or str(r.role) == "footnote"
            or r.section_id != section
            or (int(r.page), int(r.line)) in held
        ):
            break
        keep += 1
    return nxt.head(keep)


def across_page_break(
    tables: DocTables, question: ParsedQuestion, passage: Passage, held: frozenset = frozenset()
) -> Passage:
    """``passage`` (one page's window), or the better-matching window of the same budget that
    runs from its page's foot into the next page's continuation of the same section (up to a
    line of ``held``: (page, line) keys the other pass-1 windows hold)."""
    if not passage.lines or "section_id" not in tables.line_df:
        return passage
    page = passage.page
    body = body_lines(tables, page)
    text_rows = body[body["role"].astype(str) != "footnote"]
    if text_rows.empty:
        return passage
    last = int(text_rows["line"].iloc[-1])
    if passage.lines[-1].page != page or (page, last) not in {(ln.page, ln.line) for ln in passage.lines}:
        return passage  # the window stops before the page's running text does (or runs on already)
    section = text_rows["section_id"].iloc[-1]
    if section is None or pd.isna(section):
        return passage
    cont = _continuation(tables, page, section, held)
    if cont.empty:
        return passage
    rows = list(text_rows.itertuples(index=False)) + list(cont.itertuples(index=False))
    n_own = len(text_rows)
    line_terms = [terms(str(r.text)) for r in rows]
    sizes = [count_tokens(str(r.text)) for r in rows]
    index = page_index(tables)
    qset, qbigrams = set(query_terms(question)), phrase_bigrams(question)
    own = {(ln.page, ln.line) for ln in passage.lines}
    at = [k for k, r in enumerate(rows) if (int(r.page), int(r.line)) in own]
    best = window_score(index, [line_terms[k] for k in at], qset, qbigrams)
    budget, span = default_budget(tables), None
    for i in range(n_own - 1, -1, -1):  # windows holding the page's last text line and the next page's first
        if sum(sizes[i:n_own]) + sizes[n_own] > budget:
            break
        j = n_own + 1
        while j < len(rows) and sum(sizes[i : j + 1]) <= budget:
            j += 1
        score = window_score(index, line_terms[i:j], qset, qbigrams)
        if score > best:
            best, span = score, (i, j)
    if span is None:
        return passage
    i, j = span
    head = page_passage(
        tables,
        page,
        line_start=int(rows[i].line),
        line_end=int(rows[n_own - 1].line),
        note=f"lines {int(rows[i].line)}-{int(rows[n_own - 1].line)} and the next page's first "
        f"{j - n_own}: the section runs over the page break",
    )
    extra = [
        EvidenceLine(page=int(r.page), line=int(r.line), text=str(r.text), role=str(r.role or "body"))
        for r in rows[n_own:j]
    ]
    return head.model_copy(update={"lines": [ln for ln in head.lines if ln.role != "footnote"] + extra})
