"""Session 11 (fxg): the review of gx's reference grammar: a tax schedule's capitals after "see" /
"the", capitals that are words, a schedule over the line end, and "3)" items nested in a paragraph."""

from __future__ import annotations

import pytest

from docintel.parsing.pymupdf_backend import parse_with_pymupdf
from docintel.parsing.refpatterns import find_references, references_on_lines
from docintel.retrieval.resolve import resolve_in_tables
from docintel.retrieval.targets import opens_item
from tests.synthetic_pdf import build_pdf
from tests.test_ref_families_s6 import Q, _ref


def _targets(text: str) -> list:
    return [r["ref_target"] for r in find_references(text)]


@pytest.mark.parametrize(
    "text, want",
    [
        ("see Schedule SE, line 6", ["SE"]),
        ("For details, see Schedule EIC.", ["EIC"]),
        ("the Schedule SE", ["SE"]),
        ("in Schedule AB for details", ["AB"]),
        # a word in capitals is no schedule's letters: the unnumbered reading stays
        ("the Schedule OR the Exhibit", [None]),
        ("see Schedule A", ["A"]),
        ("see Schedule II", ["II"]),
    ],
)
def test_a_schedule_s_capitals_after_see_or_the_are_its_letters(text, want):
    assert _targets(text) == want


@pytest.mark.parametrize(
    "text, want",
    [
        ("Schedules A, B, AND C", ["A", "B"]),
        ("Schedule C-EZ", ["C"]),
        ("Parent shall file a Tender Offer Statement on Schedule TO", []),
        ("Schedule TBD", []),
        ("Schedule IT maintenance windows on weekends.", []),
        ("Schedule AM and PM shifts.", []),
        ("Schedule US persons first.", []),
        # a sentence naming the schedule keeps it
        ("Schedule SE is filed with the return.", ["SE"]),
        ("You must file Schedule SE and Schedule EIC.", ["SE", "EIC"]),
    ],
)
def test_capitals_that_are_words_or_a_verb_s_object_are_no_schedule(text, want):
    assert _targets(text) == want


def test_a_schedule_list_over_the_line_end_keeps_the_ids_on_its_own_line():
    for lines, want in [
        ([(1, 1, "you must attach Schedule SE,"), (1, 2, "line 6.")], ["SE"]),
        ([(1, 1, "see Schedules SE and"), (1, 2, "EIC for more")], ["SE"]),
    ]:
        got = {k: [r["ref_target"] for r in rows] for k, rows in references_on_lines(lines)}
        assert got[0] == want, lines


def _nested_items():
    p = lambda text: (text, "helv", 10, 72)  # noqa: E731
    pages = [
        [
            ("SERVICES AGREEMENT", "hebo", 14, "c"),
            ("ARTICLE V", "hebo", 11, "c"),
            ("PAYMENT", "hebo", 11, "c"),
            p("Section 5.01 Fees. The Client shall pay the Fees as follows:"),
            p("(a) the setup fee, in three instalments:"),
            p("1) one third on signing;"),
            p("2) one third on delivery;"),
            p("3) one third on acceptance;"),
            p("(b) the monthly fee in advance."),
            p("Section 5.02 Taxes. The Client shall bear all sales taxes as follows:"),
            p("1) sales taxes on the setup fee;"),
            p("2) sales taxes on the monthly fee;"),
            p("3) any use taxes."),
            p("Section 5.04 Disputes. The parties shall first negotiate."),
        ]
    ]
    return parse_with_pymupdf(build_pdf(pages), "items", layout_mode="never", ocr_mode="never")


def test_a_3_item_nested_under_a_paragraph_is_not_the_section_s_item_3():
    tables = _nested_items()
    for anchor, want in [
        # 5.01 prints its own "(a)"/"(b)": its "(3)" is no "3)" nested under (a)
        ("Section 5.01(3)", "(a) the setup fee"),
        ("Section 5.01(a)(3)", "3) one third on acceptance"),
        ("Section 5.02(3)", "3) any use taxes"),
    ]:
        res = resolve_in_tables(_ref(anchor, 1, 14), tables, question=Q)
        assert res.status == "resolved", anchor
        lines = [ln.text for p in res.passages for ln in p.lines]
        # the provision's heading line, then the item; since session 12 (pv) a "3)" item under a
        # provision is a toc row of its own and the passage is the item alone
        body = lines[1:] if lines[0].startswith("Section") else lines
        assert body[0].startswith(want), (anchor, lines[:3])


def test_an_item_bracket_followed_by_a_tab_or_no_break_space_opens_the_item():
    assert opens_item("3)\tlate amounts", "3")
    assert opens_item("3)\u00a0late amounts", "3")
    assert not opens_item("3)x", "3")
    assert not opens_item("3) late", "3", closing=False)
