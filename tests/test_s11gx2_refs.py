"""Session 11 (gx2): the reference vocabulary of papers and standards: numbered statements
("see Definition 3", "Proposition 5"), parsed from a generated paper page."""

from __future__ import annotations

import pytest

from docintel.parsing.pymupdf_backend import parse_with_pymupdf
from docintel.parsing.refpatterns import find_references
from docintel.retrieval.resolve import resolve_in_tables
from tests.synthetic_pdf import build_pdf
from tests.test_ref_families_s6 import Q, _ref


def _p(text: str) -> tuple:
    return (text, "helv", 10, 72)


@pytest.mark.parametrize(
    "text, want",
    [
        ("as stated in Definition 3, the noise", [("definition", "3")]),
        ("by Proposition 5 we have", [("proposition", "5")]),
        ("see Theorem 2.1 and Lemma 4", [("theorem", "2.1"), ("lemma", "4")]),
        ("Theorems 1 and 2 hold", [("theorem", "1"), ("theorem", "2")]),
        ("Algorithm 1 shows the steps", [("algorithm", "1")]),
        # a sentence's lower-case words are no pointer
        ("for example 5 days later", []),
        ("the definition 2 of the term", []),
        # nor a relative pointer's word: "the following definitions" of a contract
        ("the following definitions apply", []),
    ],
)
def test_numbered_statements_are_read_by_their_own_label(text, want):
    got = [(r["kind"], r["ref_target"]) for r in find_references(text, relative=True)]
    assert got == want


def _paper():
    pages = [
        [
            ("II. PRELIMINARIES", "hebo", 11, 72),
            _p("Definition 1. A randomized mechanism M satisfies differential privacy if the"),
            _p("output distribution changes little when one record changes."),
            _p("Theorem 3. The Laplace mechanism satisfies differential privacy."),
            _p("Definition 3. The local sensitivity of a query f at a dataset D is the largest"),
            _p("change of f over the neighbours of D."),
            _p("3. EXPERIMENTS"),
        ],
        [
            ("IV. MECHANISM", "hebo", 11, 72),
            _p("The noise is adjusted to the local sensitivity (see Definition 3) of the query."),
            _p("By Theorem 3 the released value is private."),
        ],
    ]
    return parse_with_pymupdf(build_pdf(pages), "paper", layout_mode="never", ocr_mode="never")


def test_a_numbered_statement_resolves_to_the_line_that_states_it():
    tables = _paper()
    for anchor, line, want in [
        ("Definition 3", 2, "Definition 3. The local sensitivity"),
        ("Theorem 3", 3, "Theorem 3. The Laplace"),
    ]:
        res = resolve_in_tables(_ref(anchor, 2, line), tables, question=Q)
        assert res.status == "resolved", anchor
        first = res.passages[0].lines[0]
        assert first.page == 1 and first.text.startswith(want), anchor


def test_a_statement_label_over_a_blank_line_is_a_heading_list_not_a_pointer():
    # "Examples" closing one block, the next block opening with its section number
    assert [r["kind"] for r in find_references("Examples\n\n1.9 Scope of the guide")] == []
    # a reference broken over one line end is still read, and its label is the full word
    got = find_references("as shown by Proposition\n5 the noise")
    assert [(r["kind"], r["ref_target"], r["label_form"]) for r in got] == [("proposition", "5", "full")]


def test_a_definition_printed_with_the_fi_ligature_is_read():
    got = find_references("the local sensitivity LSf(D) (see De\ufb01nition 3). The ability")
    assert [(r["kind"], r["ref_target"]) for r in got] == [("definition", "3")]


def _abstract():
    pages = [
        [
            ("Section 22 Domestic Trade", "hebo", 14, 72),
            _p("Shopping centers by state are counted in Table 1045, retail sales in Table 1017."),
            _p("No. 1. No. 2. are the register's entries of the first two volumes."),
        ],
        [
            ("No. 1045. Shopping Centers\u2014Number and Gross Leasable Area by State: 2000", "hebo", 9, 72),
            _p("[A shopping center has at least four stores. Area in millions of square feet]"),
            _p("State        Number    Area"),
            _p("Alabama         412      61"),
            _p("Alaska           49       9"),
        ],
    ]
    return parse_with_pymupdf(build_pdf(pages), "abstract", layout_mode="never", ocr_mode="never")


def test_a_statistical_abstract_s_bold_table_number_is_its_table_caption():
    tables = _abstract()
    reg = tables.object_registry
    tabs = reg[reg["object_type"] == "table"]
    assert tabs["object_id"].astype(str).tolist() == ["1045"]
    assert tabs["label"].tolist() == ["Table 1045"] and int(tabs["page"].iloc[0]) == 2
    res = resolve_in_tables(_ref("Table 1045", 1, 2), tables, question=Q)
    assert res.status == "resolved"
    assert res.passages[0].lines[0].page == 2


def test_a_margin_line_number_after_a_statement_word_is_no_statement():
    # a line-numbered draft: "461 Example" / "462 the mapping ..."
    assert find_references("461 Example\n462 the mapping of the two phrases") == []
    assert [r["ref_target"] for r in find_references("see Example 2 and Theorem 12")] == ["2", "12"]
