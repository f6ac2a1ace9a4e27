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
from docintel.generation.offline.compose import restate
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
#: is in the evidence. Only for two numbered labels that differ in that separator alone, when no
#: caption, contents entry or object of the document carries the variant as its own label.
SAME_AS_FOLLOWED = "its target was followed under the same label written another way"
#: Reasons reported as unresolved that leave the answer's completeness alone.
REPORTED_ONLY = (NESTED_NOT_FOLLOWED, NOT_IN_DOCUMENT, SAME_AS_FOLLOWED)
#: A numbered label: a part word and a number with at least one separator between two of its
#: digits, no space around it ("Table 3-6", "Section 2.1"); "Section 3 \u2013 6" (a spaced dash,
#: often a range), "\u00a7 1-5" (a code's own numbering), "Note 3", "the next section" are not.
#: Its number (with at least one separator between two digits).
_NUMBER = r"[A-Z]?\d+(?:[.\-\u2010-\u2014]\d+)+[a-z]?"
_NUMBERED = re.compile(r"[A-Za-z]+\.?\s*" + _NUMBER, re.I)
#: The separator between two digits of a numbered label.
_NUMBER_JOIN = re.compile(r"(?<=\d)[.\-\u2010-\u2014](?=\d)")
#: Line roles that carry a document's own labels (a heading, a caption, a contents entry).
_OWN_ROLES = ("heading", "title", "caption", "toc_entry")
#: Words of captioned objects, numbered apart from the sections (singular, no stop).
_OBJECT_WORDS = frozenset(
    ("table", "figure", "fig", "exhibit", "chart", "box", "equation", "eq", "listing", "plate", "map")
)


def _plain(text: str) -> str:
    return " ".join(str(text).lower().split()).rstrip(".,;:")


def same_label(text: str) -> str:
    """A pointer's label as compared with another's: case, spacing, a trailing stop and the
    separator between its numbers aside."""
    return _NUMBER_JOIN.sub(".", _plain(text))


def written_otherwise(text: str, followed: set[str]) -> bool:
    """``text`` is a numbered label that a followed label (``followed``: their :func:`_plain`
    forms) writes with another separator between its numbers, and with nothing else changed."""
    plain = _plain(text)
    if plain in followed or not _NUMBERED.fullmatch(plain):
        return False
    key = same_label(plain)
    return any(f != plain and _NUMBERED.fullmatch(f) and same_label(f) == key for f in followed)


def carried(tables, text: str) -> bool:
    """The document carries ``text`` as its own label: an object's label, a heading, caption or
    contents line opening with it, a contents row numbered with its number (then the variant is
    a distinct part, not the followed one written another way). True when the document is unknown."""
    if tables is None:
        return True
    plain = _plain(text)
    number = re.search(_NUMBER + "$", plain, re.I)
    objs = getattr(tables, "object_registry", None)
    labels: set[str] = set()
    if objs is not None and not objs.empty and "label" in objs:
        labels = {_plain(lbl) for lbl in objs["label"].dropna().astype(str)}
        if plain in labels:
            return True
    # a table's or figure's number is no section's: "Table 3.6" and a Section 3.6 are two parts
    word = plain.split()[0] if plain.split() else ""
    objects = word.rstrip("s.") in _OBJECT_WORDS or any(lbl.split()[:1] == [word] for lbl in labels)
    toc = getattr(tables, "toc_df", None)
    if not objects and number is not None and toc is not None and not toc.empty and "number" in toc:
        numbers = toc["number"].dropna().astype(str).str.strip().str.rstrip(".").str.lower()
        if (numbers == number.group(0)).any():
            return True
    ldf = getattr(tables, "line_df", None)
    if ldf is not None and not ldf.empty:
        own = ldf[ldf["role"].isin(_OWN_ROLES)]["text"].astype(str)
        pattern = re.escape(plain).replace("\\ ", r"\s*") + r"(?![\w.\-]*\d)"
        if own.str.lower().str.strip().str.match(pattern).any():
            return True
    return False


def finish(
    answer: ReferenceAwareAnswer,
    unresolved: list[UnresolvedReference],
    warnings: list[str],
    passes: list[PassRecord],
    nested: Callable[[PendingReference], bool],
    tables=None,
) -> ReferenceAwareAnswer:
    """The answer as the user gets it: external references named in its text, and every
    reference still pending reported unresolved (the answer is then partial). ``unresolved``,
    ``warnings`` and the last pass's decision are updated in place. ``tables`` (the document)
    tells a label written another way from a distinct part: without it no pointer counts as
    :data:`SAME_AS_FOLLOWED`."""
    names = [e.name for e in answer.external_references if e.name.lower() not in answer.answer.lower()]
    if names:  # externals are always named in the answer text, whatever the backend wrote
        text = answer.answer.rstrip() + " External reference(s), not fetched: " + "; ".join(names) + "."
        answer = answer.model_copy(update={"answer": text})
    if answer.answer_completeness == "references_unresolved" or unresolved:
        followed = {_plain(e.reference_text) for p in passes for e in p.evidence if e.reference_text}

        def same(raw: str) -> bool:
            return written_otherwise(raw, followed) and not carried(tables, raw)

        for i, u in enumerate(unresolved):
            if u.reason not in REPORTED_ONLY and same(u.raw_text):
                unresolved[i] = u.model_copy(update={"reason": SAME_AS_FOLLOWED})
        keep: list[PendingReference] = []
        for ref in answer.pending_references:
            if same(ref.raw_text):
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
        read_as = [u for u in unresolved if u.reason == SAME_AS_FOLLOWED]
        if read_as:
            warnings.append(
                "not followed, read as a followed pointer written with another separator: "
                + "; ".join(f"{u.raw_text} (page {u.origin_page})" for u in read_as)
            )
            answer = answer.model_copy(update={"answer": restate(answer.answer, read_as)})
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
    "SAME_AS_FOLLOWED",
    "earn_completeness",
    "finish",
    "same_label",
    "written_otherwise",
]
