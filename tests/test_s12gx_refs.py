"""Session 12 (gx): reference vocabulary across contracts, rule books and tax instructions.

Each test fails without its rule (checked against the tree at the session's branch point)."""

from __future__ import annotations

import pytest

from docintel.parsing.refnumbering import caps_letters
from docintel.parsing.refpatterns import find_references


def _rows(text: str) -> list[tuple]:
    return [(r["ref_type"], r["ref_target"], r["sub_selector"]) for r in find_references(text)]


@pytest.mark.parametrize(
    "text, want",
    [
        # a disclosure schedule is delivered apart from the agreement and numbered after its
        # sections, whatever case it is printed in and however many words name it
        ("SECTION 4.03 OF THE DISCLOSURE SCHEDULE", [("external", "DISCLOSURE SCHEDULE", "SECTION 4.03")]),
        ("Section 4.03 of the disclosure schedule", [("external", "disclosure schedule", "Section 4.03")]),
        (
            "Section 4.03 of the Amended and Restated Seller Disclosure Schedule",
            [("external", "Amended and Restated Seller Disclosure Schedule", "Section 4.03")],
        ),
        ("Section 4.03, of the Disclosure Schedule", [("external", "Disclosure Schedule", "Section 4.03")]),
        # the agreement's own sections stay this document's
        ("Section 4.03 of this Agreement", [("section", "4.03", None)]),
        ("Section 4.03 of the Agreement and the Disclosure Schedule", [("section", "4.03", None)]),
    ],
)
def test_disclosure_schedules_in_any_case_and_name(text, want):
    assert _rows(text) == want


@pytest.mark.parametrize(
    "s, want", [("SE", True), ("EIC", True), ("II", False), ("XIV", False), ("A", False), ("ABCD", False)]
)
def test_caps_letters_is_two_or_three_capitals_not_roman(s, want):
    assert caps_letters(s) is want
