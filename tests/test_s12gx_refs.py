"""Session 12 (gx): reference vocabulary across contracts, rule books and tax instructions.

Each test fails without its rule (checked against the tree at the session's branch point)."""

from __future__ import annotations

import pytest

from docintel.parsing.refpatterns import find_references
from docintel.retrieval.reflines import footnote_lines
from docintel.retrieval.resolve import resolve_in_tables
from docintel.schema.document import DocTables
from tests.test_ref_families_s6 import Q, _ref
from tests.test_resolve_general import build


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
    # imported here: the module imports on a tree without it, its other tests failing one by one
    from docintel.parsing.refnumbering import caps_letters

    assert caps_letters(s) is want


def _noted(notes_role: str = "footnote") -> DocTables:
    """A report whose page-2 notes lost their role (a damaged font: ``body``) while page 1's
    notes kept it: the notes are 8 pt under an 11 pt text, in the lower half of the page."""

    def line(page, n, text, role, size, y0):
        return {"page": page, "line": n, "text": text, "role": role, "size": size, "y0": y0}

    lines = [
        line(1, 1, "The old courts were abolished in 1918.", "body", 11.0, 100.0),
        line(1, 2, "1 TRIPP, A HISTORY OF IRAQ 8-13 (2000).", "footnote", 8.0, 700.0),
        line(2, 1, "The land law changed the system of tenure.", "body", 11.0, 100.0),
        line(2, 2, "57", "body", 6.0, 98.0),  # the superscript marker in the text
        line(2, 3, "57 Sabah Al Mukhtar, The Rule of Law in Iraq (2000).", notes_role, 8.0, 600.0),
        line(2, 4, "58 Vilayet is a Turkish term for a province.", notes_role, 8.0, 620.0),
        line(3, 1, "As the author wrote, supra note 57, the law held.", "body", 11.0, 100.0),
    ]
    pages = [{"page": p, "printed_label": str(p), "height": 792.0} for p in (1, 2, 3)]
    return build(lines, pages)


@pytest.mark.parametrize("role", ["footnote", "body"])
def test_a_footnote_whose_line_lost_its_role_is_found_by_its_print(role):
    res = resolve_in_tables(_ref("supra note 57", 3, 1), _noted(role), question=Q)
    texts = [ln.text for p in res.passages for ln in p.lines]
    assert res.status == "resolved" and texts[0].startswith("57 Sabah"), (res.status, texts)


def test_a_body_line_in_text_size_is_no_footnote():
    tables = _noted("body")
    tables.line_df.loc[tables.line_df["line"].isin([3, 4]) & (tables.line_df["page"] == 2), "size"] = 11.0
    assert footnote_lines(tables, "57", 3).empty


def _paper() -> DocTables:
    """An IEEE paper: its part headings "II. Background ..." are body lines in the text's size
    (small caps), the toc has none of them, and its reference list has an author "X. Xiao"."""
    rows = [
        (1, 1, "I. Introduction"),
        (1, 2, "We review the field (see Section III) and our results in Section V."),
        (2, 1, "II. Background on Differential Privacy"),
        (2, 2, "A mechanism is private when its output hides any one record."),
        (3, 1, "III. Related Work"),
        (3, 2, "Earlier work calibrates noise to the global sensitivity."),
        (4, 1, "IV. Individual differential privacy"),
        (4, 2, "We define the notion formally."),
        (4, 3, "A. Intuitive view of differential privacy"),
        (4, 4, "The intuition is that one record changes little."),
        (5, 1, "V. \u03f5-iDP for Numerical Queries"),
        (5, 2, "The mechanisms add noise scaled to the local sensitivity."),
        (6, 1, "X. Xiao, Privbayes: private data release via Bayes"),
        (6, 2, "VI. In the case of the median the noise is larger."),
    ]
    lines = [
        {"page": p, "line": n, "text": t, "role": "body", "size": 9.7, "y0": 100.0 + n} for p, n, t in rows
    ]
    return build(lines, [{"page": p, "printed_label": str(p), "height": 792.0} for p in range(1, 7)])


@pytest.mark.parametrize(
    "anchor, at",
    [("Section III", (3, 1)), ("Section V", (5, 1)), ("Section II", (2, 1)), ("Section IV-A", (4, 3))],
)
def test_a_roman_part_heading_in_body_type_resolves(anchor, at):
    res = resolve_in_tables(_ref(anchor, 1, 2), _paper(), question=Q)
    assert res.status == "resolved", (res.status, res.reason)
    assert (res.passages[0].page, res.passages[0].lines[0].line) == at


@pytest.mark.parametrize("anchor", ["Section X", "Section VI", "Section III-A"])
def test_a_roman_line_out_of_sequence_or_prose_is_no_heading(anchor):
    # "X. Xiao, ..." has no IX before nor XI after; "VI. In the case ... larger." is a sentence,
    # too long for a heading
    assert resolve_in_tables(_ref(anchor, 1, 2), _paper(), question=Q).status != "resolved"


@pytest.mark.parametrize(
    "text, want",
    [
        # a standard's citation keys: a section of the cited work, before or after its key (OASIS
        # SAML Core 2.0 line 3093 "as defined in [Schema2] Section 3.3.6"; RFC 6749 appendix B
        # "defined in Section 17.13.4 of [W3C.REC-html401-19991224]")
        ("as defined in [Schema2] Section 3.3.6.", [("external", "Schema2", "Section 3.3.6")]),
        (
            "defined in Section 17.13.4 of [W3C.REC-html401]",
            [("external", "W3C.REC-html401", "Section 17.13.4")],
        ),
        ("defined in Section 2.1 of [SAMLCore]", [("external", "SAMLCore", "Section 2.1")]),
        ("see [Schema2] for the types", [("bib", "Schema2", None)]),
        ("[Step 3]", [("section", "3", None)]),  # a bracketed step, no citation key
        ("see [3], Section 4 shows", [("bib", "3", None), ("section", "4", None)]),
        # another volume of a multi-volume work (NISTIR 8011 vol. 2); "this volume" is this one
        ("See Section 4.3.1 of Volume 1 of this NISTIR", [("external", "Volume 1", "Section 4.3.1")]),
        ("see Section 4 of this volume", [("section", "4", None)]),
        # the U.S. Code or the CFR named right before the section (SP 800-122, SP 800-34)
        ("44 U.S.C., Sec 3541", [("external", "Sec 3541", None)]),
        ("U.S.C. \u00a7 552a(a)(5).", [("external", "\u00a7 552a(a)(5)", None)]),
        ("As defined in 44 U.S. Code 35 Section 3542", [("external", "Section 3542", None)]),
        (
            "Title 36 Code of Federal Regulations Section 1236, Management",
            [("external", "Section 1236", None)],
        ),
        ("as set forth in Section 3542 of this Agreement", [("section", "3542", None)]),
    ],
)
def test_sections_of_cited_works_volumes_and_codes_are_external(text, want):
    assert _rows(text) == want


def test_a_top_level_section_numbered_n_point_0_is_section_n():
    # NIST CSF 1.0 prints "2.0 Framework Basics" and says "Section 2 describes the Framework"
    rows = [
        ("2.0 Framework Basics", "heading"),
        ("The Framework Core is a set of activities.", "body"),
        ("Section 2 describes the Framework components.", "body"),
    ]
    lines = [
        {"page": 1, "line": n, "text": t, "role": r, "bold": r == "heading", "size": 10.0, "y0": 100.0 + n}
        for n, (t, r) in enumerate(rows, 1)
    ]
    tables = build(lines, [{"page": 1, "printed_label": "1", "height": 792.0}])
    res = resolve_in_tables(_ref("Section 2", 1, 3), tables, question=Q)
    assert res.status == "resolved" and res.passages[0].lines[0].text == "2.0 Framework Basics", res.reason


@pytest.mark.parametrize(
    "text, want",
    [
        # a dash between a unit's paragraphs is their range (45 CFR 164.520(b)(1)(ii)(E) prints
        # "under \u00a7 164.508(a)(2)-(a)(4)"; the Tarrant slip opinion "\u00a7\u00a72.12(a)\u2013(e)")
        ("\u00a7 164.502(a)-(b)", ["paragraph (a)", "paragraph (b)"]),
        ("under \u00a7 164.508(a)(2)-(a)(4),", ["paragraph (a)(2)", "paragraph (a)(3)", "paragraph (a)(4)"]),
        ("\u00a7\u00a72.12(a)\u2013(c), id.", ["paragraph (a)", "paragraph (b)", "paragraph (c)"]),
        ("Rule 12(b)(1)-(3)", ["paragraph (b)(1)", "paragraph (b)(2)", "paragraph (b)(3)"]),
        # a range across levels is not read; a hyphenated word is no range
        ("Section 3(a)-(b)(2)", ["paragraph (a)"]),
        ("a Section 3(a)-based test", ["paragraph (a)"]),
    ],
)
def test_a_dash_between_paragraph_tags_is_their_range(text, want):
    assert [sub for _t, _id, sub in _rows(text)] == want


@pytest.mark.parametrize(
    "text, want",
    [
        # the 2025 Form 1040 line 13b: "Additional deductions from Schedule 1-A, line 38"
        ("Additional deductions from Schedule 1-A, line 38", [("appendix", "1-A", "line 38")]),
        ("Schedules 1-3", [("appendix", "1", None), ("appendix", "2", None), ("appendix", "3", None)]),
        ("Schedule K-1", [("appendix", "K-1", None)]),
        # IRS Pub. 505 numbers its worksheets per chapter ("Worksheet 1-1"): one worksheet, not two
        ("complete Worksheet 1-1.", [("section", "1-1", None)]),
        ("Worksheets 1 and 2", [("section", "1", None), ("section", "2", None)]),
    ],
)
def test_tax_schedules_and_worksheets_numbered_with_a_dash(text, want):
    assert _rows(text) == want
