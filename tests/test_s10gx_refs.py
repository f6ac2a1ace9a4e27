"""Session 10 (gx): references of the held-out families (tax instructions, contracts, NIST-style
guidelines), read by the grammar and resolved on generated PDFs.

Each case is a phrasing those families print; none names a file. A worksheet named by its title
is found by that title; a form's "Part II, line 5" is one reference; an item marker on the line
before ends the reference's enumeration; a reference read over a line end is not read again.
"""

from __future__ import annotations

import pytest

from docintel.parsing.crossrefs import extract_references
from docintel.parsing.pymupdf_backend import parse_with_pymupdf
from docintel.parsing.refpatterns import find_references, references_on_lines
from docintel.retrieval.resolve import resolve_in_tables
from tests.synthetic_pdf import build_pdf
from tests.test_ref_families_s6 import Q, _ref


def _rows(text: str) -> list[tuple]:
    return [(r["kind"], r["ref_type"], r["ref_target"], r["sub_selector"]) for r in find_references(text)]


EXT, S, A = "external", "section", "appendix"
GRAMMAR = [
    # tax instructions: a form's four-digit schedule, never a year
    ("attach Schedule 8812 to your return", [("schedule", A, "8812", None)]),
    ("Schedule 2019 rates apply", []),
    ("file Schedule K-1 with it", [("schedule", A, "K-1", None)]),
    # a worksheet named by its title, with or without its line
    (
        "Use the Credit Limit Worksheet to figure the credit.",
        [("worksheet", S, "Credit Limit Worksheet", None)],
    ),
    (
        "use the Qualified Dividends and Capital Gain Tax Worksheet, line 22, to figure",
        [("worksheet", S, "Qualified Dividends and Capital Gain Tax Worksheet", "line 22")],
    ),
    (
        "enter line 3 of the Credit Limit Worksheet on line 16",
        [("worksheet", S, "Credit Limit Worksheet", "line 3"), ("line", S, "16", None)],
    ),
    (
        "The Earned Income Credit (EIC) Worksheet",
        [("worksheet", S, "Earned Income Credit (EIC) Worksheet", None)],
    ),
    ("See Worksheet A.", [("worksheet", S, "A", None)]),  # a numbered one stays numbered
    # a part's line is one reference
    ("enter on Part II, line 5 the amount", [("part", S, "II", "line 5")]),
    # a regulation's appendix to a part is one reference
    ("Appendix A to Part 164 of the rule", [("appendix", A, "A", None)]),
    # another volume's unit is another document's
    ("See Volume II, Appendix C for the examples.", [("external_part", EXT, "Volume II", "Appendix C")]),
    ("see Vol. 2, Chapter 4", [("external_part", EXT, "Vol. 2", "Chapter 4")]),
    # a circular cited by its id alone, a unit cited in a compact or in the statute after it
    ("as analyzed in A-130, Appendix IV: Analysis", [("external_part", EXT, "A-130", "Appendix IV")]),
    ("see Table A-12, Appendix B", [("table", "table", "A-12", None), ("appendix", A, "B", None)]),
    (
        "South Platte River Compact, Art. VI(1), 44",
        [("external_part", EXT, "South Platte River Compact", "Art. VI")],
    ),
    ("Kansas-Oklahoma, Art. VII(A), 80 Stat. 1411.", [("stat", EXT, "80 Stat. 1411", "Art. VII(A)")]),
    # ... and what stays as it was
    ("Parts I-V of the report", [("part", S, r, None) for r in ("I", "II", "III", "IV", "V")]),
    ("see Part 2, Section 3", [("section", S, "3", None)]),
    ("complete Part III of Schedule D", [("schedule", A, "D", "Part III")]),
]


@pytest.mark.parametrize(("text", "want"), GRAMMAR)
def test_the_vocabulary_of_forms_contracts_and_volumes(text, want):
    assert _rows(text) == want


def _on_lines(*texts: str) -> list[list[tuple]]:
    lines = [(1, k + 1, t) for k, t in enumerate(texts)]
    return [[(r["ref_target"], r["sub_selector"]) for r in found] for _, found in references_on_lines(lines)]


def test_an_item_marker_on_the_line_before_ends_the_enumeration():
    got = _on_lines(
        "Seller shall (a) comply with the covenants set out in",
        "Section 4.01(a), and (b) pay all transfer taxes.",
    )
    assert got == [[], [("4.01", "paragraph (a)")]]
    # the line's own label opening the line before is no item of its sentence
    got = _on_lines("(a) the Buyer shall comply with", "Section 4(a) and (b) of the Plan.")
    assert got[1] == [("4", "paragraph (a)"), ("4", "paragraph (b)")]


def test_a_reference_read_over_the_line_end_is_not_read_again_alone():
    got = _on_lines("as OMB Circular", "A-130, Appendix III requires.")
    assert got == [[("OMB Circular A-130", "Appendix III")], []]


def test_a_list_item_on_the_next_line_does_not_finish_a_label():
    got = _on_lines("3 Requirements", "1) Specified in a FIPS or NIST Recommendation;")
    assert got == [[], []]


def test_a_plural_label_ending_the_line_takes_no_single_number_from_the_next():
    assert _on_lines("Derived Security Requirements", "3.14.4 Monitor security alerts") == [[], []]
    got = _on_lines("as set out in Sections", "3 and 4 of the Plan")
    assert got == [[("3", None), ("4", None)], []]
    assert _on_lines("as set out in Section", "4.2 of the Plan") == [[("4.2", None)], []]


def _p(text: str, size: float = 10, f: str = "helv") -> tuple:
    return (text, f, size, 72)


def _tax() -> object:
    pages = [
        [
            ("Instructions for Form 1040", "hebo", 14, "c"),
            _p("Line 16. Tax", f="hebo"),
            _p("Use the Qualified Dividends and Capital Gain Tax Worksheet, line 22, to figure"),
            _p("your tax. Also enter on Part II, line 5 the amount from line 3a."),
        ],
        [
            _p("Qualified Dividends and Capital Gain Tax Worksheet\u2014Line 16", 11, "hebo"),
            _p("1. Enter the amount from Form 1040, line 15."),
            _p("2. Enter the amount from Form 1040, line 3a."),
            _p("22. Tax on all taxable income. Enter the smaller of line 20 or line 21."),
            _p("Part II", 11, "hebo"),
            _p("4. Enter the amount of the credit."),
            _p("5. Enter the amount from line 3a of Form 1040."),
        ],
    ]
    return parse_with_pymupdf(build_pdf(pages), "tax", layout_mode="never", ocr_mode="never")


def _texts(res) -> list[str]:
    return [ln.text for p in res.passages for ln in p.lines]


def test_a_named_worksheet_line_is_that_line_of_the_worksheet():
    tables = _tax()
    res = resolve_in_tables(
        _ref("the Qualified Dividends and Capital Gain Tax Worksheet, line 22", 1, 3), tables, question=Q
    )
    assert res.status == "resolved"
    texts = _texts(res)
    assert texts[0].startswith("Qualified Dividends and Capital Gain Tax Worksheet")
    assert texts[1].startswith("22. Tax on all taxable income")


def test_a_part_line_is_that_line_of_the_part():
    tables = _tax()
    res = resolve_in_tables(_ref("Part II, line 5", 1, 4), tables, question=Q)
    assert res.status == "resolved"
    assert any(t.startswith("5. Enter the amount from line 3a") for t in _texts(res))
    assert not any(t.startswith("4. Enter") for t in _texts(res))


def test_parsed_lines_give_the_sentence_item_and_one_reference_per_mention():
    pages = [
        [
            _p("Section 4.02 Authority. Seller shall (a) comply with the covenants set out in"),
            _p("Section 4.01(a), and (b) pay all transfer taxes described in Section 6.03."),
        ]
    ]
    tables = parse_with_pymupdf(build_pdf(pages), "c", layout_mode="never", ocr_mode="never")
    refs = extract_references(tables.line_df, "c")
    got = [
        (r.ref_target, r.sub_selector if isinstance(r.sub_selector, str) else "")
        for r in refs.itertuples()
        if r.origin_line == 2
    ]
    assert got == [("4.01", "paragraph (a)"), ("6.03", "")]


def test_a_spaced_dash_ending_the_line_opens_a_title_not_a_range():
    got = _on_lines("U.S. Code, Title 44 \u2013 Public Printing, Chapter 35 \u2013", "44 U.S.C., Sec. 3541")
    assert [t for t, _ in got[0]] == ["35"]
    assert _on_lines("see pages 221\u2013", "222 of the report")[0] == [("221", None), ("222", None)]


def test_a_part_read_alone_that_names_another_target_stays():
    got = _on_lines("as specified in figure 10 to", "paragraph (i) of this AD are incorporated")
    assert got == [[("10", "paragraph (i)")], [("(i)", None)]]
