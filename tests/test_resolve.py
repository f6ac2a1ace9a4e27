"""Resolution of pending references against the tables (deterministic first, then the LLM)."""

from __future__ import annotations

import pytest

from docintel.api import parse
from docintel.decide import decide_next_pass, resolve_pending
from docintel.generation.base import get_backend
from docintel.questions import parse_question
from docintel.schema.answer import PendingReference, ReferenceAwareAnswer

from .conftest import REPO

FIXTURE = REPO / "tests" / "data" / "fixtures" / "outline_report.pdf"


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    return parse(FIXTURE, out_dir=tmp_path_factory.mktemp("resolve"))


def _ref(raw: str, page: int = 2, line: int = 3, ref_type: str = "unknown") -> PendingReference:
    return PendingReference(raw_text=raw, ref_type=ref_type, origin_page=page, origin_line=line)


def _resolve(tables, raw, question="What are the limits?", backend=None, **kw):
    return resolve_pending(_ref(raw, **kw), tables, question=parse_question(question), backend=backend)


def test_table_row_selector_keeps_header_and_the_row_only(tables):
    res = _resolve(tables, "Table 1 row (B)")
    assert (res.status, res.method, res.target, res.sub_selector) == (
        "resolved",
        "object_registry",
        "table:1",
        "row (B)",
    )
    text = "\n".join(p.text for p in res.passages)
    assert "Limit (h)" in text and "(B) | 35 | 4" in text
    assert "(A)" not in text and "(C)" not in text
    assert all(p.referenced_from == (2, 3) and p.retrieved_via == "reference" for p in res.passages)
    assert "pulled in because of 'Table 1 row (B)' on page 2, line 3" in res.passages[0].note


def test_numbered_section_resolves_through_toc(tables):
    res = _resolve(tables, "see Section 2.1", question="Which sites are covered?")
    assert (res.status, res.method, res.target) == ("resolved", "toc_df", "2.1")
    assert "more than ten workers" in "\n".join(p.text for p in res.passages)


def test_bibliography_entry(tables):
    res = _resolve(tables, "[2]")
    assert res.status == "resolved" and res.target == "bib:2"
    assert "Measuring exposure" in "\n".join(p.text for p in res.passages)


def test_external_is_named_not_fetched(tables):
    res = _resolve(tables, "ISO 45001")
    assert (res.status, res.method, res.passages) == ("external", "external", [])


def test_unknown_target_is_reported_unresolved(tables):
    res = _resolve(tables, "Table 9")
    assert res.status == "unresolved" and res.passages == [] and res.reason


def test_previous_section_goes_to_the_llm_resolver(tables):
    # origin: a line inside section 2.1 -> 'the previous section' is section 1
    line = int(tables.line_df[tables.line_df["section_id"] == "2.1"]["line"].iloc[1])
    res = _resolve(tables, "the previous section", backend=get_backend("offline"), page=2, line=line)
    assert (res.status, res.method, res.target) == (
        "resolved",
        "offline_rules",
        "1",
    )  # a rule-based pick, named as such
    assert _resolve(tables, "the previous section", page=2, line=line).status == "unresolved"  # no backend


@pytest.mark.parametrize(
    "completeness, loops, pending, expected",
    [
        ("complete", 0, False, "return_to_user"),
        ("references_unresolved", 0, True, "resolve_references"),
        ("references_unresolved", 1, True, "give_up_partial"),
        ("references_unresolved", 0, False, "give_up_partial"),
        ("not_found", 0, False, "return_to_user"),
        ("partial", 0, True, "return_to_user"),
    ],
)
def test_decide_next_pass_reads_only_the_typed_fields(completeness, loops, pending, expected):
    answer = ReferenceAwareAnswer(
        answer="x",
        answer_completeness=completeness,
        pending_references=[_ref("Table 1 row (B)")] if pending else [],
    )
    assert decide_next_pass(answer, loops, max_loops=1) == expected
