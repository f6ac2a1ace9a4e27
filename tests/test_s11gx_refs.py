"""Session 11 (gx): references into contracts, rule books and tax instructions, parsed from
generated PDFs in those families' common styles."""

from __future__ import annotations

import pytest

from docintel.parsing.pymupdf_backend import parse_with_pymupdf
from docintel.parsing.refpatterns import find_references, references_on_lines
from docintel.retrieval.resolve import resolve_in_tables
from tests.synthetic_pdf import build_pdf
from tests.test_ref_families_s6 import Q, _ref


def _p(text: str) -> tuple:
    return (text, "helv", 10, 72)


def _closing_bracket_items():
    pages = [
        [
            ("SERVICES AGREEMENT", "hebo", 14, "c"),
            ("ARTICLE V", "hebo", 11, "c"),
            ("PAYMENT", "hebo", 11, "c"),
            _p("Section 5.01 Fees. The Client shall pay the Fees as follows:"),
            _p("1) the Client shall pay the setup fee within ten days of the Effective Date;"),
            _p("2) the Client shall pay the monthly fee in advance on the first day of each month;"),
            _p("3) late amounts bear interest at one percent per month."),
            _p("Section 5.02 Taxes. The Client shall bear all sales taxes. See Section 5.01(3)."),
            ("RULE 7. TIME LIMITS", "hebo", 11, 72),
            _p("1) A party shall serve its answer within 21 days after service of the complaint."),
            _p("2) A reply to a counterclaim is due within 21 days after service of the answer."),
            _p("3) The court may extend any period in subrule 2) for good cause. See Rule 7(2)."),
        ]
    ]
    return parse_with_pymupdf(build_pdf(pages), "svc", layout_mode="never", ocr_mode="never")


def test_a_paragraph_numbered_in_the_closing_bracket_style_is_the_reference_s_start():
    tables = _closing_bracket_items()
    for anchor, line, want in [
        ("Section 5.01(3)", 8, "3) late amounts"),
        ("Rule 7(2)", 12, "2) A reply to a counterclaim"),
    ]:
        res = resolve_in_tables(_ref(anchor, 1, line), tables, question=Q)
        assert res.status == "resolved", anchor
        # the item the reference names (not item 1): since session 12 (pv) the item is a toc row
        # of its own ("5.01(3)"), before it the passage was the provision's heading line, then the item
        lines = [ln.text for p in res.passages for ln in p.lines]
        items = [t for t in lines if t[:1].isdigit()]
        assert items and items[0].startswith(want), anchor


def _schedules():
    pages = [
        [
            ("ASSET PURCHASE AGREEMENT", "hebo", 14, "c"),
            ("ARTICLE II", "hebo", 11, "c"),
            ("PURCHASE AND SALE", "hebo", 11, "c"),
            _p("Section 2.01 Purchased Assets. Seller shall sell the assets listed on Schedule 2.1(a)"),
            _p("and the contracts listed on Schedule 2.1(b)."),
        ],
        [
            ("SCHEDULE 2.1(a)", "hebo", 12, "c"),
            ("PURCHASED EQUIPMENT", "hebo", 11, "c"),
            _p("1. Two forklifts, serial numbers 1123 and 1124."),
        ],
        [
            ("SCHEDULE 2.1(b)", "hebo", 12, "c"),
            ("ASSIGNED CONTRACTS", "hebo", 11, "c"),
            _p("1. Supply agreement with Acme dated March 1, 2020."),
        ],
    ]
    return parse_with_pymupdf(build_pdf(pages), "apa2", layout_mode="never", ocr_mode="never")


@pytest.mark.parametrize(
    "text, want",
    [
        ("the assets listed on Schedule 2.1(a).", [("appendix", "2.1(a)", None)]),
        ("Schedules 2.1(a) and 2.1(b)", [("appendix", "2.1(a)", None), ("appendix", "2.1(b)", None)]),
        ("see Exhibit 10.1(a)", [("appendix", "10.1(a)", None)]),
        ("under Section 2.1(a) of this Agreement", [("section", "2.1", "paragraph (a)")]),
        (
            "you must file Schedule SE and Schedule EIC.",
            [("appendix", "SE", None), ("appendix", "EIC", None)],
        ),
        ("Enter the amount from Schedule SE, line 6", [("appendix", "SE", "line 6")]),
        ("SCHEDULE OF FEES", []),
        ("to keep scripts from locking up the host and to schedule GC.", []),
        ("substances in schedule II of the Act", [("appendix", "II", None)]),
        ("see Schedule IV", [("appendix", "IV", None)]),
        # a disclosure schedule or letter is delivered apart from the agreement
        (
            "in Section 4.03 of the Disclosure Schedule, the",
            [("external", "Disclosure Schedule", "Section 4.03")],
        ),
        (
            "Section 3.2 of the Company Disclosure Letter",
            [("external", "Company Disclosure Letter", "Section 3.2")],
        ),
        ("as set forth in Section 4.03 of this Agreement", [("section", "4.03", None)]),
    ],
)
def test_schedules_named_after_a_provision_or_by_letters(text, want):
    got = [(r["ref_type"], r["ref_target"], r["sub_selector"]) for r in find_references(text)]
    assert got == want


def test_a_schedule_named_after_a_provision_resolves_to_its_own_heading():
    tables = _schedules()
    for anchor, line, page in [("Schedule 2.1(a)", 4, 2), ("Schedule 2.1(b)", 5, 3)]:
        res = resolve_in_tables(_ref(anchor, 1, line), tables, question=Q)
        assert res.status == "resolved", anchor
        assert res.passages[0].page == page and res.passages[0].lines[0].text.startswith("SCHEDULE 2.1"), (
            anchor
        )


def test_a_schedule_s_letters_are_never_read_from_the_next_line():
    lines = [
        (1, 1, "as the General Records Schedule"),
        (1, 2, "HEW and this guide provide that you attach Schedule SE."),
    ]
    got = {k: [r["ref_target"] for r in rows] for k, rows in references_on_lines(lines)}
    assert got == {0: [], 1: ["SE"]}


def test_a_roman_schedule_over_the_line_end_is_still_read():
    lines = [(1, 1, "substances listed in Schedule"), (1, 2, "II of the Act are controlled.")]
    got = {k: [r["ref_target"] for r in rows] for k, rows in references_on_lines(lines)}
    assert got == {0: ["II"], 1: []}
