"""``answer_completeness`` earned, not asserted: the checks behind a final "complete".

An answer keeps "complete" only when it cites the evidence it states, every reference the
loop resolved contributed evidence beyond its heading (or, for a container such as "the
Appendix", a pointer written beside it did: "Tables 14 and 15 in the Appendix"), and no
reference is left pending or unresolved. Otherwise it becomes "partial" with one :class:`PartialReason` per failed check,
so the user (``ask`` prints them) and a caller (``ask --json``: ``completeness_reasons``)
read why. Deterministic, from the answer, the evidence and the resolutions alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from docintel.schema.answer import ReferenceAwareAnswer
from docintel.schema.evidence import Passage
from docintel.schema.kinds import HEADING_ROLES
from docintel.schema.loop import PartialReason, Resolution

#: Words of an answer that state something; below this the answer claims nothing to cite
#: (a "not found" sentence is typed ``not_found`` and never checked).
MIN_CLAIM_WORDS = 4


def _cited_keys(answer: ReferenceAwareAnswer) -> set[tuple[int, int]]:
    return {(c.page, ln) for c in answer.citations for ln in range(c.line_start, c.line_end + 1)}


def _body_keys(passages: Sequence[Passage]) -> set[tuple[int, int]]:
    """Lines of the passages that are more than a heading (body, table rows, captions ...)."""
    return {(ln.page, ln.line) for p in passages for ln in p.lines if ln.role not in HEADING_ROLES}


def _ends_open(passages: Sequence[Passage]) -> bool:
    """The target's last body line announces what follows ("... where one of the following
    grounds applies:"), so the region the tables gave stops before its own content."""
    body = [ln for p in passages for ln in p.lines if ln.role not in HEADING_ROLES]
    if not body:
        return False
    last = max(body, key=lambda ln: (ln.page, ln.line))
    return str(last.text).rstrip().endswith(":")


#: Lines around a container pointer ("Appendix D provides the tables below:") within which the
#: pointers written next to it ("Table D-1 ...", "Tables 14 and 15 in the Appendix") say which
#: part of the container was meant.
NEIGHBOUR_LINES = 3


def _answered_by_neighbours(res: Resolution, resolutions: Sequence[Resolution]) -> bool:
    """A target that gave only its heading (a container: an appendix, a chapter) is answered
    when a pointer written beside it (same page, within :data:`NEIGHBOUR_LINES` lines) was
    followed to a target with body lines: the named part stands for its container."""
    page, line = res.ref.origin_page, res.ref.origin_line
    return any(
        other is not res
        and other.status == "resolved"
        and other.ref.raw_text != res.ref.raw_text
        and other.ref.origin_page == page
        and abs(other.ref.origin_line - line) <= NEIGHBOUR_LINES
        and _body_keys(other.passages)
        for other in resolutions
    )


def completeness_reasons(
    answer: ReferenceAwareAnswer,
    resolutions: Sequence[Resolution],
    *,
    unresolved: Sequence = (),
) -> list[PartialReason]:
    """Why ``answer`` is not complete, one reason per failed check (empty: it earned it)."""
    if answer.answer_completeness == "not_found":
        return []
    out: list[PartialReason] = []
    if len(answer.answer.split()) >= MIN_CLAIM_WORDS and not answer.citations:
        out.append(PartialReason(code="uncited", detail="the answer cites no evidence line"))
    cited = _cited_keys(answer)
    for res in resolutions:
        if res.status != "resolved":
            continue
        body = _body_keys(res.passages)
        label = f"'{res.ref.raw_text}' -> {res.target}"
        if not body and _answered_by_neighbours(res, resolutions):
            continue
        if not body:
            out.append(PartialReason(code="target_heading_only", reference=res.ref.raw_text,
                                     detail=f"{label} gave only its heading"))  # fmt: skip
        elif cited and not body & cited:
            out.append(PartialReason(code="target_not_cited", reference=res.ref.raw_text,
                                     detail=f"{label}: no line of the target is cited"))  # fmt: skip
        elif not res.cut and _ends_open(res.passages):  # a budget's window ends anywhere (said as cut)
            out.append(PartialReason(code="target_ends_open", reference=res.ref.raw_text,
                                     detail=f"{label} stops on a line that announces more (':')"))  # fmt: skip
    for ref in answer.pending_references:
        out.append(PartialReason(code="reference_pending", reference=ref.raw_text,
                                 detail=f"'{ref.raw_text}' (page {ref.origin_page}) not followed"))  # fmt: skip
    pending = {r.raw_text for r in answer.pending_references}
    for u in unresolved:
        if u.raw_text not in pending:
            out.append(PartialReason(code="reference_unresolved", reference=u.raw_text,
                                     detail=f"'{u.raw_text}': {u.reason}"))  # fmt: skip
    return out


def earn(
    answer: ReferenceAwareAnswer,
    followed: Sequence[Resolution],
    unresolved: Sequence,
    reasons: list[PartialReason],
) -> tuple[ReferenceAwareAnswer, list[PartialReason], list[str]]:
    """The final answer with its completeness earned: what the pass-2 budget cut from a
    followed target named in the text (and a warning), "partial" when any check fails (the
    loop's own ``reasons`` included). Returns the answer, its reasons (empty unless partial)
    and the warnings to add."""
    warnings: list[str] = []
    cut = [c for r in followed for c in r.cut]
    if cut:
        warnings.append("cut by the pass-2 budget: " + "; ".join(cut))
        from docintel.generation.offline.compose import BUDGET_NOTE, fit  # its notes stay whole

        text = answer.answer.rstrip() + "\n" + BUDGET_NOTE + "; ".join(cut) + "."
        answer = answer.model_copy(update={"answer": fit(text)})
    seen = {(r.code, r.reference) for r in reasons if r.reference}
    reasons = [
        *reasons,
        *(
            r
            for r in completeness_reasons(answer, followed, unresolved=unresolved)
            if not (r.reference and (r.code, r.reference) in seen)  # a named region said it first
        ),
    ]
    once: dict[tuple, PartialReason] = {}  # a pointer repeated on many lines is one reason
    for r in reasons:
        once.setdefault((r.code, r.reference, r.detail if r.reference is None else ""), r)
    reasons = list(once.values())
    if reasons and answer.answer_completeness == "complete":
        answer = answer.model_copy(update={"answer_completeness": "partial"})
    return answer, (reasons if answer.answer_completeness == "partial" else []), warnings


__all__ = ["MIN_CLAIM_WORDS", "completeness_reasons", "earn"]
