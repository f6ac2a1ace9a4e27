"""Pending reference -> target region, from the tables alone; externals flagged.

``resolve_in_tables`` turns one :class:`PendingReference` into a :class:`Resolution`
that names the target (a toc section, a registry object, a printed page, a
bibliography entry) and carries the :class:`Passage` objects pass 2 adds,
narrowed by the reference's sub-selector (``row (E)`` of Table 3 keeps the
table's header so the numbers keep their meaning). When the tables cannot tell ("the
previous section"), ``model_brief`` / ``section_resolution`` are what the composer
(``decide.resolve_pending``) gives a backend and makes of its pick: this brick never calls one.
"""

from __future__ import annotations

import re

import pandas as pd

from docintel import refscan
from docintel.retrieval.lookup import appendix_sections, find_objects, find_page, find_sections
from docintel.retrieval.targets import (
    object_passages,
    page_passages,
    section_passages,
)
from docintel.schema.answer import PendingReference
from docintel.schema.document import DocTables
from docintel.schema.evidence import ParsedQuestion
from docintel.schema.kinds import OBJECT_REF_TYPES
from docintel.schema.loop import Resolution

_RELATIVE = re.compile(
    r"\b(previous|preceding|prior|foregoing|above|earlier|next|following|below|later|aforementioned)\b", re.I
)
_PARA_RANGE = re.compile(r"\(([a-z]{1,2}|\d{1,3})\)\s*(?:through|to|-|–)\s*\(([a-z]{1,2}|\d{1,3})\)", re.I)


def _found(ref, method, ref_type, target, sub, passages, reason) -> Resolution:
    """A resolved reference: its target, how it was found, and the pass-2 passages."""
    return Resolution(
        ref,
        "resolved",
        method,
        ref_type,
        target=target,
        sub_selector=sub,
        target_pages=sorted({p.page for p in passages}),
        reason=reason,
        passages=passages,
    )


def classify(raw_text: str, fallback_type: str = "unknown") -> list[tuple[str, str | None, str | None]]:
    """Every (ref_type, target, sub_selector) reading of ``raw_text``, best first.

    Uses the reference grammar; a raw text such as "Figure 10 to paragraph (i)" yields both
    the figure and the paragraph, so resolution can fall back from one to the other.
    """
    readings: list[tuple[str, str | None, str | None]] = []
    got = refscan.classify(raw_text)
    if got and got[0] not in (None, "unknown"):
        readings.append(tuple(got))
    for ref_type, target, sub in refscan.readings(raw_text):
        reading = (ref_type, _str_or_none(target), _str_or_none(sub))
        if reading not in readings:
            readings.append(reading)
    if not readings:
        readings.append((fallback_type, None, None))
    return readings


def _str_or_none(value) -> str | None:
    return value if isinstance(value, str) and value else None


def _paragraph_range(raw_text: str) -> list[str]:
    m = _PARA_RANGE.search(raw_text)
    if not m:
        return []
    a, b = m.group(1).lower(), m.group(2).lower()
    if a.isdigit() and b.isdigit():
        return [f"({i})" for i in range(int(a), int(b) + 1)][:26]
    if len(a) == 1 and len(b) == 1 and a <= b:
        return [f"({chr(c)})" for c in range(ord(a), ord(b) + 1)]
    return [f"({a})", f"({b})"]


def resolve_in_tables(
    ref: PendingReference,
    tables: DocTables,
    *,
    question: ParsedQuestion,
    max_lines: int = 40,
) -> Resolution:
    """Resolve one pending reference against the tables alone (deterministic): a condition is
    stated, an external document named, a section / object / page found, or unresolved with
    the reason. ``decide.resolve_pending`` may then ask a model (:func:`model_may_help`)."""
    if ref.ref_type == "condition":
        return Resolution(
            ref,
            "condition",
            "condition",
            "condition",
            reason="conditions are stated in the answer, not resolved",
        )
    ctx = {"ref": ref, "question": question, "max_lines": max_lines}
    readings = classify(ref.raw_text, ref.ref_type)
    for ref_type, target, sub in readings:
        if ref_type == "external":
            return Resolution(
                ref,
                "external",
                "external",
                "external",
                target=target or ref.raw_text,
                reason="points outside this document: named, not fetched",
            )
        res = _resolve_one(tables, ref_type, target, sub, ctx)
        if res is not None:
            return res
    ref_type = readings[0][0]
    why = "no matching section, object or page in this document"
    if readings[0][1] is None and ref_type not in ("appendix", "annex"):
        why = "the reference names no number the tables can match"
    return Resolution(ref, "unresolved", "none", ref_type, target=readings[0][1], reason=why)


def model_may_help(res: Resolution) -> bool:
    """Whether a model may find what the tables did not: a relative phrasing ("the previous
    section") or a section-like reference without a number the tables match."""
    return res.status == "unresolved" and bool(
        _RELATIVE.search(res.ref.raw_text) or res.ref_type in ("section", "unknown")
    )


def _resolve_one(
    tables: DocTables, ref_type: str, target: str | None, sub: str | None, ctx
) -> Resolution | None:
    ref: PendingReference = ctx["ref"]
    q, max_lines = ctx["question"], ctx["max_lines"]
    note = f"pulled in because of '{ref.raw_text}' on page {ref.origin_page}, line {ref.origin_line}"
    via = "definition" if ref_type == "definition" else "reference"
    common = {"ref": ref, "note": note, "retrieved_via": via}

    if ref_type in ("section", "clause", "definition"):
        ids = _paragraph_range(ref.raw_text) or [target]
        secs = pd.concat([find_sections(tables, t) for t in ids if t]) if any(ids) else None
        if secs is None or secs.empty:
            return None
        passages = section_passages(tables, secs, q, sub_selector=sub, max_lines=max_lines, **common)
        target = ",".join(str(t) for t in ids)
        return _found(ref, "toc_df", ref_type, target, sub, passages, f"toc_df: {len(secs)} section(s)")

    if ref_type in OBJECT_REF_TYPES:
        objs = find_objects(tables, ref_type, target)
        if not objs.empty:
            obj = objs.iloc[0]
            passages = object_passages(tables, obj, q, sub_selector=sub, max_lines=max_lines, **common)
            why = f"object_registry: {obj['label']} on page {obj['page']}"
            return _found(ref, "object_registry", ref_type, obj["object_key"], sub, passages, why)
        if ref_type in ("appendix", "annex"):
            secs = appendix_sections(tables)
            if target:
                secs = secs[
                    secs["title"].str.contains(rf"\b{re.escape(str(target))}\b", case=False, na=False)
                ]
            if not secs.empty:
                passages = section_passages(tables, secs, q, sub_selector=sub, max_lines=max_lines, **common)
                why = "toc_df: appendix section(s) " + ", ".join(secs["title"].head(3))
                return _found(ref, "toc_df", ref_type, str(secs.iloc[0]["toc_id"]), sub, passages, why)
        return None

    if ref_type == "page" and target:
        page, method = find_page(tables, str(target))
        if page is None:
            return None
        passages = page_passages(tables, page, q, max_lines=max_lines, **common)
        return _found(
            ref, method, "page", str(target), None, passages, f"printed page {target} is physical page {page}"
        )
    return None


def model_brief(tables: DocTables, ref: PendingReference) -> tuple[str, list[dict]] | None:
    """What a model needs to pick the section a reference points at: the lines around the
    reference, and the toc (the section the reference is written in has ``contains_origin``:
    "the previous section" is relative to it). None when the document has no toc."""
    lines = tables.line_df
    near = lines[
        (lines["page"] == ref.origin_page) & (lines["line"].between(ref.origin_line - 3, ref.origin_line + 3))
    ]
    context = "\n".join(near["text"].tolist())
    toc = tables.toc_df
    sections = toc[["toc_id", "title", "level", "parent_id", "page_start", "line_start"]].to_dict("records")
    if not sections:
        return None
    # The deepest section whose start is at or before the origin holds the reference.
    key = ref.origin_page * 10**6 + ref.origin_line
    starts = (toc["page_start"].fillna(0) * 10**6 + toc["line_start"].fillna(0)).tolist()
    before = [i for i, st in enumerate(starts) if st <= key]
    if before:
        sections[before[-1]]["contains_origin"] = True
    return context, sections


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
    return _found(ref, method, "section", str(toc_id), None, passages, reason)
