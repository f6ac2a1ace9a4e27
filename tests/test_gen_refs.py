"""Session 9 (gen): references of rule books and contracts resolved on generated PDFs.

A rule book keys "Rule 7.1 Disclosure Statement" by its bare number ("7.1", or an unnumbered
heading row when set bold); "Rule 7.1(b)" is that rule's paragraph (b), found by the number the
heading line prints after its keyword, never a "7.1" the line does not label so.
"""

from __future__ import annotations

import pytest

from docintel.parsing.pymupdf_backend import parse_with_pymupdf
from docintel.retrieval.resolve import resolve_in_tables
from tests.synthetic_pdf import build_pdf
from tests.test_ref_families_s6 import Q, _ref


def _p(text: str, x: float = 72, size: float = 10, f: str = "helv") -> tuple:
    return (text, f, size, x)


def _rule_book(head: str, font: str) -> list:
    second = head.replace("7.1", "7.2").replace("Disclosure Statement", "Motions")
    return [
        [
            ("LOCAL RULES OF PRACTICE", "hebo", 14, "c"),
            _p(head, f=font),
            _p("(a) Who Must File. A nongovernmental corporate party must file a statement."),
            _p("(b) Time to File. A party must file the statement with its first appearance."),
            _p(second.replace("DISCLOSURE STATEMENT", "MOTIONS"), f=font),
            _p("(a) Form. A motion must be in writing unless made during a hearing or trial."),
            _p("(b) Response. A party opposing a motion must respond within 14 days of service."),
        ]
    ]


@pytest.mark.parametrize(
    ("head", "font"),
    [
        ("Rule 7.1 Disclosure Statement", "helv"),  # a provision keyed "7.1"
        ("Rule 7.1. Disclosure Statement", "helv"),
        ("Rule 7.1 Disclosure Statement", "hebo"),  # an unnumbered heading row
        ("RULE 7.1 DISCLOSURE STATEMENT", "hebo"),
    ],
)
def test_a_keyword_decimal_rule_paragraph_is_the_paragraph_of_that_rule(head, font):
    tables = parse_with_pymupdf(
        build_pdf(_rule_book(head, font)), "gen", layout_mode="never", ocr_mode="never"
    )
    res = resolve_in_tables(_ref("Rule 7.1(b)", 1, 7), tables, question=Q)
    assert res.status == "resolved"
    assert res.passages[0].lines[0].text.startswith("(b) Time to File")
    res = resolve_in_tables(_ref("Rule 7.2(a)", 1, 3), tables, question=Q)
    assert res.status == "resolved"
    assert res.passages[0].lines[0].text.startswith("(a) Form.")


def _rows(text: str) -> list[tuple]:
    from docintel.parsing.refpatterns import find_references

    return [(r["kind"], r["ref_type"], r["ref_target"], r["sub_selector"]) for r in find_references(text)]


EXT, S = "external", "section"
GRAMMAR = [
    # a statute printed with an en dash (GPO style) is the same public law / code section
    (
        "section 1903(a) of Public Law 101\u2013647 by",
        [("public_law", EXT, "Public Law 101-647", "section 1903(a)")],
    ),
    ("Pub. L. 115\u201397, sec. 11022", [("public_law", EXT, "Pub. L. 115-97", "sec. 11022")]),
    ("42 U.S.C. 300j\u20134 applies", [("usc", EXT, "42 U.S.C. 300j-4", None)]),
    # an Act named before the section it cites
    (
        "E-Government Act of 2002, Section 208",
        [("external_part", EXT, "E-Government Act of 2002", "Section 208")],
    ),
    ("Sarbanes-Oxley Act, Section 404", [("external_part", EXT, "Sarbanes-Oxley Act", "Section 404")]),
    # a rule or section made under an Act
    ("Rule 144 under the Securities Act", [("external_part", EXT, "Securities Act", "Rule 144")]),
    ("Section 16(b) under the Exchange Act", [("external_part", EXT, "Exchange Act", "Section 16(b)")]),
    # ... but this document's own units stay internal
    ("this Act, section 5", [("section", S, "5", None)]),
    ("in accordance with the Plan, Section 4.2 applies", [("section", S, "4.2", None)]),
    ("Section 4.2 under this Agreement", [("section", S, "4.2", None)]),
    ("Rule 7.1(a) of the Local Rules", [("rule", S, "7.1", "paragraph (a)")]),
    ("Rule 5 of these Rules", [("rule", S, "5", None)]),
    # an Act named after the section wins over one named before it
    (
        "Privacy Act of 1974, Section 208 of the E-Government Act",
        [("external_part", EXT, "E-Government Act", "Section 208")],
    ),
    # a court's rule book names its rules by their set; a named rule (a regulation's title) is no rule number
    ("as required by Local Rule 7.1, counsel", [("rule", S, "7.1", None)]),
    ("under Civil Rule 16.1(b) the parties", [("rule", S, "16.1", "paragraph (b)")]),
    ("the HIPAA Security Rule 5", []),
    # a court rule's paragraph
    ("as provided in subdivision (b)(2) of this rule", [("subsection", S, "(b)", "paragraph (2)")]),
]


@pytest.mark.parametrize(("text", "want"), GRAMMAR)
def test_statutes_and_acts_around_a_provision(text, want):
    assert _rows(text) == want


ROMAN_PATHS = [
    # a lettered subsection of a roman part is one id, never the part and a letter
    ("Sections V-A and V-B", [("section", S, "V-A", None), ("section", S, "V-B", None)]),
    ("see Section IV-A for details", [("section", S, "IV-A", None)]),
    ("Section II.B.3 applies", [("section", S, "II.B.3", None)]),
    ("Part II-A of the schedule", [("part", S, "II-A", None)]),
    # ... while a roman range is still a range and a roman id before a sentence stays alone
    ("Parts I-V of the report", [("part", S, r, None) for r in ("I", "II", "III", "IV", "V")]),
    ("in Section VI. A stronger bound", [("section", S, "VI", None)]),
]


@pytest.mark.parametrize(("text", "want"), ROMAN_PATHS)
def test_roman_letter_paths(text, want):
    assert _rows(text) == want


def _program() -> object:
    from tests.test_ref_families_s6 import build_rows

    body = [
        (1, 1, "II. PROGRAM REQUIREMENTS", "heading", "II"),
        (1, 2, "A. Eligibility", "heading", "A"),
        (1, 3, "1. Applicants must be residents.", "body", "1"),
        (1, 4, "B. Reporting", "heading", "B"),
        (1, 5, "1. Grantees report each quarter.", "body", "1~2"),
        (1, 6, "2. Reports follow Section II.B.1 and Section II-A.", "body", "2"),
        (1, 7, "III. PAYMENT", "heading", "III"),
        (1, 8, "A. Schedule", "heading", "A~2"),
        (1, 9, "2. Payment is monthly.", "body", "2~2"),
    ]
    rows = [
        ("II", "II.", "PROGRAM REQUIREMENTS", 1, None, 1, 1),
        ("A", "A.", "Eligibility", 2, "II", 1, 2),
        ("1", "1.", "", 3, "A", 1, 3),
        ("B", "B.", "Reporting", 2, "II", 1, 4),
        ("1~2", "1.", "", 3, "B", 1, 5),
        ("2", "2.", "", 3, "B", 1, 6),
        ("III", "III.", "PAYMENT", 1, None, 1, 7),
        ("A~2", "A.", "Schedule", 2, "III", 1, 8),
        ("2~2", "2.", "", 3, "A~2", 1, 9),
    ]
    return build_rows(body, rows)


@pytest.mark.parametrize(
    ("raw", "line"),
    [("Section II.B.1", 5), ("Section II-A", 2), ("Section III.A.2", 9)],
)
def test_a_roman_letter_path_descends_the_levels_the_document_numbers_alone(raw, line):
    res = resolve_in_tables(_ref(raw, 1, 6), _program(), question=Q)
    assert res.status == "resolved" and res.passages[0].lines[0].line == line


def test_a_roman_letter_path_the_document_lacks_is_not_another_unit():
    assert resolve_in_tables(_ref("Section III.B", 1, 6), _program(), question=Q).status == "unresolved"
