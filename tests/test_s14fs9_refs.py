"""Session 14 set 9 review (fs9): the reference rules of s9 on documents they were not written on.

- "section 2 of the SSP" inside a "System Security Plan Template": the acronym is the document's
  own name less the word its kind adds ("Template", "Form"), so the pointer stays internal; the
  GNU GPL named inside the GNU Lesser GPL stays another work.
"""

from __future__ import annotations

from docintel.retrieval.resolve import resolve_in_tables
from tests.test_s14s9_refs import Q, _ref, _text, build


def _template(title: str, acronym: str) -> list[list]:
    return [
        [
            title,
            "1. Purpose. This document records the system's controls and their owners.",
            f"Each owner completes the system details in section 2 of the {acronym} before the review.",
            "2. System Information. The system name, its owner and its boundary are listed with the",
            "authorising official and the date the system was placed in operation.",
            "3. Controls. Every control in the baseline is described with its implementation status.",
        ]
    ]


def test_the_acronym_of_a_template_title_less_its_kind_is_the_documents_own():
    roles = {(1, 1): "title", (1, 2): "heading", (1, 4): "heading", (1, 6): "heading"}
    for title, acronym in [
        ("SYSTEM SECURITY PLAN TEMPLATE", "SSP"),
        ("BUSINESS ASSOCIATE AGREEMENT FORM", "BAA"),
    ]:
        doc = build(_template(title, acronym), roles)
        res = resolve_in_tables(_ref("section 2", 1, 3), doc, question=Q)
        assert res.status == "resolved", (title, res.reason)
        assert "authorising official" in _text(res)


def test_another_works_acronym_stays_external_under_a_long_title():
    lesser = [
        [
            "GNU LESSER GENERAL PUBLIC LICENSE",
            "4. Combined Works. Provide Installation Information, but only if required under",
            "section 6 of the GNU GPL for conveying Corresponding Source.",
            "5. Combined Libraries. You may place library facilities side by side.",
            "6. Revised Versions of the GNU Lesser General Public License. The Free Software",
        ]
    ]
    doc = build(lesser, {(1, 1): "title"})
    assert resolve_in_tables(_ref("section 6", 1, 3), doc, question=Q).status == "external"
    # "GLGP" (the title less its last word) is no acronym anyone writes for it; "GGP" neither
    for acronym in ("SSP", "GPL"):
        doc = build(_template("SECURITY ASSESSMENT REPORT TEMPLATE", acronym), {(1, 1): "title"})
        assert resolve_in_tables(_ref("section 2", 1, 3), doc, question=Q).status == "external"


CONSTITUTION = [
    [
        "4. The Developers by way of General Resolution or election",
        "4.1. Powers",
        "Together, the Developers may:",
        "1. Appoint or recall the Project Leader.",
        "2. Amend this constitution, provided they agree with a 3:1 majority.",
        "3. Make or override any decision authorised by the powers of the Project Leader or a",
        "Delegate.",
        "4. Make or override any decision authorised by the powers of the Technical Committee.",
        "4.2. Procedure",
        "The Developers follow the Standard Resolution Procedure, below. A resolution may be",
        "proposed under section 4.1(3) by any Developer.",
    ]
]


def test_an_item_numbered_with_a_full_stop_is_the_sub_selector():
    # "§4.1(3)": the "3." under "4.1. Powers" (items the parser keeps no provision row for)
    roles = {(1, 1): "heading", (1, 2): "heading", (1, 9): "heading"}
    res = resolve_in_tables(_ref("section 4.1(3)", 1, 11), build(CONSTITUTION, roles), question=Q)
    assert res.status == "resolved"
    lines = [ln.text for p in res.passages for ln in p.lines]
    assert lines[0] == "4.1. Powers"
    assert lines[1].startswith("3. Make or override"), lines[:3]


def test_a_full_stop_item_is_not_taken_under_parenthesised_paragraphs():
    # a section numbering its paragraphs "(1)", "(2)": a "3." further down is some list's 3
    doc = [
        [
            "4.1. Powers",
            "(1) The Developers may appoint or recall the Project Leader at any time.",
            "(2) The Developers may amend this constitution by a 3:1 majority.",
            "3. Make or override any decision authorised by the Project Leader.",
            "4.2. Procedure",
            "A resolution under section 4.1(3) is proposed by any Developer.",
        ]
    ]
    res = resolve_in_tables(
        _ref("section 4.1(3)", 1, 6), build(doc, {(1, 1): "heading", (1, 5): "heading"}), question=Q
    )
    lines = [ln.text for p in res.passages for ln in p.lines]
    assert not (len(lines) > 1 and lines[1].startswith("3. Make")), lines[:3]
