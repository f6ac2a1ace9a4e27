"""validate_answer: quotes must occur in the cited lines; fixes and drops are reported."""

from __future__ import annotations

from docintel.generation.validator import validate_answer
from docintel.schema.answer import Citation, PendingReference, ReferenceAwareAnswer
from docintel.schema.evidence import EvidenceLine, Passage

PRIMARY = Passage(
    doc_id="d1",
    page=6,
    line_start=26,
    line_end=29,
    lines=[
        EvidenceLine(
            page=6,
            line=26,
            text="We also experimented with using learned positional embeddings [9] instead, and found that the two",
        ),
        EvidenceLine(
            page=6,
            line=27,
            text="versions produced nearly identical results (see Table 3 row (E)). We chose the sinusoidal version",
        ),
        EvidenceLine(page=6, line=28, text="because it may allow the model to extrapo-"),
        EvidenceLine(
            page=6,
            line=29,
            text="late to sequence lengths longer than the ones encountered during training. We ﬁxed the rate.",
        ),
    ],
)
TABLE = Passage(
    doc_id="d1",
    page=9,
    line_start=38,
    line_end=38,
    lines=[
        EvidenceLine(
            page=9, line=38, text="(E) positional embedding instead of sinusoids 4.92 25.7", role="table"
        )
    ],
    retrieved_via="reference",
    referenced_from=(6, 27),
    reference_text="Table 3 row (E)",
)


def answer(*cits: Citation, **kw) -> ReferenceAwareAnswer:
    return ReferenceAwareAnswer(
        answer="x", citations=list(cits), answer_completeness=kw.pop("c", "complete"), **kw
    )


def test_valid_citation_passes_unchanged_except_doc_id():
    a = answer(Citation(page=6, line_start=27, line_end=27, quote="nearly identical results"))
    fixed, problems = validate_answer(a, [PRIMARY])
    assert problems == []
    assert fixed.citations[0].quote == "nearly identical results" and fixed.citations[0].doc_id == "d1"


def test_dehyphenation_nfkc_whitespace_and_case_are_normalized():
    cits = [
        Citation(
            page=6, line_start=28, line_end=29, quote="allow the model to extrapolate to sequence lengths"
        ),
        Citation(page=6, line_start=28, line_end=29, quote="the model to extrapo- late   to"),
        Citation(
            page=6, line_start=29, line_end=29, quote="we fixed the rate"
        ),  # 'ﬁ' ligature in the evidence
    ]
    fixed, problems = validate_answer(answer(*cits), [PRIMARY])
    assert problems == [] and len(fixed.citations) == 3


def test_quote_found_elsewhere_is_snapped_to_its_lines():
    a = answer(Citation(page=6, line_start=26, line_end=26, quote="sequence lengths longer than the ones"))
    fixed, problems = validate_answer(a, [PRIMARY])
    c = fixed.citations[0]
    assert (c.page, c.line_start, c.line_end) == (6, 29, 29)
    assert len(problems) == 1 and "snapped to p6 l29-29" in problems[0]


def test_quote_across_lines_on_an_unknown_page_is_snapped_to_the_smallest_span():
    a = answer(
        Citation(
            page=2, line_start=1, line_end=1, quote="We chose the sinusoidal version because it may allow"
        )
    )
    fixed, problems = validate_answer(a, [PRIMARY])
    c = fixed.citations[0]
    assert (c.page, c.line_start, c.line_end) == (6, 27, 28) and "snapped" in problems[0]


def test_invented_quote_is_dropped_and_reported():
    a = answer(
        Citation(page=6, line_start=27, line_end=27, quote="learned embeddings are clearly superior"),
        Citation(page=6, line_start=27, line_end=27, quote="nearly identical"),
    )
    fixed, problems = validate_answer(a, [PRIMARY])
    assert [c.quote for c in fixed.citations] == ["nearly identical"]
    assert len(problems) == 1 and "dropped" in problems[0]


def test_ellipsis_quote_checks_each_piece_and_empty_quote_is_filled():
    a = answer(
        Citation(
            page=6,
            line_start=26,
            line_end=27,
            quote="learned positional embeddings ... nearly identical results",
        ),
        Citation(page=6, line_start=27, line_end=27, quote=""),
    )
    fixed, problems = validate_answer(a, [PRIMARY])
    assert len(fixed.citations) == 2
    assert fixed.citations[1].quote.startswith("versions produced nearly identical")
    assert problems == ["citation 1 (p6 l27-27): empty quote; filled with the first cited line"]


def test_provenance_comes_from_the_cited_passage():
    a = answer(Citation(page=9, line_start=38, line_end=38, quote="4.92 25.7", retrieved_via="primary"))
    fixed, problems = validate_answer(a, [PRIMARY, TABLE])
    c = fixed.citations[0]
    assert (
        c.retrieved_via == "reference"
        and c.referenced_from == (6, 27)
        and c.reference_text == "Table 3 row (E)"
    )
    assert "corrected" in problems[0]


def test_completeness_is_made_consistent_with_pending_references():
    pend = PendingReference(raw_text="Table 3 row (E)", ref_type="table", origin_page=6, origin_line=27)
    cit = Citation(page=6, line_start=27, line_end=27, quote="nearly identical")
    # 'complete' while listing a pending reference -> references_unresolved
    fixed, problems = validate_answer(answer(cit, pending_references=[pend]), [PRIMARY])
    assert fixed.answer_completeness == "references_unresolved" and problems
    # On pass 2 the reference's target is in the evidence: the pending entry is dropped.
    fixed2, problems2 = validate_answer(
        answer(cit, pending_references=[pend], c="references_unresolved"), [PRIMARY, TABLE]
    )
    assert fixed2.pending_references == [] and fixed2.answer_completeness == "complete"
    assert any("already in the evidence" in p for p in problems2)


def test_pending_origin_is_snapped_to_where_the_reference_is_written():
    pend = PendingReference(raw_text="Table 3 row (E)", ref_type="table", origin_page=6, origin_line=3)
    fixed, problems = validate_answer(answer(pending_references=[pend], c="references_unresolved"), [PRIMARY])
    assert (fixed.pending_references[0].origin_page, fixed.pending_references[0].origin_line) == (6, 27)
    assert "origin moved" in problems[0]
