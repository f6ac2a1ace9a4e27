"""A question that names a region ("What does clause 2.1 say?") is answered from that region,
whole, not from the pages that happen to repeat its other words."""

from __future__ import annotations

import json

import pytest

from docintel.api import ask, parse

from .test_provisions import _doc

AGREEMENT = [
    [
        ("SERVICES AGREEMENT", "hebo", 16),
        ("1. Definitions", "hebo", 11),
        ("1.1 Services means the work the Supplier does, as this clause and clause 2.1 say.", "helv", 10),
        ("1.2 Invoice means a statement of the amounts the Customer owes.", "helv", 10),
        ("2. Payment", "hebo", 11),
        ("2.1 The Customer shall pay each invoice within thirty days of receipt:", "helv", 10),
        ("(a) late payments accrue interest at two percent per month; and", "helv", 10, 100),
        ("(b) disputed amounts are paid when the dispute is resolved.", "helv", 10, 100),
        ("2.2 All amounts are stated in euro and exclude value added tax.", "helv", 10),
        ("3. Term", "hebo", 11),
        ("3.1 This Agreement lasts for two years from the date it is signed.", "helv", 10),
    ],
    [
        ("4. Notices", "hebo", 11),
        ("4.1 Notices say what they say in writing; what a notice says is what the parties say.", "helv", 10),
        ("4.2 A notice is given when it is delivered to the address of the other party.", "helv", 10),
    ],
]


@pytest.fixture(scope="module")
def pdf(tmp_path_factory):
    path = tmp_path_factory.mktemp("named") / "agreement.pdf"
    path.write_bytes(_doc(AGREEMENT).tobytes())
    return path


@pytest.fixture(scope="module")
def tables(pdf, tmp_path_factory):
    return parse(pdf, out_dir=tmp_path_factory.mktemp("named-art"), layout="never", ocr="never")


def _ask(pdf, tables, q, tmp_path):
    trace = tmp_path / "t.json"
    res = ask(pdf, q, tables=tables, trace_path=trace)
    return res, json.loads(trace.read_text())


def test_a_named_clause_is_the_first_hop_with_its_sub_paragraphs(pdf, tables, tmp_path):
    res, trace = _ask(pdf, tables, "What does clause 2.1 say?", tmp_path)
    text = res.answer.answer
    assert "thirty days" in text and "two percent" in text and "dispute is resolved" in text
    assert "what a notice says" not in text  # the page that repeats "say" is not the answer
    assert {e.retrieved_via for e in res.evidence} == {"scope"}
    assert res.answer.citations and all(c.page == 1 for c in res.answer.citations)
    named = [e for e in trace["events"] if e["kind"] == "named_in_question"]
    assert named and named[0]["used"] is True


def test_a_region_the_document_lacks_leaves_the_question_to_keyword_retrieval(pdf, tables, tmp_path):
    res, trace = _ask(pdf, tables, "What does Section 9 say about notices given in writing?", tmp_path)
    assert {e.retrieved_via for e in res.evidence} == {"primary"}
    assert [e["used"] for e in trace["events"] if e["kind"] == "named_in_question"] == [False]
    assert any(e.page == 2 for e in res.evidence)
    # the answer says it could not find the region the question names, and is not "complete"
    assert res.answer.answer_completeness != "complete"
    assert [(r.code, r.reference) for r in res.completeness_reasons] == [
        ("reference_unresolved", "Section 9")
    ]
    assert any("names Section 9" in w for w in res.warnings)


def test_the_named_regions_own_heading_is_not_a_pointer_and_its_resolution_is_pass_0(pdf, tables, tmp_path):
    res, _ = _ask(pdf, tables, "What does clause 2.1 say?", tmp_path)
    assert res.answer.pending_references == [] and res.loop_count == 0
    obj = res.to_json_dict()
    assert [(r["pass"], r["reference"]) for r in obj["resolutions"]] == [(0, "clause 2.1")]
    assert res.answer.answer_completeness == "complete"  # 2.1's last line ends its sentence


RULES = [
    [
        ("REGULATION ON SHARED PARKING", "hebo", 16),
        ("Article 1", "hebo", 11),
        ("Each resident may register one vehicle with the council office.", "helv", 10),
        ("Article 2", "hebo", 11),
        (
            "A registered vehicle may park in any zone marked for residents, except on market days.",
            "helv",
            10,
        ),
        ("Article 3", "hebo", 11),
        ("Fines for parking without a registration are set by the council each year.", "helv", 10),
    ]
]


def test_a_region_whose_heading_names_it_is_not_followed_again(tmp_path):
    path = tmp_path / "rules.pdf"
    path.write_bytes(_doc(RULES).tobytes())
    tables = parse(path, out_dir=tmp_path / "art", layout="never", ocr="never")
    res, trace = _ask(path, tables, "What does Article 2 say?", tmp_path)
    assert "market days" in res.answer.answer
    assert [r.raw_text for r in res.answer.pending_references] == []  # its own heading "Article 2"
    assert res.loop_count == 0 and res.answer.answer_completeness == "complete"
