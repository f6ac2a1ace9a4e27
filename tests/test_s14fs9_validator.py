"""Session 14 set 9 review (fs9): a pending "Section 3(a)" whose section heading and item (a)
are both in the evidence is dropped as present; a list's "3." without (a) still keeps it."""

from __future__ import annotations

from docintel.generation.validator import validate_answer
from docintel.schema.answer import PendingReference, ReferenceAwareAnswer
from docintel.schema.evidence import EvidenceLine, Passage


def _pending_after(texts: list[tuple[str, str]], raw: str = "Section 3(a)") -> list[str]:
    lines = [EvidenceLine(page=3, line=i + 1, text=t, role=r) for i, (t, r) in enumerate(texts)]
    passages = [Passage(doc_id="d", page=3, line_start=1, line_end=len(lines), lines=lines)]
    pending = [PendingReference(raw_text=raw, ref_type="section", origin_page=5, origin_line=9)]
    answer = ReferenceAwareAnswer(
        answer=f"You must comply with {raw}.",
        pending_references=pending,
        answer_completeness="references_unresolved",
    )
    checked, _problems = validate_answer(answer, passages)
    return [r.raw_text for r in checked.pending_references]


def test_a_sub_item_under_its_section_heading_in_the_evidence_is_present():
    # CC BY 4.0's layout: the heading set in the body font, its items lettered "a."
    texts = [
        ("Section 3 \u2013 License Conditions.", "body"),
        ("Your exercise of the Licensed Rights is expressly made subject to the", "body"),
        ("a. Attribution.", "body"),
        ("1. If You Share the Licensed Material, You must:", "list_item"),
    ]
    assert _pending_after(texts) == []


def test_a_numbered_heading_and_parenthesised_chain_are_present():
    texts = [
        ("3. Definitions", "heading"),
        ("(a) Affiliate means any entity that controls", "body"),
        ("(ii) a subsidiary of the Licensee.", "body"),
    ]
    assert _pending_after(texts, "Section 3(a)(ii)") == []


def test_the_heading_without_the_item_keeps_the_pointer():
    texts = [
        ("Section 3 \u2013 License Conditions.", "body"),
        ("Your exercise of the Licensed Rights is expressly made subject to the", "body"),
        ("Section 4 \u2013 Sui Generis Database Rights.", "body"),
        ("a. for the avoidance of doubt, Section 2(a)(1) grants You", "body"),
    ]
    assert _pending_after(texts) == ["Section 3(a)"]


def test_a_body_list_item_three_is_no_section_heading():
    texts = [
        ("3. If requested by the Licensor, You must remove any of the", "body"),
        ("a. information required by Section 3(a)(1)(A) to the extent", "body"),
    ]
    assert _pending_after(texts) == ["Section 3(a)"]
