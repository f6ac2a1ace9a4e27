"""Regions a question names itself: "What does Section 5(A) say?", "Summarize Tab 4 row (E)",
"What does paragraph (a)(5) of § 164.308 require?", "Que dit l'article 12 ?".

The question is read with the same reference grammar as the document's lines, and each
internal reference it holds is resolved like a pending reference of the loop (a provision
with its sub-paragraphs, a table's header and selected rows, a page by its printed label).
A region that resolves is the question's first hop: its words ("say", "require") would rank
the pages that happen to repeat them, not the provision the user pointed at. A reference
that does not resolve ("the Section 22 development set" of a paper with no section 22)
leaves the question to keyword retrieval, as before. A region found at a heading line that
opens a toc section (an "Article 17" heading whose toc row carries no number) is that section,
not only the heading's page.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from docintel.refscan import FoundRef, references_in
from docintel.retrieval.resolve import resolve_in_tables
from docintel.retrieval.targets import section_lines, section_passages
from docintel.schema.answer import PendingReference
from docintel.schema.document import DocTables
from docintel.schema.evidence import ParsedQuestion, Passage
from docintel.schema.kinds import OFF_PAGE_REF_TYPES
from docintel.schema.loop import PartialReason, Resolution
from docintel.schema.trace import Trace

#: Regions of one question taken as its first hop, at most.
MAX_NAMED = 4
#: Reference kinds whose target is not a region of this document to read.
_NOT_REGIONS = OFF_PAGE_REF_TYPES | {"condition", "unknown"}


@dataclass(frozen=True)
class _QuestionLine:
    text: str
    page: int = 1
    line: int = 1


def named_regions(tables: DocTables, q: ParsedQuestion, *, max_lines: int = 40) -> list[Resolution]:
    """Every region of ``tables`` the question names that resolves, with its passages
    (``retrieved_via="scope"``); the unresolved ones are returned too (status "unresolved")
    so the trace can say what was tried."""
    found: list[FoundRef] = [
        r for r in references_in([_QuestionLine(q.text)]) if r.ref_type not in _NOT_REGIONS and r.target
    ]
    out: list[Resolution] = []
    for r in found[:MAX_NAMED]:
        # a question has no page: origin (1, 1) only anchors relative forms, which carry no target
        ref = PendingReference(raw_text=r.raw_text[:200], ref_type="unknown", origin_page=1, origin_line=1)
        res = resolve_in_tables(ref, tables, question=q, max_lines=max_lines)
        _whole_section(tables, q, res, max_lines)
        res.passages = [
            p.model_copy(
                update={
                    "retrieved_via": "scope",
                    "referenced_from": None,
                    "reference_text": r.raw_text,
                    "note": f"named in the question: {r.raw_text}",
                }
            )
            for p in res.passages
        ]
        out.append(res)
    return out


def _whole_section(tables: DocTables, q: ParsedQuestion, res: Resolution, max_lines: int) -> None:
    """A region resolved from its heading line alone (the heading's page, up to the next heading)
    becomes the toc section that starts at that line, when the section holds more: an article
    runs over its points "(a)" ... "(f)" and onto the next pages (in place)."""
    toc = tables.toc_df
    if res.status != "resolved" or not res.passages or toc is None or toc.empty:
        return
    first = res.passages[0]
    starts = toc[(toc["page_start"] == first.page) & (toc["line_start"] == first.line_start)]
    if starts.empty or res.method == "toc_df":
        return
    sec = starts.iloc[0]
    have = sum(len(p.lines) for p in res.passages)
    if len(section_lines(tables, sec)) <= have:
        return
    passages = section_passages(
        tables, pd.DataFrame([sec]), q, max_lines=max_lines, ref=res.ref, note=f"section '{sec['title']}'"
    )
    if passages:
        res.passages = passages
        res.reason += f"; the toc section starting there ('{sec['title']}', pages {sec['page_start']}-{sec['page_end']})"


def named_first_hop(
    tables: DocTables, q: ParsedQuestion, trace: Trace, *, max_lines: int = 40
) -> tuple[list[Passage], list[Resolution], list[str], list[PartialReason]]:
    """The regions the question names ("What does Section 5(A) say?"), whole, when they
    resolve; [] sends the question to keyword retrieval. Returns the passages, the regions that
    resolved (the ask records them as followed in pass 0), the warnings and the reasons."""
    with trace.stage("retrieval"):
        found = named_regions(tables, q, max_lines=max_lines)
    passages = [p for res in found if res.status == "resolved" for p in res.passages]
    # earned like any followed target (pass 0: named in the question)
    followed = [res for res in found if res.status == "resolved" and res.passages]
    if found:
        trace.event(
            "named_in_question",
            used=bool(passages),
            regions=[{"reference": r.ref.raw_text, "status": r.status, "target": r.target,
                      "pages": r.target_pages, "cut": r.cut, "reason": r.reason} for r in found],
        )  # fmt: skip
    warnings = [f"cut by the budget: {'; '.join(r.cut)}" for r in found if r.status == "resolved" and r.cut]
    reasons: list[PartialReason] = []
    for res in found:  # named but not found: the answer cannot be complete about it
        if res.status == "unresolved":
            detail = f"the question names {res.ref.raw_text}, which this document's tables do not hold"
            warnings.append(f"{detail}: answered from the best-matching passage")
            reasons.append(
                PartialReason(code="reference_unresolved", reference=res.ref.raw_text, detail=detail)
            )
    return passages, followed, warnings, reasons
