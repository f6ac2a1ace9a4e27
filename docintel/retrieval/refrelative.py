"""Sections a relative pointer names, read from the toc around the reference.

"The following sections define ..." opens a section whose sub-sections follow: all of them are
the target, which the model resolver (one toc_id per pointer) cannot give. The section holding
the reference is the line's ``section_id``; contents-page rows are never targets. "The next
section" and "the previous section" stay with the model resolver (``resolve.model_may_help``,
the offline backend's rule), as does a pointer the toc cannot answer.
"""

from __future__ import annotations

import pandas as pd

from docintel.parsing.refpatterns import find_references
from docintel.retrieval.refnames import contents_row
from docintel.retrieval.refunits import citing_section
from docintel.schema.document import DocTables


def relative_sections(tables: DocTables, raw_text: str, origin: tuple[int, int]) -> pd.DataFrame | None:
    """toc rows "The following sections" written at ``origin`` names: the sub-sections of the
    section holding the reference that start after it, in reading order. None when the text is
    no such pointer, or no sub-section follows (a list of the document's parts is not read)."""
    rows = find_references(raw_text or "", relative=True)
    if (
        not rows
        or rows[0]["kind"] != "section"
        or rows[0]["direction"] != "next"
        or not str(rows[0]["label"] or "").lower().endswith("s")
    ):
        return None
    toc = tables.toc_df
    if toc.empty or "section_id" not in tables.line_df:
        return None
    sid = citing_section(tables, origin)
    kids = toc[(toc["parent_id"] == sid) & toc["page_start"].notna() & toc["line_start"].notna()]
    if sid is None or kids.empty:
        return None
    kids = kids[[not contents_row(tables, r) for r in kids.itertuples(index=False)]]
    start = kids["page_start"].astype(int) * 10**6 + kids["line_start"].astype(int)
    kids = kids.assign(_at=start.to_numpy()).sort_values("_at", kind="stable")
    hit = kids[kids["_at"].to_numpy() > origin[0] * 10**6 + origin[1]]
    return hit.drop(columns="_at") if len(hit) else None
