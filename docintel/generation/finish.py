"""The answer as the loop hands it back: externals named, pointers left over reported.

Split from ``decide.py`` (same behaviour): what stays pending after the last pass is reported
unresolved, with the reason the user reads; pointers written inside a followed target and
pointers whose label no unit of this document carries are reported without making the answer
partial; then ``completeness.earn`` checks what "complete" must earn.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from docintel.generation.completeness import earn
from docintel.schema.answer import PendingReference, ReferenceAwareAnswer, UnresolvedReference
from docintel.schema.loop import PartialReason, PassRecord, Resolution

BUDGET_EXHAUSTED = "loop budget exhausted"
#: Why a pointer inside a followed target was not followed: reported, but the answer the first
#: hop's pointers asked for is there (the target's own pointers are the next hop's business).
NESTED_NOT_FOLLOWED = "loop budget exhausted (a pointer inside a followed target)"
#: Why a pointer was not followed whose label no unit of this document carries ("§ 1316.47" in
#: part 1308, "Schedule A" on the 1040, "Art. I" in a court opinion): another instrument's
#: unit, named in a warning; it does not make the answer partial, no pass can fetch it.
NOT_IN_DOCUMENT = "no unit of this document has that label (another instrument's?)"
#: Why a pointer was not followed whose label a followed pointer names with another separator
#: between its numbers ("Table 3.6" beside the followed "Table 3-6", NIST SP 800-30): its target
#: is in the evidence.
SAME_AS_FOLLOWED = "its target was followed under the same label written another way"
#: Reasons reported as unresolved that leave the answer's completeness alone.
REPORTED_ONLY = (NESTED_NOT_FOLLOWED, NOT_IN_DOCUMENT, SAME_AS_FOLLOWED)
#: A dash or dot between two digits of a label ("3.6", "3-6", "3 \u2013 6").
_NUMBER_JOIN = re.compile(r"(?<=\d)\s*[.\-\u2010-\u2014]\s*(?=\d)")


def same_label(text: str) -> str:
    """A pointer's label as compared with another's: case, spacing, a trailing stop and the
    separator between its numbers aside."""
    return _NUMBER_JOIN.sub(".", " ".join(str(text).lower().split())).rstrip(".,;:")


def finish(
    answer: ReferenceAwareAnswer,
    unresolved: list[UnresolvedReference],
    warnings: list[str],
    passes: list[PassRecord],
    nested: Callable[[PendingReference], bool],
) -> ReferenceAwareAnswer:
    """The answer as the user gets it: external references named in its text, and every
    reference still pending reported unresolved (the answer is then partial). ``unresolved``,
    ``warnings`` and the last pass's decision are updated in place."""
    names = [e.name for e in answer.external_references if e.name.lower() not in answer.answer.lower()]
    if names:  # externals are always named in the answer text, whatever the backend wrote
        text = answer.answer.rstrip() + " External reference(s), not fetched: " + "; ".join(names) + "."
        answer = answer.model_copy(update={"answer": text})
    if answer.answer_completeness == "references_unresolved" or unresolved:
        followed = {same_label(e.reference_text) for p in passes for e in p.evidence if e.reference_text}
        for i, u in enumerate(unresolved):
            if u.reason not in REPORTED_ONLY and same_label(u.raw_text) in followed:
                unresolved[i] = u.model_copy(update={"reason": SAME_AS_FOLLOWED})
        keep: list[PendingReference] = []
        for ref in answer.pending_references:
            if same_label(ref.raw_text) in followed:
                if not any(u.raw_text == ref.raw_text for u in unresolved):
                    unresolved.append(UnresolvedReference(raw_text=ref.raw_text, ref_type=ref.ref_type,
                                                          origin_page=ref.origin_page, origin_line=ref.origin_line,
                                                          reason=SAME_AS_FOLLOWED))  # fmt: skip
                continue
            inside = nested(ref)
            if not inside:
                keep.append(ref)
            if not any(u.raw_text == ref.raw_text for u in unresolved):
                unresolved.append(
                    UnresolvedReference(
                        raw_text=ref.raw_text,
                        ref_type=ref.ref_type,
                        origin_page=ref.origin_page,
                        origin_line=ref.origin_line,
                        reason=NESTED_NOT_FOLLOWED if inside else BUDGET_EXHAUSTED,
                    )
                )
        # pointers inside the followed targets are reported (unresolved, a warning) but do not
        # make the answer partial: the pointers of the first hop were followed
        later = [u for u in unresolved if u.reason == NESTED_NOT_FOLLOWED]
        if later:
            warnings.append(
                "not followed (loop budget), found in the followed targets: "
                + "; ".join(f"{u.raw_text} (page {u.origin_page})" for u in later)
            )
        first_order = keep or any(u.reason not in REPORTED_ONLY for u in unresolved)
        earned = answer.answer_completeness in ("references_unresolved", "complete") and not first_order
        answer = answer.model_copy(
            update={"pending_references": keep, "answer_completeness": "complete" if earned else "partial"}
        )
        if earned and passes and passes[-1].decision == "give_up_partial":
            passes[-1].decision = "return_to_user"
    return answer


def earn_completeness(
    answer: ReferenceAwareAnswer,
    followed: list[Resolution],
    unresolved: list[UnresolvedReference],
    reasons: list[PartialReason],
    warnings: list[str],
) -> tuple[ReferenceAwareAnswer, list[PartialReason]]:
    """ "complete" only when earned (:func:`generation.completeness.earn`); the answer and its
    reasons; ``warnings`` gets the pointers this document has no unit for and the budget cuts."""
    elsewhere = [u for u in unresolved if u.reason == NOT_IN_DOCUMENT]
    if elsewhere:
        warnings.append(
            "not followed, no unit of this document has the label: "
            + "; ".join(f"{u.raw_text} (page {u.origin_page})" for u in elsewhere)
        )
    counted = [u for u in unresolved if u.reason not in REPORTED_ONLY]
    answer, reasons, more = earn(answer, followed, counted, reasons)
    warnings.extend(more)
    return answer, reasons


__all__ = [
    "BUDGET_EXHAUSTED",
    "NESTED_NOT_FOLLOWED",
    "NOT_IN_DOCUMENT",
    "REPORTED_ONLY",
    "earn_completeness",
    "finish",
]
