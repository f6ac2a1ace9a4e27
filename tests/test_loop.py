"""The loop itself, driven by the scripted backend (llm's MockModel habit): every branch of
``decide_next_pass`` and of triage, the loop budget, give-up-partial, externals named,
instructions emitted, validation once. Retrieval is stubbed: these tests are about deciding.

The document is built by hand (three pages) so every target's lines are known:
page 1 holds the pointers, page 2 section 2 (heading + 4 body lines), page 3 Table 3.
"""

from __future__ import annotations

import pandas as pd
import pytest

from docintel import decide
from docintel.errors import LLMOutputError
from docintel.generation.backends.fakes import FakeBackend
from docintel.generation.offline import OfflineBackend
from docintel.schema.answer import Citation, ExternalReference, PendingReference, ReferenceAwareAnswer
from docintel.schema.document import DocTables
from docintel.schema.evidence import EvidenceLine, ParsedQuestion, Passage
from docintel.schema.tables import TABLES
from docintel.schema.trace import Trace

DOC = "loopdoc"
PAGE1 = [
    ("heading", "1 Overview"),
    ("body", "The padding rule is given in Table 3 row (E)."),
    ("body", "The padding value is described in Section 2."),
    ("body", "Keys are generated as in SP 800-90 when the key is new."),
    ("body", "This applies only if the message is longer than one block."),
]
PAGE2 = [
    ("heading", "2 Padding values"),
    ("body", "The padding value is a single one bit."),
    ("body", "It is followed by as many zero bits as needed."),
    ("body", "The total length becomes a multiple of the block size."),
    ("body", "No padding is added when the length already fits."),
]
PAGE3 = [
    ("caption", "Table 3: Padding variants"),
    ("table", "(D) short messages zero"),
    ("table", "(E) long messages one then zeros"),
]
Q = ParsedQuestion(text="What is the padding rule?", keywords=["padding", "rule"])


def _tables() -> DocTables:
    lines = []
    for page, rows in ((1, PAGE1), (2, PAGE2), (3, PAGE3)):
        for i, (role, text) in enumerate(rows, start=1):
            y = 100.0 + 14 * i
            lines.append({"doc_id": DOC, "page": page, "line": i, "text": text, "role": role,
                          "x0": 72.0, "y0": y, "x1": 500.0, "y1": y + 10,
                          "object_key": "table:3" if page == 3 else None,
                          "section_id": "2" if page == 2 else "1"})  # fmt: skip
    pages = [{"doc_id": DOC, "page": p, "printed_label": str(p), "image_only": False, "n_lines": 5}
             for p in (1, 2, 3)]  # fmt: skip
    toc = [
        {"doc_id": DOC, "toc_id": "1", "number": "1", "title": "Overview", "level": 1,
         "page_start": 1, "line_start": 1, "page_end": 1, "line_end": 5, "source": "heading_detection"},
        {"doc_id": DOC, "toc_id": "2", "number": "2", "title": "Padding values", "level": 1,
         "page_start": 2, "line_start": 1, "page_end": 2, "line_end": 5, "source": "heading_detection"},
    ]  # fmt: skip
    reg = [{"doc_id": DOC, "object_key": "table:3", "object_type": "table", "object_id": "3",
            "label": "Table 3", "caption": "Padding variants", "page": 3, "line_start": 1,
            "line_end": 1, "page_end": 3, "source": "caption"}]  # fmt: skip
    frame = {"line_df": lines, "page_df": pages, "toc_df": toc, "object_registry": reg}
    built = {
        n: TABLES[n].conform(pd.DataFrame(frame[n])) if n in frame else TABLES[n].empty() for n in TABLES
    }
    return DocTables(doc_id=DOC, **built)


def passage(page: int, first: int, last: int) -> Passage:
    rows = {1: PAGE1, 2: PAGE2, 3: PAGE3}[page]
    lines = [
        EvidenceLine(page=page, line=i, text=rows[i - 1][1], role=rows[i - 1][0])
        for i in range(first, last + 1)
    ]
    return Passage(doc_id=DOC, page=page, line_start=first, line_end=last, lines=lines)


def pending(raw: str, line: int, ref_type="unknown", page: int = 1) -> PendingReference:
    return PendingReference(raw_text=raw, ref_type=ref_type, origin_page=page, origin_line=line)


def cite(page: int, line: int, quote: str) -> Citation:
    return Citation(page=page, line_start=line, line_end=line, quote=quote)


def answer(
    text="The padding rule.", completeness="complete", citations=None, **fields
) -> ReferenceAwareAnswer:
    if citations is None:
        citations = [cite(1, 2, "The padding rule is given in Table 3 row (E).")]
    return ReferenceAwareAnswer(answer=text, answer_completeness=completeness, citations=citations, **fields)


@pytest.fixture
def run(monkeypatch):
    """run(first_pass_passages, *scripted_answers, max_loops=1) -> (result, backend, trace)."""

    def _run(evidence: list[Passage], *answers, max_loops: int = 1, backend=None):
        monkeypatch.setattr(decide, "first_passages", lambda tables, q, trace, top_k: list(evidence))
        backend = backend or FakeBackend(list(answers))
        trace = Trace(question=Q.text)
        result = decide.run_loop(_tables(), Q, backend=backend, trace=trace, max_loops=max_loops)
        return result, backend, trace

    return _run


def events(trace: Trace, kind: str) -> list[dict]:
    return [e for e in trace.data["events"] if e["kind"] == kind]


# -- decide_next_pass: every branch --------------------------------------------------------


@pytest.mark.parametrize(
    ("completeness", "refs", "loop_count", "max_loops", "expected"),
    [
        ("complete", [], 0, 1, "return_to_user"),
        ("references_unresolved", ["Table 3"], 0, 1, "resolve_references"),
        ("references_unresolved", ["Table 3"], 1, 1, "give_up_partial"),  # budget spent
        ("references_unresolved", ["Table 3"], 0, 0, "give_up_partial"),  # no budget at all
        ("references_unresolved", [], 0, 1, "give_up_partial"),  # nothing to follow
        ("partial", [], 0, 1, "return_to_user"),
        ("not_found", [], 0, 1, "return_to_user"),
    ],
)
def test_decide_next_pass_routes_on_the_typed_fields(completeness, refs, loop_count, max_loops, expected):
    a = ReferenceAwareAnswer(
        answer="a", answer_completeness=completeness, pending_references=[pending(r, 2) for r in refs]
    )
    assert decide.decide_next_pass(a, loop_count, max_loops) == expected


# -- the loop ------------------------------------------------------------------------------


def test_complete_first_answer_is_returned_after_one_call(run):
    result, fake, _ = run([passage(1, 1, 5)], answer())
    assert len(fake.calls) == 1 and result.loop_count == 0
    assert [p.decision for p in result.passes] == ["return_to_user"]
    assert result.answer.answer_completeness == "complete" and not result.unresolved


def test_a_pending_reference_is_followed_and_the_target_reaches_pass_two(run):
    a1 = answer(
        completeness="references_unresolved", pending_references=[pending("Table 3 row (E)", 2, "table")]
    )
    a2 = answer(
        text="Long messages get one then zeros.", citations=[cite(3, 3, "(E) long messages one then zeros")]
    )
    result, fake, trace = run([passage(1, 1, 5)], a1, a2)
    assert result.loop_count == 1 and len(fake.calls) == 2
    pulled = [p for p in fake.calls[1].passages if p.retrieved_via == "reference"]
    assert pulled and {ln.page for p in pulled for ln in p.lines} == {3}
    assert pulled[0].referenced_from == (1, 2) and pulled[0].reference_text == "Table 3 row (E)"
    (res,) = result.resolutions
    assert (res.status, res.method, res.target, res.pass_no) == ("resolved", "object_registry", "table:3", 1)
    assert [p.decision for p in result.passes] == ["resolve_references", "return_to_user"]
    assert result.answer.citations[0].retrieved_via == "reference"  # provenance set by validation
    assert len(events(trace, "resolution")) == 1


def test_budget_zero_gives_up_partial_and_reports_the_reference(run):
    a1 = answer(
        completeness="references_unresolved", pending_references=[pending("Table 3 row (E)", 2, "table")]
    )
    result, fake, _ = run([passage(1, 1, 5)], a1, max_loops=0)
    assert len(fake.calls) == 1 and result.loop_count == 0
    assert [p.decision for p in result.passes] == ["give_up_partial"]
    assert result.answer.answer_completeness == "partial"
    assert [(u.raw_text, u.reason) for u in result.unresolved] == [
        ("Table 3 row (E)", decide.BUDGET_EXHAUSTED)
    ]


def test_budget_exhausted_after_pass_two_still_pending(run):
    a1 = answer(
        completeness="references_unresolved", pending_references=[pending("Table 3 row (E)", 2, "table")]
    )
    a2 = answer(
        completeness="references_unresolved",
        citations=[cite(3, 3, "(E) long messages one then zeros")],
        pending_references=[pending("Section 2", 3, "section")],
    )
    result, fake, _ = run([passage(1, 1, 5)], a1, a2, max_loops=1)
    assert len(fake.calls) == 2 and result.loop_count == 1
    assert result.passes[-1].decision == "give_up_partial"
    assert result.answer.answer_completeness == "partial"
    assert [(u.raw_text, u.reason) for u in result.unresolved] == [("Section 2", decide.BUDGET_EXHAUSTED)]


def test_a_pointer_inside_the_followed_target_is_reported_not_partial(run):
    # pass 2's pointer is written in the pulled-in Table 3 (page 3), not in the first hop's lines:
    # the first hop's pointer was followed, so the answer is complete; the new one is reported
    a1 = answer(
        completeness="references_unresolved", pending_references=[pending("Table 3 row (E)", 2, "table")]
    )
    a2 = answer(
        completeness="references_unresolved",
        citations=[cite(3, 3, "(E) long messages one then zeros")],
        pending_references=[pending("Section 2", 2, "section", page=3)],
    )
    result, _, _ = run([passage(1, 1, 5)], a1, a2, max_loops=1)
    assert result.answer.answer_completeness == "complete"
    assert result.answer.pending_references == []
    assert [(u.raw_text, u.reason) for u in result.unresolved] == [("Section 2", decide.NESTED_NOT_FOLLOWED)]
    assert result.passes[-1].decision == "return_to_user"
    assert any("found in the followed targets: Section 2 (page 3)" in w for w in result.warnings)


def test_a_heading_label_is_not_a_pointer(run, monkeypatch):
    # "2 Padding values" opens with its own label: even when the tables cannot resolve it (a
    # "Subpart D" heading the toc lacks), it is not a pointer elsewhere
    unresolved = decide.Resolution(
        pending("2 Padding", 1, "section", page=2), "unresolved", "none", "section"
    )
    monkeypatch.setattr(decide, "resolve_pending", lambda ref, tables, **kw: unresolved)
    a1 = answer(
        completeness="references_unresolved",
        citations=[cite(2, 1, "2 Padding values")],
        pending_references=[pending("2 Padding", 1, "section", page=2)],
    )
    result, fake, _ = run([passage(2, 1, 2)], a1, max_loops=1)
    assert len(fake.calls) == 1 and result.loop_count == 0
    assert result.answer.answer_completeness == "complete"


def test_a_heading_that_names_a_provision_elsewhere_is_followed(run, monkeypatch):
    # a drafting note titled "Clause 5.6" (a heading) points at clause 5.6 on another page
    found = decide.Resolution(
        pending("2 Padding", 1, "section", page=2), "resolved", "toc_df", "section", target="1",
        passages=[passage(1, 1, 3)],
    )  # fmt: skip
    monkeypatch.setattr(decide, "resolve_pending", lambda ref, tables, **kw: found)
    a1 = answer(
        completeness="references_unresolved",
        citations=[cite(2, 1, "2 Padding values")],
        pending_references=[pending("2 Padding", 1, "section", page=2)],
    )
    a2 = answer(citations=[cite(1, 2, "The padding rule is given in Table 3 row (E).")])
    result, fake, _ = run([passage(2, 1, 2)], a1, a2, max_loops=1)
    assert len(fake.calls) == 2 and result.loop_count == 1


def test_nothing_to_add_gives_up_partial_with_a_warning(run):
    # a condition is stated, not fetched: following it adds no passage
    a1 = answer(
        completeness="references_unresolved", pending_references=[pending("applies only if", 5, "condition")]
    )
    result, fake, _ = run([passage(1, 1, 5)], a1)
    assert len(fake.calls) == 1 and result.loop_count == 1
    assert result.passes[-1].decision == "give_up_partial"
    assert result.answer.answer_completeness == "partial"
    assert result.warnings == [decide.NOTHING_ADDED]
    assert result.unresolved == []  # given up on purpose, not out of budget


def test_unresolvable_reference_is_reported_with_its_reason(run):
    a1 = answer(completeness="references_unresolved", pending_references=[pending("Table 9", 2, "table")])
    result, _, _ = run([passage(1, 1, 5)], a1)
    (u,) = result.unresolved
    assert u.raw_text == "Table 9" and "no matching" in u.reason
    assert result.answer.answer_completeness == "partial"


def test_conditions_emit_the_state_conditions_instruction_for_pass_two(run):
    refs = [pending("applies only if", 5, "condition"), pending("Table 3 row (E)", 2, "table")]
    a1 = answer(completeness="references_unresolved", pending_references=refs)
    a2 = answer(citations=[cite(3, 3, "(E) long messages one then zeros")])
    result, fake, _ = run([passage(1, 1, 5)], a1, a2)
    assert fake.calls[0].instructions == [] and fake.calls[1].instructions == ["state_conditions"]
    assert result.passes[1].instructions == ["state_conditions"]


# -- triage: every branch ------------------------------------------------------------------


def test_triage_drops_a_target_mostly_in_the_evidence(run):
    # 4 of section 2's 5 lines (80%) are already given: no second pass
    a1 = answer(completeness="references_unresolved", citations=[cite(2, 2, "The padding value is a single one bit.")],
                pending_references=[pending("Section 2", 3, "section")])  # fmt: skip
    result, fake, trace = run([passage(2, 2, 5)], a1)
    assert len(fake.calls) == 1 and result.loop_count == 0
    assert result.answer.answer_completeness == "complete"  # nothing left pending
    assert [e["verdict"] for e in events(trace, "triage")] == ["already_in_evidence"]


def test_triage_follows_a_target_barely_in_the_evidence(run):
    # 2 of 5 lines (40%) given: the rest of the section is worth the pass
    a1 = answer(completeness="references_unresolved", citations=[cite(2, 4, "The total length becomes a multiple of the block size.")],
                pending_references=[pending("Section 2", 3, "section")])  # fmt: skip
    a2 = answer(citations=[cite(2, 2, "The padding value is a single one bit.")])
    result, fake, trace = run([passage(2, 4, 5)], a1, a2)
    assert len(fake.calls) == 2 and result.loop_count == 1
    assert not events(trace, "triage")


def test_triage_threshold_is_the_named_constant():
    assert decide.ALREADY_IN_EVIDENCE == 0.6


def test_external_reference_is_named_not_followed(run):
    a1 = answer(
        completeness="references_unresolved", pending_references=[pending("SP 800-90", 4, "external")]
    )
    result, fake, trace = run([passage(1, 1, 5)], a1)
    assert len(fake.calls) == 1 and result.loop_count == 0  # never a pass for an external document
    assert [e.name for e in result.answer.external_references] == ["SP 800-90"]
    assert "External reference(s), not fetched: SP 800-90." in result.answer.answer
    assert result.answer.answer_completeness == "complete"
    assert [e["verdict"] for e in events(trace, "triage")] == ["external"]


def test_externals_the_backend_listed_are_named_in_the_answer_text(run):
    ext = ExternalReference(name="FIPS 180-4", origin_page=1, origin_line=4)
    result, _, _ = run([passage(1, 1, 5)], answer(external_references=[ext]))
    assert result.answer.answer.endswith("External reference(s), not fetched: FIPS 180-4.")


def test_an_external_already_named_in_the_text_is_not_repeated(run):
    ext = ExternalReference(name="FIPS 180-4", origin_page=1, origin_line=4)
    result, _, _ = run([passage(1, 1, 5)], answer(text="Uses FIPS 180-4.", external_references=[ext]))
    assert result.answer.answer == "Uses FIPS 180-4."


# -- generation contract ---------------------------------------------------------------------


def test_validation_runs_once_per_pass_in_the_loop(run, monkeypatch):
    from docintel.generation import validator

    calls = []
    real = validator.validate_answer
    monkeypatch.setattr(validator, "validate_answer", lambda a, p: calls.append(1) or real(a, p))
    bad = cite(1, 3, "a quote that is nowhere in the evidence")
    result, _, _ = run([passage(1, 1, 5)], answer(citations=[bad]))
    assert len(calls) == 1
    assert result.answer.citations == []
    assert any("dropped" in p for p in result.passes[0].validation_problems)


def test_model_output_error_is_traced_and_raised(run):
    class Broken(FakeBackend):
        def generate(self, question, passages, *, pass_no, instructions):
            raise LLMOutputError("never validated", raw_outputs=["{bad"], attempts=3)

    with pytest.raises(LLMOutputError):
        run([passage(1, 1, 5)], backend=Broken())


def test_offline_rule_pick_is_not_recorded_as_an_llm_pick(run):
    a1 = answer(completeness="references_unresolved",
                pending_references=[pending("the previous section", 2, "section", page=2)])  # fmt: skip
    tables = _tables()
    from docintel.decide import resolve_pending

    ref = a1.pending_references[0]
    fake = FakeBackend(resolutions={"the previous section": "1"})
    assert resolve_pending(ref, tables, question=Q, backend=fake).method == "llm"
    assert resolve_pending(ref, tables, question=Q, backend=OfflineBackend()).method == "offline_rules"


def test_the_loop_never_writes_the_tables(run, monkeypatch):
    from docintel.parsing import store

    def refuse(*a, **k):
        raise AssertionError("the loop wrote the cache")

    monkeypatch.setattr(store, "append_cross_refs", refuse)
    a1 = answer(
        completeness="references_unresolved", pending_references=[pending("Table 3 row (E)", 2, "table")]
    )
    a2 = answer(citations=[cite(3, 3, "(E) long messages one then zeros")])
    result, _, _ = run([passage(1, 1, 5)], a1, a2)
    from docintel.api import learned_cross_refs

    rows = learned_cross_refs(_tables(), result)
    assert [(r["anchor_text"], r["ref_target"], r["source"]) for r in rows] == [
        ("Table 3 row (E)", "table:3", "regex")
    ]


def test_same_page_target_is_added_to_pass_one(run):
    # "Section 2" is pointed at from page 1, and page 2 was retrieved too: its lines join pass 1
    result, fake, trace = run([passage(1, 1, 5), passage(2, 4, 5)], answer())
    (ev,) = events(trace, "same_page_target")
    assert ev["reference"] == "Section 2" and ev["pages"] == [2]
    given = {(ln.page, ln.line) for p in fake.calls[0].passages for ln in p.lines}
    assert {(2, 1), (2, 2), (2, 3)} <= given


def test_one_two_pass_ask_scans_the_evidence_for_references_at_most_twice(nist_pdf, tmp_path, monkeypatch):
    """Each evidence line is scanned once per ask: one scan for pass 1, one for what pass 2
    added. The parser's DataFrame extractor is not used by an ask at all."""
    from docintel import refscan
    from docintel.api import ask, parse
    from docintel.parsing import crossrefs

    tables = parse(nist_pdf, out_dir=tmp_path, ocr="never")
    counts = {"scan": 0, "extract": 0}
    scanned: list[tuple] = []
    scan, extract = refscan.scan_lines, crossrefs.extract_references

    def counting_scan(*a, **k):
        counts["scan"] += 1
        out = scan(*a, **k)
        scanned.extend(key for key, _ in out)
        return out

    monkeypatch.setattr(refscan, "scan_lines", counting_scan)
    monkeypatch.setattr(
        crossrefs,
        "extract_references",
        lambda *a, **k: counts.__setitem__("extract", counts["extract"] + 1) or extract(*a, **k),
    )
    question = "How is the message padded before it is combined with the random value?"
    result = ask(nist_pdf, question, backend="offline", tables=tables, write_trace=False)
    assert result.loop_count == 1  # a two-pass ask
    # the question's own words (regions it names), pass 1, the followed section's lines (the
    # tables and figures it cites are looked up from them), pass 2's new lines: never one line twice
    assert counts["extract"] == 0 and 3 <= counts["scan"] <= 4
    assert scanned and len(scanned) == len(set(scanned))
