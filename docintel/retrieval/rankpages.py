"""The page sets the ranking puts after the body (document-only, kept and stored with the
retrieval index): back matter, commentary on earlier provisions, and listing pages (contents,
lists of tables / figures). Split from :mod:`docintel.retrieval.rank`, which re-exports them."""

from __future__ import annotations

import re

import pandas as pd

from docintel.retrieval.bm25 import document_memo
from docintel.retrieval.lookup import BACK_MATTER, appendix_sections, section_ranges
from docintel.schema.document import DocTables

#: Share of a page's body lines that are contents or list-of-tables/figures entries above
#: which it is a listing page: it is ranked after every page of the body that matches.
LISTING_SHARE = 0.5
_LISTING_LINE = re.compile(
    r"^\s*(?:(?:table|figure|fig\.|exhibit|appendix|annex|schedule)\s+[\w.-]+\b.*?)(?:\.{3,}|\s)\s*[\divxlc]+\s*$",
    re.I,
)


def back_matter_pages(tables: DocTables) -> set[int]:
    """Pages of the back matter: registered appendices / annexes / exhibits / schedules /
    attachments, appendix sections, and everything from a References or Bibliography heading on
    (document-only: kept and stored with the retrieval index)."""
    return set(document_memo(tables, "back_matter_pages", lambda: _back_matter_pages(tables)))


def _back_matter_pages(tables: DocTables) -> set[int]:
    pages: set[int] = set()
    reg = tables.object_registry
    if reg is not None and len(reg):
        for r in reg[reg["object_type"].isin(BACK_MATTER)].itertuples(index=False):
            end = int(r.page_end) if pd.notna(r.page_end) else int(r.page)
            pages |= set(range(int(r.page), max(int(r.page), end) + 1))
    ranges = section_ranges(tables)
    apps = appendix_sections(tables)
    if not ranges.empty and not apps.empty:
        for r in ranges[ranges["toc_id"].isin(set(apps["toc_id"]))].itertuples(index=False):
            pages |= set(range(int(r.page_start), int(r.page_end) + 1))
    if not ranges.empty:
        refs = ranges[
            ranges["title"].astype(str).str.fullmatch(r"\s*(?:references|bibliography)\s*", case=False)
        ]
        if len(refs) and len(tables.page_df):
            pages |= set(range(int(refs["page_start"].min()), int(tables.page_df["page"].max()) + 1))
    return pages


def commentary_pages(tables: DocTables) -> set[int]:
    """Pages of sections titled by the label of a provision or object that the document holds on
    an earlier page ("Clause 8.8" over a drafting note, when clause 8.8 is on page 6): notes,
    commentary and annotations that restate the body rank like back matter (document-only: kept
    and stored with the retrieval index)."""
    return set(document_memo(tables, "commentary_pages", lambda: _commentary_pages(tables)))


def _commentary_pages(tables: DocTables) -> set[int]:
    reg, ranges = tables.object_registry, section_ranges(tables)
    if reg is None or reg.empty or ranges.empty:
        return set()
    first_page: dict[str, int] = {}
    for label, page in zip(reg["label"], reg["page"], strict=True):
        key = " ".join(label.lower().split()) if isinstance(label, str) else ""
        if key and pd.notna(page):
            first_page[key] = min(first_page.get(key, int(page)), int(page))
    pages: set[int] = set()
    for r in ranges.itertuples(index=False):
        title = " ".join(str(r.title).lower().split())
        label = _LABEL_TITLE.match(title)
        start = first_page.get(label.group(1)) if label else None
        if start is not None and start < int(r.page_start):
            pages |= set(range(int(r.page_start), int(r.page_end) + 1))
    return pages


#: A title that opens with a label ("clause 8.8", "clause 6: termination"): the label part.
_LABEL_TITLE = re.compile(r"^([a-z§¶][\w.]*\s+[\w.()-]*\d[\w.()-]*?)\.?(?:\s*[:\-–]\s*\S.*)?$")


def listing_pages(tables: DocTables) -> set[int]:
    """Contents pages and lists of tables / figures: most of their body lines are
    ``toc_entry`` lines or entries like "Table D-1 Title ........ 23" (kept with the index)."""
    return set(document_memo(tables, "listing_pages", lambda: _listing_pages(tables)))


def _listing_pages(tables: DocTables) -> set[int]:
    ldf = tables.line_df
    if ldf is None or ldf.empty:
        return set()
    body = ldf[~ldf["role"].isin(("header", "footer", "page_number"))]
    entry = (body["role"] == "toc_entry") | body["text"].astype(str).str.match(_LISTING_LINE)
    share = entry.groupby(body["page"]).mean()
    counts = body.groupby("page").size()
    return {int(p) for p, v in share.items() if v >= LISTING_SHARE and counts[p] >= 3}
