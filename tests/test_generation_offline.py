"""The offline backend on hand-built evidence: the two-pass running example, tables, external
documents, conditions, not-found; plus the scripted fake and the registry."""

from __future__ import annotations

import pytest

from docintel.errors import UsageError
from docintel.generation.backends.fakes import FakeBackend
from docintel.generation.base import get_backend
from docintel.generation.offline import OfflineBackend
from docintel.generation.validator import generate_checked, validate_answer
from docintel.schema.answer import Citation, ReferenceAwareAnswer
from docintel.schema.evidence import EvidenceLine, ParsedQuestion, Passage


def passage(page: int, first: int, texts: list[str], **kw) -> Passage:
    roles = kw.pop("roles", {})
    lines = [
        EvidenceLine(page=page, line=first + i, text=t, role=roles.get(i, "body"))
        for i, t in enumerate(texts)
    ]
    return Passage(
        doc_id="d1", page=page, line_start=first, line_end=first + len(texts) - 1, lines=lines, **kw
    )


PAGE6 = passage(
    6,
    20,
    [
        "3.5",
        "Positional Encoding",
        "Since our model contains no recurrence and no convolution, in order for the model to make use of the",
        "order of the sequence, we must inject some information about the relative or absolute position of the",
        "tokens in the sequence. There are many choices of positional encodings,",
        "learned and fixed [9].",
        "We also experimented with using learned positional embeddings [9] instead, and found that the two",
        "versions produced nearly identical results (see Table 3 row (E)). We chose the sinusoidal version",
        "because it may allow the model to extrapo-",
        "late to sequence lengths longer than the ones encountered during training.",
        "4",
        "Why Self-Attention",
        "In this section we compare various aspects of self-attention layers to the recurrent layers.",
    ],
    roles={0: "heading", 1: "heading", 10: "heading", 11: "heading"},
)
TABLE3 = Passage(
    doc_id="d1",
    page=9,
    line_start=1,
    line_end=38,
    lines=[
        EvidenceLine(
            page=9, line=1, text="Table 3: Variations on the Transformer architecture.", role="caption"
        ),
        EvidenceLine(
            page=9, line=5, text="N dmodel dff h dk dv Pdrop ϵls train steps PPL BLEU params", role="table"
        ),
        EvidenceLine(
            page=9, line=38, text="(E) positional embedding instead of sinusoids 4.92 25.7", role="table"
        ),
    ],
    retrieved_via="reference",
    referenced_from=(6, 27),
    reference_text="Table 3 row (E)",
    note="pulled in because of 'Table 3 row (E)' on page 6, line 27 (table row selection)",
)
Q = ParsedQuestion(
    text="Do learned positional embeddings give similar results to sinusoidal ones?",
    keywords=["learned", "positional", "embeddings", "sinusoidal", "results"],
)


def offline() -> OfflineBackend:
    return get_backend("offline")  # type: ignore[return-value]


def assert_citations_valid(answer: ReferenceAwareAnswer, passages: list[Passage]) -> None:
    _, problems = validate_answer(answer, passages)
    assert problems == []
    assert answer.citations


def test_pass1_flags_the_table_reference_and_quotes_verbatim():
    b = offline()
    ans = answer_of(b, Q, [PAGE6], pass_no=1, instructions=[])
    assert ans.answer_completeness == "references_unresolved"
    assert [(r.raw_text, r.ref_type, r.origin_page, r.origin_line) for r in ans.pending_references] == [
        ("Table 3 row (E)", "table", 6, 27)
    ]
    # '[9]' is a bibliography pointer and the question is not about sources: not worth a pass.
    assert "nearly identical results" in ans.answer and "extrapolate" in ans.answer
    assert_citations_valid(ans, [PAGE6])
    lines = {ln.text for ln in PAGE6.lines}
    assert all(c.quote in lines for c in ans.citations)
    info = b.generate(Q, [PAGE6], pass_no=1, instructions=[]).info
    assert info.details["windows"][0]["hits"]  # the scoring is reported, with the answer


def test_pass2_uses_the_table_row_and_stops_flagging():
    b = offline()
    ans = answer_of(b, Q, [PAGE6, TABLE3], pass_no=2, instructions=[])
    assert ans.answer_completeness == "complete"
    assert ans.pending_references == []
    assert "4.92" in ans.answer and "25.7" in ans.answer and "extrapolate" in ans.answer
    ref = [c for c in ans.citations if c.retrieved_via == "reference"]
    assert ref and ref[0].page == 9 and ref[0].line_start == 38
    assert ref[0].referenced_from == (6, 27) and ref[0].reference_text == "Table 3 row (E)"
    assert_citations_valid(ans, [PAGE6, TABLE3])


def test_aligned_table_row_is_shown_as_column_value_pairs():
    table = passage(
        4,
        10,
        [
            "Table 2: Results by model.",
            "Model | BLEU | Cost",
            "(A) | 28.4 | 2.3 · 10^19",
            "(B) | 27.3 | 3.3 · 10^18",
        ],
        roles={0: "caption", 1: "table", 2: "table", 3: "table"},
        retrieved_via="reference",
        referenced_from=(3, 5),
        reference_text="Table 2 row (B)",
    )
    primary = passage(
        3, 1, ["The small model scores well on BLEU at a fraction of the cost (see Table 2 row (B))."]
    )
    q = ParsedQuestion(
        text="What BLEU does the small model reach and at what cost?", keywords=["bleu", "small", "cost"]
    )
    ans = answer_of(offline(), q, [primary, table], pass_no=2, instructions=[])
    assert "Model: (B), BLEU: 27.3, Cost: 3.3 · 10^18" in ans.answer
    assert "28.4" not in ans.answer  # only the selected row
    assert ans.answer_completeness == "complete"


def test_external_documents_are_named_not_pending():
    p = passage(
        13,
        1,
        [
            "3.3 The Random Value",
            "The random value rv shall be generated using an approved random bit generator [SP 800-90].",
            "The wiring does not meet the separation criteria of 14 CFR 25.1707 for this design.",
        ],
        roles={0: "heading"},
    )
    q = ParsedQuestion(
        text="How must the random value rv be generated?", keywords=["random", "value", "rv", "generated"]
    )
    ans = answer_of(offline(), q, [p], pass_no=1, instructions=[])
    names = [e.name for e in ans.external_references]
    assert "SP 800-90" in names
    assert all("800-90" not in r.raw_text and "CFR" not in r.raw_text for r in ans.pending_references)
    assert "named, not fetched" in ans.answer and "SP 800-90" in ans.answer
    assert ans.answer_completeness == "complete"
    # A question about the source also asks for the bracketed id's entry in the reference list.
    q2 = ParsedQuestion(
        text="Which publication specifies the random bit generator for rv?",
        keywords=["random", "bit", "generator", "rv"],
    )
    ans2 = answer_of(offline(), q2, [p], pass_no=1, instructions=[])
    assert [(r.raw_text, r.ref_type) for r in ans2.pending_references] == [("[SP 800-90]", "bib")]


def test_name_external_instruction_widens_the_search_to_the_whole_passage():
    p = passage(
        2,
        1,
        [
            "Operators must revise the checklist before further flight.",
            "Unrelated filler line one.",
            "Unrelated filler line two.",
            "Unrelated filler line three.",
            "Guidance on wiring is in AC 25.1701-1 for reference.",
        ],
    )
    q = ParsedQuestion(text="What must operators revise?", keywords=["operators", "revise", "checklist"])
    assert answer_of(offline(), q, [p], pass_no=1, instructions=[]).external_references == []
    ans = answer_of(offline(), q, [p], pass_no=1, instructions=["name_external"])
    assert [e.name for e in ans.external_references] == ["AC 25.1701-1"]


def test_conditions_are_listed_and_stated():
    p = passage(
        14,
        3,
        [
            "(m) Operational readiness flight. The exemption from paragraph (k) applies only if the operator has",
            "installed the software identified in this AD before the flight.",
        ],
    )
    q = ParsedQuestion(
        text="When does the exemption apply for the readiness flight?",
        keywords=["exemption", "readiness", "flight"],
    )
    ans = answer_of(offline(), q, [p], pass_no=1, instructions=["state_conditions"])
    assert ans.conditions and ans.conditions[0].startswith(
        "applies only if the operator has installed the software"
    )
    assert "Condition: applies only if" in ans.answer
    assert [r.raw_text for r in ans.pending_references] == ["paragraph (k)"]


def test_definition_passage_on_pass2_resolves_the_pointer():
    primary = passage(
        11, 4, ["Each message bit is combined with rv using the operation defined in Section 1.5."]
    )
    definition = passage(
        9,
        2,
        ["1.5 Symbols", "⊕ Bit-wise exclusive-or. For example, 01101 ⊕ 11010 = 10111."],
        roles={0: "heading"},
        retrieved_via="definition",
        referenced_from=(11, 4),
        reference_text="defined in Section 1.5",
    )
    q = ParsedQuestion(
        text="What operation combines the message bits with rv?",
        keywords=["operation", "message", "bits", "rv"],
    )
    b = offline()
    first = answer_of(b, q, [primary], pass_no=1, instructions=[])
    assert [(r.ref_type, r.origin_line) for r in first.pending_references] == [("definition", 4)]
    second = answer_of(b, q, [primary, definition], pass_no=2, instructions=[])
    assert second.answer_completeness == "complete" and "01101 ⊕ 11010 = 10111" in second.answer
    assert any(c.retrieved_via == "definition" for c in second.citations)


def test_not_found_on_unrelated_evidence():
    p = passage(1, 1, ["The committee met on Tuesday to discuss the budget.", "Minutes were approved."])
    q = ParsedQuestion(text="What is the premium for water damage?", keywords=["premium", "water", "damage"])
    ans = answer_of(offline(), q, [p], pass_no=1, instructions=[])
    assert ans.answer_completeness == "not_found"
    assert ans.citations == [] and ans.pending_references == []
    assert "does not answer" in ans.answer


def test_deterministic():
    a = answer_of(offline(), Q, [PAGE6, TABLE3], pass_no=2, instructions=[])
    b = answer_of(offline(), Q, [PAGE6, TABLE3], pass_no=2, instructions=[])
    assert a.model_dump() == b.model_dump()


def test_offline_resolve_reference_only_when_sure():
    sections = [
        {"toc_id": "s7", "title": "Flightcrew Training", "page_start": 5},
        {"toc_id": "s8", "title": "Costs of Compliance", "page_start": 6},
        {"toc_id": "3.2", "title": "Attention", "page_start": 3},
    ]
    b = offline()
    assert b.resolve_reference("See Flightcrew Training section", "", sections) == "s7"
    assert b.resolve_reference("as described in section 3.2", "", sections) == "3.2"
    assert b.resolve_reference("the previous section", "", sections) is None
    assert b.describe()["name"] == "offline"


def test_fake_backend_scripts_answers_and_records_calls():
    scripted = ReferenceAwareAnswer(
        answer="nearly identical",
        citations=[Citation(page=6, line_start=27, line_end=27, quote="nearly identical results")],
        answer_completeness="complete",
    )
    fake = get_backend(
        "fake", answers=[scripted, lambda q, ps, n, ins: scripted.model_copy(update={"answer": f"pass {n}"})]
    )
    assert isinstance(fake, FakeBackend)
    a1 = answer_of(fake, Q, [PAGE6], pass_no=1, instructions=[])
    a2 = answer_of(fake, Q, [PAGE6, TABLE3], pass_no=2, instructions=["state_conditions"])
    assert a1.answer == "nearly identical" and a2.answer == "pass 2"
    assert [c.pass_no for c in fake.calls] == [1, 2] and fake.calls[1].instructions == ["state_conditions"]
    assert a1.citations[0].doc_id == "d1"  # filled by the validator
    with pytest.raises(UsageError, match="no scripted answer"):
        answer_of(fake, Q, [PAGE6], pass_no=3, instructions=[])


def test_registry_lists_known_backends_on_unknown_name():
    with pytest.raises(UsageError, match="fake, local, offline, openai"):
        get_backend("gpt-99")


def answer_of(backend, question, passages, **kw):
    """The answer as the loop sees it: generated, then validated once."""
    return generate_checked(backend, question, passages, **kw).answer


def test_a_pointer_in_the_pulled_in_text_is_named_as_the_next_hop():
    # pass 2: the pulled-in section points on ("defined in Section 1.5"); the answer names it
    # apart from the first hop's own pointers, without "the complete answer may be there"
    target = passage(
        8,
        1,
        [
            "3.2 Message Randomization",
            "The message is randomized with the exclusive-or operation defined in Section 1.5.",
        ],
        roles={0: "heading"},
        retrieved_via="reference",
        referenced_from=(3, 1),
        reference_text="Section 3.2",
    )
    primary = passage(3, 1, ["The message is randomized as described in Section 3.2."])
    q = ParsedQuestion(text="How is the message randomized?", keywords=["message", "randomized"])
    ans = answer_of(offline(), q, [primary, target], pass_no=2, instructions=[])
    assert "Section 1.5" in {r.raw_text.replace("defined in ", "") for r in ans.pending_references}
    assert "Further pointers in the pulled-in text, not followed: " in ans.answer
    assert "the complete answer may be there" not in ans.answer
