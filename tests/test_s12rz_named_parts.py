"""Session 12 (rz): a section of a named instrument, and an appendix whose label is printed alone.

"Section 5.1 of the Security Agreement" in a credit agreement is another instrument's section
(external), while "Section 5.1 of the Credit Agreement" inside the Credit Agreement is its own; the
document's own name is read from its title lines and its 'THIS ... (this "Agreement")' opening.
"APPENDIX F" printed alone above its title gets a toc row of its own: the appendix runs over the
rows after it up to the next label.
"""

from __future__ import annotations

import pandas as pd
import pytest

from docintel.parsing.pymupdf_backend import parse_with_pymupdf
from docintel.parsing.refpatterns import find_references
from docintel.retrieval.refparts import names_this_document
from docintel.retrieval.resolve import resolve_in_tables
from docintel.retrieval.resolve_build import section_at
from tests.synthetic_pdf import build_pdf
from tests.test_ref_families_s6 import Q, _ref, build


def _rows(text: str) -> list[tuple]:
    return [(r["ref_type"], r["ref_target"], r["sub_selector"]) for r in find_references(text)]


EXT = "external"
GRAMMAR = [
    ("as set out in Section 5.1 of the Security Agreement.", [(EXT, "Security Agreement", "Section 5.1")]),
    (
        "pursuant to Section 2.3(b) of the 2020 Equity Incentive Plan,",
        [(EXT, "2020 Equity Incentive Plan", "Section 2.3(b)")],
    ),
    ("under Article IV of the Operating Agreement", [(EXT, "Operating Agreement", "Article IV")]),
    (
        "Section 7 of the Amended and Restated Loan Agreement",
        [(EXT, "Amended and Restated Loan Agreement", "Section 7")],
    ),
    # this document's generic self-names stay internal
    ("subject to Section 5.1 of this Agreement", [("section", "5.1", None)]),
    ("subject to Section 5.1 of the Agreement", [("section", "5.1", None)]),
    ("as provided in Section 2 of the Plan", [("section", "2", None)]),
    ("Section 1.1 of the Agreement and Plan of Merger", [("section", "1.1", None)]),
    ("Section 3.2 of the Indenture", [("section", "3.2", None)]),
    ("Section 4 of such Agreement", [("section", "4", None)]),
]


@pytest.mark.parametrize(("text", "want"), GRAMMAR)
def test_a_section_of_a_named_instrument_is_read_as_that_instruments(text, want):
    assert _rows(text) == want


def _p(text: str, size: float = 10, font: str = "helv") -> tuple:
    return (text, font, size, 72)


def _contract(title: str, opening: str) -> object:
    """A two-page contract: its title in large type, its opening, Section 5.1 on page 2, and a
    line citing sections by instrument name on page 1."""
    pages = [
        [
            _p(title, 16, "hebo"),
            _p(opening),
            _p("among the Borrower, the Lenders and the Administrative Agent."),
            _p("ARTICLE I DEFINITIONS", 11, "hebo"),
            _p("1.1 Defined Terms. Capitalized terms are defined as set out below in this text."),
            _p("The Collateral is described in Section 5.1 of the Security Agreement and the"),
            _p("covenants in Section 5.1 of the Credit Agreement and Section 2 of the Plan."),
        ],
        [
            _p("ARTICLE V COVENANTS", 11, "hebo"),
            _p("5.1 Financial Statements. The Borrower shall deliver its audited statements"),
            _p("within ninety days after the end of each fiscal year of the Borrower."),
            _p("5.2 Notices. The Borrower shall give notice of any Default promptly."),
        ],
    ]
    return parse_with_pymupdf(build_pdf(pages), "c", layout_mode="never", ocr_mode="never")


def _texts(res) -> list[str]:
    return [ln.text for p in res.passages for ln in p.lines]


def test_the_document_names_itself_by_its_title_and_opening():
    tables = _contract("CREDIT AGREEMENT", 'THIS CREDIT AGREEMENT (this "Agreement") is entered into')
    assert names_this_document(tables, "Credit Agreement")
    assert names_this_document(tables, "the Credit Agreement")
    assert not names_this_document(tables, "Security Agreement")
    amendment = _contract(
        "FIRST AMENDMENT TO CREDIT AGREEMENT",
        'THIS FIRST AMENDMENT (this "Amendment") to the Credit Agreement is entered into',
    )
    assert not names_this_document(amendment, "Credit Agreement")
    assert names_this_document(amendment, "First Amendment to Credit Agreement")
    # an amendment titled after the agreement it amends is not that agreement
    amendments = _contract("CREDIT AGREEMENT AMENDMENT", "The parties agree as follows.")
    assert not names_this_document(amendments, "Credit Agreement")
    dated = _contract("CREDIT AGREEMENT dated as of March 1, 2020", "The parties agree as follows.")
    assert names_this_document(dated, "Credit Agreement")


def test_a_section_of_this_document_named_by_its_title_resolves_here():
    tables = _contract("CREDIT AGREEMENT", 'THIS CREDIT AGREEMENT (this "Agreement") is entered into')
    res = resolve_in_tables(_ref("Section 5.1 of the Credit Agreement", 1, 7), tables, question=Q)
    assert res.status == "resolved"
    assert any(t.startswith("5.1 Financial Statements") for t in _texts(res))
    other = resolve_in_tables(_ref("Section 5.1 of the Security Agreement", 1, 6), tables, question=Q)
    assert other.status == "external"
    assert other.target == "Security Agreement"


def test_the_defined_short_name_of_the_opening_names_this_document():
    tables = _contract("LOAN DOCUMENTS", 'THIS REVOLVING CREDIT AGREEMENT (the "Credit Agreement") is made')
    res = resolve_in_tables(_ref("Section 5.1 of the Credit Agreement", 1, 7), tables, question=Q)
    assert res.status == "resolved"
    assert any(t.startswith("5.1 Financial Statements") for t in _texts(res))


def test_in_an_amendment_the_amended_agreements_section_is_external():
    tables = _contract(
        "FIRST AMENDMENT TO CREDIT AGREEMENT",
        'THIS FIRST AMENDMENT (this "Amendment") to the Credit Agreement is entered into',
    )
    res = resolve_in_tables(_ref("Section 5.1 of the Credit Agreement", 1, 7), tables, question=Q)
    assert res.status == "external"
    assert res.target == "Credit Agreement"


def test_a_plan_names_itself_and_the_plan_stays_internal():
    tables = _contract("2020 EQUITY INCENTIVE PLAN", "This Plan is adopted by the Board as of the date below")
    res = resolve_in_tables(_ref("Section 5.1 of the 2020 Equity Incentive Plan", 1, 7), tables, question=Q)
    assert res.status == "resolved"
    assert any(t.startswith("5.1 Financial Statements") for t in _texts(res))
    res = resolve_in_tables(_ref("Section 5.1 of the Plan", 1, 7), tables, question=Q)
    assert res.status == "resolved"


def _appendix_toc(first_title: str) -> object:
    lines = [
        {"page": p, "line": ln, "text": f"p{p} l{ln}", "role": "body"}
        for p in (10, 11, 12, 13)
        for ln in (1, 2)
    ]
    toc = [
        {"toc_id": "a", "number": None, "title": first_title, "level": 1, "page_start": 10, "line_start": 1,
         "page_end": 10, "line_end": 1, "source": "heading"},
        {"toc_id": "b", "number": None, "title": "Authorization Types", "level": 1, "page_start": 10,
         "line_start": 2, "page_end": 11, "line_end": 1, "source": "heading"},
        {"toc_id": "c", "number": "F.1", "title": "F.1 Type Authorization", "level": 1, "page_start": 11,
         "line_start": 2, "page_end": 12, "line_end": 2, "source": "heading"},
        {"toc_id": "d", "number": None, "title": "APPENDIX G", "level": 1, "page_start": 13, "line_start": 1,
         "page_end": 13, "line_end": 2, "source": "heading"},
    ]  # fmt: skip
    return build(lines, toc)


def test_an_appendix_label_printed_alone_runs_to_the_next_label():
    obj = pd.Series({"page": 10, "line_start": 1})
    got = section_at(_appendix_toc("APPENDIX F"), obj)
    assert len(got) == 1
    assert got.iloc[0]["title"] == "APPENDIX F"
    assert (int(got.iloc[0]["page_end"]), int(got.iloc[0]["line_end"])) == (12, 2)


def test_an_appendix_heading_with_its_title_keeps_its_own_row():
    obj = pd.Series({"page": 10, "line_start": 1})
    got = section_at(_appendix_toc("APPENDIX F: AUTHORIZATION BOUNDARY"), obj)
    assert (int(got.iloc[0]["page_end"]), int(got.iloc[0]["line_end"])) == (10, 1)


@pytest.mark.parametrize("title", ["Appendix Glossary", "Schedule Changes", "Annex Overview"])
def test_an_appendix_titled_by_a_word_is_no_label_printed_alone(title):
    # last read: the label pattern was case-free, so any word read as a label and the appendix took
    # in the rows after it
    obj = pd.Series({"page": 10, "line_start": 1})
    got = section_at(_appendix_toc(title), obj)
    assert (int(got.iloc[0]["page_end"]), int(got.iloc[0]["line_end"])) == (10, 1)
