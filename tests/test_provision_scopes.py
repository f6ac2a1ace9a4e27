"""How contracts, rule books and tax instructions number their provisions, on generated PDFs:
schedules and exhibits with their own numbering, rules cited "Rule 12(b)(1)", form lines "Line 1a"."""

from __future__ import annotations

import pytest

from docintel.parsing.pymupdf_backend import parse_with_pymupdf

from .synthetic_pdf import build_pdf


def _toc(pages):
    doc = build_pdf(pages)
    return parse_with_pymupdf(doc, "gen", layout_mode="never", ocr_mode="never").toc_df.set_index("toc_id")


def _p(text: str, x: float = 72) -> tuple:
    return (text, "helv", 10, x)


CONTRACT = [
    [
        ("SERVICES AGREEMENT", "hebo", 16, "c"),
        ("1. DEFINITIONS", "hebo", 11),
        _p("1.1 In this Agreement the following words have these meanings:"),
        _p('(a) "Affiliate" means any entity that controls a party;', 90),  # base-14 fonts: no curly quotes
        _p("(b) 'Charges' means the fees set out in Schedule 1.", 90),
        _p("1.2 Headings do not affect interpretation of this Agreement."),
        ("2. SERVICES", "hebo", 11),
        _p("2.1 The Supplier shall provide the Services:"),
        _p("(a) with reasonable skill and care;", 90),
        _p("(b) in accordance with the Service Levels, and shall:", 90),
        _p("(i) report monthly; and", 110),
        _p("(ii) keep records.", 110),
        _p("2.2 Payment. The Customer shall pay the Charges within 30 days."),
        ("3. TERM", "hebo", 11),
        _p("3.1 This Agreement starts on the Effective Date."),
        _p("3.2 Either party may terminate on notice."),
    ],
    [
        ("SCHEDULE 1", "hebo", 12, "c"),
        ("CHARGES", "hebo", 12, "c"),
        ("1. FEES", "hebo", 11),
        _p("1.1 The monthly fee is set out in the order form."),
        _p("1.2 Fees rise each year by the index."),
        ("2. INVOICING", "hebo", 11),
        _p("2.1 The Supplier invoices monthly in arrears."),
    ],
    [
        ("EXHIBIT A", "hebo", 12, "c"),
        ("SERVICE LEVELS", "hebo", 12, "c"),
        _p("1. Availability. The Services are available 99.9% of the time."),
        _p("2. Response. The Supplier responds to incidents within one hour."),
    ],
]


@pytest.fixture(scope="module")
def contract():
    return _toc(CONTRACT)


def test_contract_clauses_nest_with_their_level_and_parent(contract):
    t = contract
    assert t.loc["2.1(b)(ii)"].parent_id == "2.1(b)" and t.loc["2.1(b)"].parent_id == "2.1"
    assert t.loc["2.1"].parent_id == "2" and t.loc["2.2"].title == "Payment"
    assert [t.loc[i].level for i in ("2", "2.1", "2.1(b)", "2.1(b)(i)")] == [1, 2, 3, 4]


def test_lettered_definitions_with_quoted_terms_are_paragraph_rows(contract):
    assert contract.loc["1.1(a)"].parent_id == "1.1" and contract.loc["1.1(b)"].parent_id == "1.1"


def test_a_one_line_sentence_is_no_title(contract):
    assert contract.loc["3.1"].title == ""  # "This Agreement starts on the Effective Date."


def test_a_schedule_numbers_its_clauses_afresh_under_its_own_row(contract):
    t = contract
    sched = t.loc["Schedule 1"]
    assert sched.title == "CHARGES" and "CHARGES" not in set(t.drop(index="Schedule 1").title)
    fees = t[t.title == "FEES"]
    assert len(fees) == 1 and fees.iloc[0].parent_id == "Schedule 1"
    # the schedule's "1.1" is a row of its own, a child of the schedule's "1. FEES", not clause 1.1
    inner = t[(t.number == "1.1") & (t.page_start == 2)]
    assert len(inner) == 1 and inner.iloc[0].parent_id == fees.index[0]
    assert t.loc["1.1"].page_start == 1 and t.loc["1.1"].parent_id == "1"


def test_an_exhibit_numbers_its_paragraphs_with_their_run_in_titles(contract):
    t = contract
    assert t.loc["Exhibit A"].title == "SERVICE LEVELS"
    assert t.loc["Exhibit A(1)"].title == "Availability" and t.loc["Exhibit A(2)"].parent_id == "Exhibit A"


def _rule(n: int, title: str, bold: bool) -> list[tuple]:
    head = (f"Rule {n}. {title}", "hebo", 11) if bold else _p(f"Rule {n}. {title}")
    return [
        head,
        _p("(a) SIGNATURE. Every pleading must be signed by an attorney of record."),
        _p("(b) REPRESENTATIONS. By presenting a pleading, an attorney certifies that:"),
        _p("(1) it is not presented for any improper purpose;", 90),
        _p("(2) the claims are warranted by existing law.", 90),
    ]


@pytest.mark.parametrize("bold", [True, False])
def test_a_rule_book_excerpt_cites_rule_paragraphs(bold):
    t = _toc(
        [
            [
                ("RULES OF PRACTICE", "hebo", 16, "c"),
                *_rule(11, "Signing Pleadings", bold),
                *_rule(12, "Defenses and Objections", bold),
            ]
        ]
    )
    assert (
        t.loc["Rule 11"].title == "Signing Pleadings" and t.loc["Rule 12"].title == "Defenses and Objections"
    )
    assert t.loc["Rule 12(b)(2)"].parent_id == "Rule 12(b)" and t.loc["Rule 12(b)"].parent_id == "Rule 12"


def test_an_untitled_keyword_number_mid_sequence_alone_is_no_provision():
    t = _toc(
        [
            [
                ("NOTES", "hebo", 14),
                _p("Rule 11 Applies to all filings made after the first hearing."),
                _p("More."),
            ]
        ]
    )
    assert "Rule 11" not in t.index


def test_tax_instruction_lines_are_keyword_rows():
    t = _toc(
        [
            [
                ("Instructions for the Form", "hebo", 16, "c"),
                ("Income", "hebo", 12),
                ("Line 1a", "hebo", 10),
                _p("Total amount from Form(s) W-2, box 1. Enter the total of your wages."),
                ("Line 1b", "hebo", 10),
                _p("Household employee wages not reported on Form(s) W-2."),
                ("Part II", "hebo", 12),
                _p("Line 8. Other income from Schedule 1, line 10. Enter the amount."),
                _p("Line 9. Add lines 1z, 2b and 8. This is your total income."),
            ]
        ]
    )
    assert {"Line 1a", "Line 1b", "Line 8", "Line 9"} <= set(t.index)
    assert t.loc["Line 1b"].parent_id == t.loc["Line 1a"].parent_id
    assert t.loc["Line 9"].parent_id == "II"


def _form_line(label: str, text: str, y: float) -> list[tuple]:
    """A form line: its label and description at the left, its answer box label at the right."""
    return [(text, "helv", 9, 96, y), (label, "hebo", 9, 480, 0.0)]


def test_a_forms_numbered_lines_are_line_rows_titled_by_their_description():
    lines = [("Income", "hebo", 11)]
    for label, text in [
        ("1a", "1 a Total amount from Form(s) W-2, box 1 (see instructions) . . . . . ."),
        ("1b", "b Household employee wages not reported on Form(s) W-2 . . . . . ."),
        ("2", "2 Add lines 1a and 1b. This is your total wages . . . . . ."),
        ("3", "3 Tax-exempt interest . . . . . . . . . ."),
    ]:
        lines += _form_line(label, text, 14.0)
    t = _toc([lines])
    assert t.loc["Line 1a"].title == "Total amount from Form(s) W-2, box 1"
    assert t.loc["Line 2"].title == "Add lines 1a and 1b"
    assert {t.loc[i].level for i in ("Line 1a", "Line 1b", "Line 2", "Line 3")} == {t.loc["Line 1a"].level}


def test_numbers_at_a_right_edge_that_no_description_repeats_are_no_form_lines():
    lines = [("Results", "hebo", 11)]
    for label, text in [
        ("4", "Total revenue for the year"),
        ("5", "Net income"),
        ("6", "Other items"),
        ("7", "All"),
    ]:
        lines += _form_line(label, text, 14.0)
    assert not any(str(i).startswith("Line ") for i in _toc([lines]).index)


def test_a_tables_figures_that_repeat_at_the_right_edge_are_no_form_lines():
    lines = [("Results", "hebo", 11)]
    for label, text in [
        ("33", "33 34 31 30 31"),
        ("12", "12 Births per year"),
        ("40", "40 Deaths"),
        ("7", "7 Moves"),
    ]:
        lines += _form_line(label, text, 14.0)
    assert not any(str(i).startswith("Line ") for i in _toc([lines]).index)


def test_a_definitions_list_is_rows_keyed_by_their_terms_with_their_points_under_them():
    t = _toc(
        [
            [
                ("1. DEFINITIONS", "hebo", 11),
                _p("1.1 In this Agreement:"),
                _p('"Affiliate" means any entity that controls a party;', 90),
                _p('"Charges" means:', 90),
                _p("(a) the fees in the order form; and", 110),
                _p("(b) the expenses the Customer approves;", 110),
                _p('"Term" means the term of this Agreement.', 90),
                _p("1.2 Headings do not affect interpretation."),
                _p('1.3 A reference to a party includes its successors. "Party" means a signatory.'),
                ("2. SERVICES", "hebo", 11),
                _p("2.1 The Supplier provides the Services."),
                _p('"Services" means the services in the order form, the Supplier says:', 90),
                _p("(a) hosting;", 110),
                _p("(b) support.", 110),
            ]
        ]
    )
    assert t.loc['1.1 "Affiliate"'].title == "" and t.loc['1.1 "Affiliate"'].parent_id == "1.1"
    assert t.loc["1.1(b)"].parent_id == '1.1 "Charges"' and t.loc['1.1 "Term"'].parent_id == "1.1"
    assert t.loc["1.2"].parent_id == "1"
    assert '2.1 "Services"' not in t.index  # one quoted term under a clause is prose, not a list
    assert t.loc["2.1(b)"].level == t.loc["2.1"].level + 1 and t.loc["2.1(b)"].parent_id == "2.1"
