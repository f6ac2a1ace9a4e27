"""Issue 10 items 2 and 4: every target of a list followed in one pass, budgets and cuts
named, "complete" earned (typed reasons), procedure steps kept whole, first hop structure."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from docintel.api import ask, parse
from docintel.decide import resolve_pending
from docintel.generation.completeness import completeness_reasons
from docintel.generation.offline.scoring import ScoredLine, list_span
from docintel.questions import parse_question
from docintel.retrieval.rank import listing_pages
from docintel.schema.answer import Citation, PendingReference, ReferenceAwareAnswer
from docintel.schema.evidence import EvidenceLine, Passage
from docintel.schema.loop import Resolution

from .conftest import REPO

FIXTURE = REPO / "tests" / "data" / "fixtures" / "outline_report.pdf"


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    return parse(FIXTURE, out_dir=tmp_path_factory.mktemp("earned"))


def _ref(raw: str) -> PendingReference:
    return PendingReference(raw_text=raw, ref_type="unknown", origin_page=2, origin_line=3)


def test_a_list_of_sections_resolves_every_target_in_one_resolution(tables):
    res = resolve_pending(_ref("Sections 2.1 and 2.2"), tables, question=parse_question("What applies?"))
    assert res.status == "resolved" and res.target == "2.1,2.2"
    pages = {p.page for p in res.passages}
    text = "\n".join(p.text for p in res.passages)
    assert pages == {2, 3} and "Scope" in text and "Limits" in text
    assert "2 of 2 targets" in res.reason


def test_a_list_names_the_targets_the_document_lacks(tables):
    res = resolve_pending(_ref("Sections 2.1 and 9.9"), tables, question=parse_question("What applies?"))
    assert res.status == "resolved" and res.target == "2.1"
    assert "not in this document: 9.9" in res.reason


def test_a_cut_target_is_named(tables):
    res = resolve_pending(_ref("Section 2"), tables, question=parse_question("What applies?"), max_lines=3)
    assert res.status == "resolved"
    assert res.cut and res.cut[0].startswith("section 2:") and "lines given" in res.cut[0]
    assert res.to_record().cut == res.cut


def _line(page, line, text, role="body"):
    return EvidenceLine(page=page, line=line, text=text, role=role)


def _resolution(lines, raw="Appendix A") -> Resolution:
    p = Passage(
        doc_id="d", page=lines[0].page, line_start=lines[0].line, line_end=lines[-1].line, lines=lines
    )
    return Resolution(_ref(raw), "resolved", "toc_df", "appendix", target="A", passages=[p])


def _answer(citations, completeness="complete") -> ReferenceAwareAnswer:
    return ReferenceAwareAnswer(
        answer="The limit is thirty five units per hour.",
        citations=citations,
        answer_completeness=completeness,
    )


def _cite(page, a, b):
    return Citation(page=page, line_start=a, line_end=b, quote="x")


def test_uncited_answer_is_not_complete():
    reasons = completeness_reasons(_answer([]), [])
    assert [r.code for r in reasons] == ["uncited"]


def test_target_that_gave_only_its_heading_is_not_complete():
    res = _resolution([_line(9, 1, "Appendix A: Limits", role="heading")])
    reasons = completeness_reasons(_answer([_cite(2, 1, 2)]), [res])
    assert [r.code for r in reasons] == ["target_heading_only"] and reasons[0].reference == "Appendix A"


def test_target_none_of_whose_lines_is_cited_is_not_complete():
    res = _resolution([_line(9, 1, "Appendix A", role="heading"), _line(9, 2, "The limit is 35.")])
    assert [r.code for r in completeness_reasons(_answer([_cite(2, 1, 2)]), [res])] == ["target_not_cited"]
    assert completeness_reasons(_answer([_cite(2, 1, 2), _cite(9, 2, 2)]), [res]) == []


def test_target_that_stops_on_a_line_announcing_more_is_not_complete():
    res = _resolution(
        [_line(9, 1, "Article 17", role="heading"), _line(9, 2, "where one of the grounds applies:")]
    )
    reasons = completeness_reasons(_answer([_cite(9, 2, 2)]), [res])
    assert [r.code for r in reasons] == ["target_ends_open"]
    whole = _resolution([*res.passages[0].lines, _line(9, 3, "(a) the data are no longer necessary.")])
    assert completeness_reasons(_answer([_cite(9, 2, 3)]), [whole]) == []
    # a long target given in windows (the budget's cut, reported as such) may end a window on ":"
    res.cut = ["section 164.501: 60 of its 366 lines given"]
    assert completeness_reasons(_answer([_cite(9, 2, 2)]), [res]) == []


def test_not_found_needs_no_citation():
    assert completeness_reasons(_answer([], completeness="not_found"), []) == []


def test_ask_reports_typed_reasons_when_partial(tables, tmp_path):
    res = ask(FIXTURE, "What are the limits in Table 1?", tables=tables, trace_path=tmp_path / "t.json")
    obj = res.to_json_dict()
    assert "completeness_reasons" in obj
    if obj["answer_completeness"] == "complete":
        assert obj["completeness_reasons"] == [] and obj["citations"]
    else:
        assert all(r["code"] for r in obj["completeness_reasons"])


def _rows(texts: list[str]) -> list[ScoredLine]:
    return [ScoredLine(0, i, _line(1, i + 1, t)) for i, t in enumerate(texts)]


PROCEDURE = [
    "To sign, additional operations are needed as specified below.",
    "Signature Generation:",
    "1. Obtain the rv as described in Section 3.3.",
    "2. Randomize the message with rv as described in Section 3.2, obtaining the randomized",
    "message M.",
    "3. Generate a signature on the randomized message.",
    "4. Provide the message, the rv and the signature for verification.",
    "Signature Verification:",
    "1. The verifier receives the signature.",
]


def test_a_window_on_one_step_widens_to_the_whole_procedure():
    rows = _rows(PROCEDURE)
    assert list_span(rows, 6, 6) == (1, 6)  # lead-in line and steps 1-4, not the next list


def test_a_window_outside_any_list_is_unchanged():
    rows = _rows(["Plain prose one.", "Plain prose two.", "Plain prose three."])
    assert list_span(rows, 1, 1) == (1, 1)


def test_a_list_of_tables_is_a_listing_page_and_the_body_is_not():
    import pandas as pd

    rows = [
        (1, i, f"Table D-{i} Control baselines by impact level ........ {20 + i}", "body")
        for i in range(1, 6)
    ]
    rows += [
        (2, i, f"The baseline in Table D-{i} lists the controls for moderate systems.", "body")
        for i in range(1, 6)
    ]
    rows += [(3, i, f"{i}.{i} Section title {i}", "toc_entry") for i in range(1, 5)]
    line_df = pd.DataFrame(rows, columns=["page", "line", "text", "role"])
    assert listing_pages(SimpleNamespace(line_df=line_df)) == {1, 3}


def test_what_counts_as_is_a_definition_question():
    q = parse_question("The Recipient must delete it within 5 Business Days. What counts as a Business Day?")
    assert (q.shape, q.defined_term) == ("definition", "Business Day")


def test_a_quoted_term_before_means_is_its_definition():
    import pandas as pd

    from docintel.retrieval.lookup import definition_pages

    line_df = pd.DataFrame(
        [(2, 19, '"Business Day" means any weekday other than a bank holiday.', "body"),
         (4, 21, "within 5 Business Days following receipt", "body")],
        columns=["page", "line", "text", "role"],
    )  # fmt: skip
    assert definition_pages(SimpleNamespace(line_df=line_df), "Business Day") == {2: 19}
    # US legislative style doubles the quotes: "The term ''Federal land'' means"
    line_df = pd.DataFrame(
        [(3, 27, "The term \u2018\u2018authorized project\u2019\u2019 means the measures", "body")],
        columns=["page", "line", "text", "role"],
    )
    assert definition_pages(SimpleNamespace(line_df=line_df), "authorized project") == {3: 27}
