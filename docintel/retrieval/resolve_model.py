"""What a backend is given to pick a reference's section, and what is made of its pick.

When the tables cannot tell ("the previous section", a section reference without a number the
toc matches: :func:`model_may_help`), the composer (``decide.resolve_pending`` through
``pointerfacts.resolve_with``) hands a backend :func:`model_brief` and turns the toc id it
picks into a resolution with :func:`section_resolution`. This brick never calls a backend.
"""

from __future__ import annotations

import re

import pandas as pd

from docintel.retrieval.framememo import per_frame
from docintel.retrieval.lookup import find_sections
from docintel.retrieval.resolve_build import found
from docintel.retrieval.targets import section_passages
from docintel.schema.answer import PendingReference
from docintel.schema.document import DocTables
from docintel.schema.evidence import ParsedQuestion
from docintel.schema.loop import Resolution

_RELATIVE = re.compile(
    r"\b(previous|preceding|prior|foregoing|above|earlier|next|following|below|later|aforementioned)\b", re.I
)


def model_may_help(res: Resolution) -> bool:
    """Whether a model may find what the tables did not: a relative phrasing ("the previous
    section") or a section-like reference without a number the tables match."""
    return res.status == "unresolved" and bool(
        _RELATIVE.search(res.ref.raw_text) or res.ref_type in ("section", "unknown")
    )


def model_brief(tables: DocTables, ref: PendingReference) -> tuple[str, list[dict]] | None:
    """What a model needs to pick the section a reference points at: the lines around the
    reference, and the toc (the section the reference is written in has ``contains_origin``:
    "the previous section" is relative to it). None when the document has no toc."""
    lines = tables.line_df
    near = lines[
        (lines["page"] == ref.origin_page) & (lines["line"].between(ref.origin_line - 3, ref.origin_line + 3))
    ]
    context = "\n".join(near["text"].tolist())
    records, starts = _toc_records(tables.toc_df)
    if not records:
        return None
    sections = [dict(r) for r in records]  # the caller's own: one of them is marked below
    # The deepest section whose start is at or before the origin holds the reference.
    key = ref.origin_page * 10**6 + ref.origin_line
    before = [i for i, st in enumerate(starts) if st <= key]
    if before:
        sections[before[-1]]["contains_origin"] = True
    return context, sections


#: id(toc_df) -> (toc_df, (its records, each section's start key)): built once per toc object (a
#: 600-page toc's ``to_dict`` was ~15 ms per brief, asked several times an ask).
_RECORDS: dict[int, tuple[pd.DataFrame, tuple[list[dict], list]]] = {}


def _toc_records(toc: pd.DataFrame) -> tuple[list[dict], list]:

    def build() -> tuple[list[dict], list]:
        records = toc[["toc_id", "title", "level", "parent_id", "page_start", "line_start"]].to_dict(
            "records"
        )
        return records, (toc["page_start"].fillna(0) * 10**6 + toc["line_start"].fillna(0)).tolist()

    return per_frame(_RECORDS, toc, build)


def section_resolution(
    tables: DocTables,
    ref: PendingReference,
    toc_id: str,
    *,
    question: ParsedQuestion,
    max_lines: int,
    method: str,
    reason: str,
) -> Resolution | None:
    """The section ``toc_id`` (picked by a model or a rule) as the target of ``ref``, with its
    best lines; None when the toc has no such section."""
    secs = find_sections(tables, toc_id)
    if secs.empty:
        return None
    note = f"pulled in because of '{ref.raw_text}' on page {ref.origin_page}, line {ref.origin_line}"
    passages = section_passages(
        tables, secs, question, sub_selector=None, max_lines=max_lines, ref=ref, note=note,
        retrieved_via="reference",
    )  # fmt: skip
    return found(ref, method, "section", str(toc_id), None, passages, reason)
