"""Reference families, session 8: security control ids ("AC-2(3)", "Related controls: AC-3,
PM-9") resolved to the control's heading where the document prints the catalogue and named as
the catalogue's elsewhere; numbers spelled out ("Chapter Three"); a process guide's tasks
("Task 1-3"); ids closed by a capital letter ("§ 105.12A(B)(1)", "paragraph 3H"); a rule numbered
within its section ("Rule 10b-5"); "sub- section (c)" hyphenated over a line end; "subclause".
"""

from __future__ import annotations

import pytest

from docintel.parsing.refpatterns import find_references
from docintel.retrieval.resolve import resolve_in_tables
from tests.test_ref_families_s6 import Q, _ref, build

S = "section"


def kinds(text: str) -> list[tuple[str, str, str | None, str | None]]:
    return [(r["kind"], r["ref_type"], r["ref_target"], r["sub_selector"]) for r in find_references(text)]


CASES = [
    # standards and guidelines: a catalogue's control ids, alone or in a list, with enhancements
    ("information. Related controls: AC-3, AC-18, PM-9.", [
        ("control", S, "AC-3", None), ("control", S, "AC-18", None), ("control", S, "PM-9", None),
    ]),
    ("the organization employs AC-2(3) to", [("control", S, "AC-2", "enhancement (3)")]),
    ("MOD AC-2 (1) (2)", [("control", S, "AC-2", "enhancement (1)"), ("control", S, "AC-2", "enhancement (2)")]),
    ("accomplished by control AC- 3.", [("control", S, "AC-3", None)]),
    ("controls AC-3 and AC-5", [("control", S, "AC-3", None), ("control", S, "AC-5", None)]),
    ("the security control SC-7 protects", [("control", S, "SC-7", None)]),
    ("as required by [AC-2].", [("control", S, "AC-2", None)]),
    ("discovered [Ref. SA-19].", [("control", S, "SA-19", None)]),  # the id inside its own bracket
    # a catalogue's controls named after it: one external reference, the controls its part
    ("NIST SP 800-53 Rev. 4 CA-2, CA-7, PM-14", [("nist_sp", "external", "NIST SP 800-53 Rev. 4", "CA-2, CA-7, PM-14")]),
    # guidelines: a chapter numbered in words, a task of a process
    ("as described in Chapter Three, the", [("chapter", S, "3", None)]),
    ("CHAPTER TWO", [("chapter", S, "2", None)]),
    ("Part Two and Article Seventeen", [("part", S, "2", None), ("article", S, "17", None)]),
    ("see Section One of this Agreement", [("section", S, "1", None)]),
    ("in accordance with Task 1-3 guidance", [("task", S, "1-3", None)]),
    ("TASK P-3 Identify stakeholders", [("task", S, "P-3", None)]),
    ("RMF Tasks 4-1 through 4-3", [("task", S, "4-1", None), ("task", S, "4-2", None), ("task", S, "4-3", None)]),
    # statutes, court opinions, contracts: an id closed by a capital letter
    ("pact.” §105.12A(B)(1). A separate", [("section", S, "105.12A", "paragraph (B)(1)")]),
    ("covered under paragraph 3H.", [("paragraph", S, "3H", None)]),
    ("subject to Section 2A hereof", [("section", S, "2A", None)]),
    # rule books: a rule numbered within its section is one rule
    ("liability under Rule 10b-5 and", [("rule", S, "10b-5", None)]),
    ("excluded under Rule 14a-8(i)(7)", [("rule", S, "14a-8", "paragraph (i)(7)")]),
    ("E, Section 300j-4(d)(1)). Systems", [("section", S, "300j-4", "paragraph (d)(1)")]),
    ("MSRB Rule G-17 applies", [("rule", S, "G-17", None)]),
    ("Rule 3-05 of Regulation S-X", [("rule", S, "3-05", None)]),
    ("Rules 4-6 apply", [("rule", S, "4", None), ("rule", S, "5", None), ("rule", S, "6", None)]),
    ("Rule 15c3-3 requires", [("rule", S, "15c3-3", None)]),
    # a body's rule named by its acronym (kept; "the HIPAA Security Rule" is a name, below)
    ("suitable under FINRA Rule 2111 and", [("rule", S, "2111", None)]),
    ("FINRA Rules 2111 and 2090", [("rule", S, "2111", None), ("rule", S, "2090", None)]),
    # contracts, statutes: the other sub-units of a unit after a full id ("Section 3(a) and (b)")
    ("pursuant to Sections 5.1(a) and (b)", [("section", S, "5.1", "paragraph (a)"), ("section", S, "5.1", "paragraph (b)")]),
    ("Article 6(1)(a) through (c)", [
        ("article", S, "6", "paragraph (1)(a)"), ("article", S, "6", "paragraph (1)(b)"),
        ("article", S, "6", "paragraph (1)(c)"),
    ]),
    ("Section 3(a) and (2)", [("section", S, "3", "paragraph (a)")]),  # another shape: a new list
    ("Section 3(a) and (b) of this Agreement", [("section", S, "3", "paragraph (a)"), ("section", S, "3", "paragraph (b)")]),
    ("Section 5.1(a), (b) or (c) hereof", [
        ("section", S, "5.1", "paragraph (a)"), ("section", S, "5.1", "paragraph (b)"),
        ("section", S, "5.1", "paragraph (c)"),
    ]),
    ("under Section 3(a) and/or (b) above", [("section", S, "3", "paragraph (a)"), ("section", S, "3", "paragraph (b)")]),
    ("paragraphs (a), (b), and (c).", [("paragraph", S, "(a)", None), ("paragraph", S, "(b)", None), ("paragraph", S, "(c)", None)]),
    ("Article 22(1) and (4) and, at least in those cases", [
        ("article", S, "22", "paragraph (1)"), ("article", S, "22", "paragraph (4)"),
    ]),
    ("§ 164.530(b) and (j)\nof this section", [
        ("section", S, "164.530", "paragraph (b)"), ("section", S, "164.530", "paragraph (j)"),
    ]),
    ("under §§5.05(b)(2) and (3) suggest that", [  # a plural label: the list, a verb after it
        ("section", S, "5.05", "paragraph (b)(2)"), ("section", S, "5.05", "paragraph (b)(3)"),
    ]),
    ("Section 3(a) and (j) with respect to the requirements", [
        ("section", S, "3", "paragraph (a)"), ("section", S, "3", "paragraph (j)"),
    ]),
    # a contract's own list around a reference: the sentence's items, not the section's paragraphs
    ("The Contractor shall (a) comply with Section 4(a), and (b) pay all fees when due.",
     [("section", S, "4", "paragraph (a)")]),
    ("The Licensee shall (i) observe Section 2(i), (ii) keep records", [("section", S, "2", "paragraph (i)")]),
    ("the Buyer shall (1) pay under Section 5(1) and (2) deliver goods", [("section", S, "5", "paragraph (1)")]),
    # no enumeration of the sentence's own before it: the reference's list, a verb after it or not
    ("Section 3(a) and (b) apply to the Licensee.", [
        ("section", S, "3", "paragraph (a)"), ("section", S, "3", "paragraph (b)"),
    ]),
    ("§ 164.514(a) and (b) is considered", [
        ("section", S, "164.514", "paragraph (a)"), ("section", S, "164.514", "paragraph (b)"),
    ]),
    # contracts: a provision of an attachment is the attachment's, numbered on its own
    ("as set out in paragraph 2 of Schedule 3", [("schedule", "appendix", "3", "paragraph 2")]),
    ("Section 4.2 of Exhibit B", [("exhibit", "appendix", "B", "Section 4.2")]),
    ("Article 3 of Annex II", [("annex", "annex", "II", "Article 3")]),
    # bills and contracts: a sub-unit hyphenated over a line end, a subclause
    ("to the program under sub- section (c); and", [("subsection", S, "(c)", None)]),
    ("as provided in subclause (B)(ii)", [("subsection", S, "(B)", "paragraph (ii)")]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[c[0][:40] for c in CASES])
def test_family_phrasing_parses(text, expected):
    assert kinds(text) == expected


NOT_REFERENCES = [
    "PM-10 concentrations rose in the valley",  # an air-quality measure, not a control
    "PM-10",  # a table's row label alone: the loop would name it as another document's control
    "PM-10 Monitoring Station 4 readings",  # an id opening a line before a capital: not a heading
    "SC-28 Seal kit, rubber",  # a parts list
    "CA-1 Federal Employee's Notice of Traumatic Injury",  # a form catalogue
    "AC-3 ACCESS ENFORCEMENT",  # a control's own heading: read by the labelled index, no reference
    "Maersk Line A/S, DK-1098 Copenhagen",
    "Part no. PE-12 was replaced",
    "a multi-task 93.0 score",  # a compound word before the number
    "in chapter one we",  # a spelled number is capitalized as a label's id is printed
    "Section Two-thirds of the",
    "Tasks\n1. The supervisory authority",  # a heading, then a paragraph's number
    "the CPR Rules 1998 apply",  # a title's year, even after an acronym
    "the HIPAA Security Rule 5",  # a named rule set, then a heading's number
]


@pytest.mark.parametrize("text", NOT_REFERENCES)
def test_prose_is_not_a_reference(text):
    assert kinds(text) == []


def test_a_citation_bracket_near_a_code_makes_no_control():
    # "[3]" is the citation it is; "PM-10" is a measure
    assert kinds("Concentrations of PM-10 [3] rose sharply in 2019.") == [("bibliography", "bib", "3", None)]


# --- resolution -------------------------------------------------------------------------------


def _catalogue(cited_only: bool = False):
    """A control catalogue: a baseline table listing the controls, then each control under its
    bold heading ("AC-2" / "ACCOUNT MANAGEMENT") with numbered enhancements; ``cited_only``: a
    guide that only cites the controls (no headings)."""
    lines = [
        (1, 1, "Baseline summary", "heading", False),
        (1, 2, "AC-2", "table", False),
        (1, 3, "AC-3", "table", False),
        (1, 4, "Access is managed as AC-2(2) requires. Related controls: AC-3, AU-4.", "body", False),
        (2, 1, "AC-2", "body", True),
        (2, 2, "ACCOUNT MANAGEMENT", "body", True),
        (2, 3, "Control: The organization manages information system accounts.", "body", False),
        (2, 4, "Control Enhancements:", "body", False),
        (2, 5, "(1) The organization employs automated mechanisms.", "body", False),
        (2, 6, "(2) The information system terminates temporary accounts.", "body", False),
        (3, 1, "AC-3", "body", True),
        (3, 2, "ACCESS ENFORCEMENT", "body", True),
        (3, 3, "Control: The information system enforces approved authorizations.", "body", False),
    ]
    if cited_only:
        lines = [x if x[0] == 1 else (x[0], x[1], x[2], x[3], False) for x in lines if x[0] == 1 or x[1] > 2]
    rows = [{"page": p, "line": ln, "text": t, "role": r, "bold": b} for p, ln, t, r, b in lines]
    return build(rows, [])


def test_a_control_resolves_to_its_heading_not_the_baseline_table():
    res = resolve_in_tables(_ref("AC-3", 1, 4), _catalogue(), question=Q)
    assert res.status == "resolved"
    first = res.passages[0].lines[0]
    assert (first.page, first.line) == (3, 1)
    assert any("enforces approved authorizations" in ln.text for p in res.passages for ln in p.lines)


def test_a_control_enhancement_is_read_inside_its_control():
    res = resolve_in_tables(_ref("AC-2(2)", 1, 4), _catalogue(), question=Q)
    assert res.status == "resolved" and res.sub_selector == "enhancement (2)"
    texts = [ln.text for p in res.passages for ln in p.lines]
    assert texts[0] == "AC-2" and any(t.startswith("(2) The information system terminates") for t in texts)
    assert not any(t.startswith("(1)") for t in texts)  # the enhancement asked for, not the first


def test_a_control_the_document_does_not_print_is_the_catalogues():
    tables = _catalogue(cited_only=True)
    for raw in ("AC-3", "AU-4"):
        res = resolve_in_tables(_ref(raw, 1, 4), tables, question=Q)
        assert res.status == "external", raw
    res = resolve_in_tables(_ref("AU-4", 1, 4), _catalogue(), question=Q)
    assert res.status == "external"  # the catalogue prints AC-2 and AC-3, not AU-4


def test_a_chapter_numbered_in_words_reaches_its_heading():
    rows = [
        {"page": 1, "line": 1, "text": "Chapter Two describes the method.", "role": "body"},
        {"page": 2, "line": 1, "text": "CHAPTER TWO", "role": "heading"},
        {"page": 2, "line": 2, "text": "THE METHOD", "role": "heading"},
        {"page": 2, "line": 3, "text": "The method has three steps.", "role": "body"},
    ]
    res = resolve_in_tables(_ref("Chapter Two", 1, 1), build(rows, []), question=Q)
    assert res.status == "resolved" and res.target_pages == [2]


def test_a_task_is_the_heading_that_opens_it_not_the_nearest_mention():
    rows = [
        {
            "page": 1,
            "line": 1,
            "text": "TASK 1-3: Register the system with the program office.",
            "role": "heading",
        },
        {"page": 1, "line": 2, "text": "Registration informs the organization.", "role": "body"},
        {"page": 5, "line": 1, "text": "Task 1-3 Register the system (summary row)", "role": "table"},
        {"page": 5, "line": 2, "text": "as Task 1-3 requires, the owner registers.", "role": "body"},
    ]
    res = resolve_in_tables(_ref("Task 1-3", 5, 2), build(rows, []), question=Q)
    assert res.status == "resolved" and res.target_pages == [1]


def test_a_body_rule_the_document_does_not_print_is_that_bodys():
    rows = [
        {"page": 1, "line": 1, "text": "Rule 10. Scope", "role": "heading"},
        {"page": 1, "line": 2, "text": "Members follow FINRA Rule 2111 and Rule 10.", "role": "body"},
    ]
    tables = build(rows, [])
    assert resolve_in_tables(_ref("FINRA Rule 2111", 1, 2), tables, question=Q).status == "external"
    rows.append({"page": 2, "line": 1, "text": "Rule 2111. Suitability", "role": "heading"})
    res = resolve_in_tables(_ref("FINRA Rule 2111", 1, 2), build(rows, []), question=Q)
    assert res.status == "resolved" and res.target_pages == [2]  # the rule book prints it: its own


def _unlisted_section():
    """A rule section the toc misses: its heading, then (a) with a nested roman (i), then (b) ...
    (i) lettered; then the next section's heading and its own (e)."""
    texts = [
        "§ 5.14 Other requirements.",
        "(a) Standard: scope.",
        "(1) First.",
        "(i) A nested roman item, not paragraph (i).",
        *[f"({c}) Paragraph {c} of 5.14." for c in "bcdefgh"],
        "(i) Lettered paragraph (i) of 5.14.",
        "(1) Its first item.",
        "(2) Its second item.",
        "(i) Documentation of the second item.",
        "§ 5.16 Next section.",
        "(e) Paragraph e of 5.16.",
    ]
    rows = [{"page": 1, "line": k, "text": t, "role": "heading" if t.startswith("§") else "body"}
            for k, t in enumerate(texts, 1)]  # fmt: skip
    return build(rows, [])


def test_a_paragraph_of_a_provision_the_toc_misses_is_read_under_its_heading():
    tables = _unlisted_section()
    res = resolve_in_tables(_ref("§ 5.14(e)", 1, 20), tables, question=Q)
    texts = [ln.text for p in res.passages for ln in p.lines]
    assert texts[0].startswith("§ 5.14") and texts[1] == "(e) Paragraph e of 5.14."
    res = resolve_in_tables(_ref("§ 5.14(i)(2)(i)", 1, 20), tables, question=Q)
    texts = [ln.text for p in res.passages for ln in p.lines]
    assert texts[1] == "(i) Documentation of the second item."  # lettered (i), its (2), its roman (i)


def test_a_lettered_paragraph_is_not_a_roman_one_indented_under_the_last_letter():
    """(a) ... (h), then (h)(1)(i) indented under (h): walking to "(i)" takes the line indented
    like "(h)", not the nested roman (i) before it."""
    texts = [
        (72, "§ 5.14 Other requirements."),
        *[(72, f"({c}) Paragraph {c} of 5.14.") for c in "abcdefgh"],
        (90, "(1) First item of (h)."),
        (108, "(i) A roman item of (h)(1), not paragraph (i)."),
        (72, "(i) Lettered paragraph (i) of 5.14."),
        (72, "§ 5.16 Next section."),
    ]
    rows = [{"page": 1, "line": k, "text": t, "x0": float(x), "role": "heading" if t.startswith("§") else "body"}
            for k, (x, t) in enumerate(texts, 1)]  # fmt: skip
    res = resolve_in_tables(_ref("§ 5.14(i)", 1, 20), build(rows, []), question=Q)
    texts = [ln.text for p in res.passages for ln in p.lines]
    assert texts[0].startswith("§ 5.14") and texts[1] == "(i) Lettered paragraph (i) of 5.14."


def test_a_control_heading_before_its_title_is_still_its_heading():
    rows = [
        {
            "page": 1,
            "line": 1,
            "text": "Access is enforced as control AC-3 requires.",
            "role": "body",
            "bold": False,
        },
        {"page": 2, "line": 1, "text": "AC-3 ACCESS ENFORCEMENT", "role": "heading", "bold": True},
        {
            "page": 2,
            "line": 2,
            "text": "Control: The system enforces approved authorizations.",
            "role": "body",
        },
    ]
    res = resolve_in_tables(_ref("AC-3", 1, 1), build(rows, []), question=Q)
    assert res.status == "resolved" and res.target_pages == [2]


def test_thegrammar_kind_of_a_reading_is_memoised():
    from docintel.retrieval.resolve import grammar_kind

    grammar_kind.cache_clear()
    assert grammar_kind("Section 3(a)") == grammar_kind("Section 3(a)") == "section"
    assert grammar_kind.cache_info().hits == 1


def test_a_chapter_label_alone_brings_the_section_its_title_opens():
    rows = [
        {"page": 1, "line": 1, "text": "Chapter Two describes the method.", "role": "body"},
        {"page": 2, "line": 1, "text": "CHAPTER TWO", "role": "heading"},
        {"page": 2, "line": 2, "text": "THE METHOD", "role": "heading"},
        {"page": 2, "line": 3, "text": "The method has three steps.", "role": "body"},
    ]
    toc = [{"toc_id": "2", "number": "2", "title": "THE METHOD", "level": 1, "parent_id": None,
            "page_start": 2, "line_start": 2, "page_end": 2, "source": "heading"}]  # fmt: skip
    res = resolve_in_tables(_ref("Chapter Two", 1, 1), build(rows, toc), question=Q)
    assert any(ln.text == "The method has three steps." for p in res.passages for ln in p.lines)


def test_the_grammars_control_families_are_the_identifier_kernels():
    from docintel.identifiers.kinds import CONTROL_FAMILIES as KERNEL
    from docintel.parsing.refkinds import CONTROL_FAMILIES

    assert set(CONTROL_FAMILIES) == set(KERNEL)


def test_a_label_hyphenated_over_the_line_end_is_one_word():
    from docintel.parsing.refpatterns import references_on_lines

    def read(first: str, second: str) -> list[tuple[str, str | None]]:
        rows = references_on_lines([(1, 1, first), (1, 2, second)])
        return [(r["ref_target"], r["sub_selector"]) for _, found in rows for r in found]

    assert read("the requirements of para-", "graph (e) of this section") == [("(e)", None)]
    assert read("as described in Sec-", "tion 4.2 of the guide.") == [("4.2", None)]
    assert read("see Ap-", "pendix B for details") == [("B", None)]
    # a compound broken over the line end is no label: nothing is read into it
    assert read("the non-", "disclosure terms apply") == []
    # the next line opening in capitals is another word, not the rest of this one
    assert read("as described in Sec-", "Tion 4.2") == []


def test_a_one_line_paragraph_is_not_a_chapter_label_for_the_next_row():
    from docintel.retrieval.resolve import _from_lines

    rows = [
        {"page": 1, "line": 1, "text": "EXHIBIT A", "role": "heading"},
        {"page": 1, "line": 2, "text": "1. The Contractor delivers the goods listed below.", "role": "body"},
        {"page": 1, "line": 3, "text": "2. Payment", "role": "heading"},
        {"page": 1, "line": 4, "text": "Payment follows delivery under paragraph 1.", "role": "body"},
    ]
    toc = [{"toc_id": "2", "number": "2", "title": "Payment", "level": 1, "parent_id": None,
            "page_start": 1, "line_start": 3, "page_end": 1, "source": "heading"}]  # fmt: skip
    tables = build(rows, toc)
    ctx = {"ref": _ref("paragraph 1", 1, 4), "max_lines": 40, "question": Q}
    res = _from_lines(tables, "section", "1", ctx, at=(1, 2))
    texts = [ln.text for p in res.passages for ln in p.lines]
    assert texts[0].startswith("1. The Contractor")  # its own line, not the "2." after it


def test_a_rule_found_by_its_heading_line_keeps_its_paragraph():
    rows = [
        {"page": 1, "line": 1, "text": "Rule 7.1 Disclosure Statement", "role": "body"},
        {"page": 1, "line": 2, "text": "(a) Who Must File. A party must file two copies.", "role": "body"},
        {"page": 1, "line": 3, "text": "The statement names every parent corporation.", "role": "body"},
        {
            "page": 1,
            "line": 4,
            "text": "(b) Time to File. A party must file it with its first appearance.",
            "role": "body",
        },
        {"page": 1, "line": 5, "text": "It is supplemented when the information changes.", "role": "body"},
        {
            "page": 2,
            "line": 1,
            "text": "The time limit of Rule 7.1(b) applies to every party.",
            "role": "body",
        },
    ]
    res = resolve_in_tables(_ref("Rule 7.1(b)", 2, 1), build(rows, []), question=Q)
    texts = [ln.text for p in res.passages for ln in p.lines]
    assert res.status == "resolved" and texts[0] == "Rule 7.1 Disclosure Statement", texts
    assert texts[1].startswith("(b) Time to File")  # its (b), not the rule's opening (a)
