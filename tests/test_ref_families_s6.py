"""Reference families, session 6: a statute's section cited beside its law ("sec. 264, Pub. L.
104-191", "section 3(16)(B) of ERISA"), a form's schedule ("Schedule B (Form 1040)"), a provision
path written without its label ("164.308(a)(1)") and resolved to the toc's own paragraph, and a
relative sub-unit ("paragraph (b) of this section") read inside the provision it is written in.
"""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from docintel.parsing.refpatterns import find_references
from docintel.retrieval.resolve import resolve_in_tables
from docintel.schema.answer import PendingReference
from docintel.schema.document import DocTables
from docintel.schema.evidence import ParsedQuestion
from docintel.schema.tables import TABLES


def kinds(text: str) -> list[tuple[str, str, str | None, str | None]]:
    return [(r["kind"], r["ref_type"], r["ref_target"], r["sub_selector"]) for r in find_references(text)]


S = "section"
CASES = [
    # regulations: the section of another law, named after it
    ("42 U.S.C. 1320d-9; sec. 264, Pub. L. 104-191;", [
        ("usc", "external", "42 U.S.C. 1320d-9", None),
        ("public_law", "external", "Pub. L. 104-191", "sec. 264"),
    ]),
    ("and secs. 13400-13424, Pub. L. 111-5.", [("public_law", "external", "Pub. L. 111-5", "secs. 13400-13424")]),
    ("as defined at section 3(16)(B) of ERISA, the plan", [
        ("external_part", "external", "ERISA", "section 3(16)(B)"),
    ]),
    ("Article 5 of GDPR applies", [("external_part", "external", "GDPR", "Article 5")]),
    ("(2) section 10(a)(1) of that Act;", [("external_part", "external", "Act", "section 10(a)(1)")]),
    ("(as defined at 45 C.F.R. Sec. 164.501)", [("cfr", "external", "45 C.F.R. Sec. 164.501", None)]),
    # "of the NDA" may be this document's own name: internal
    ("as set out in Section 2 of the NDA", [("section", S, "2", None)]),
    ("see Section 3, Table 2", [("section", S, "3", None), ("table", "table", "2", None)]),
    # manuals: a section of another guide, named before or after it
    ("See the Guide to OSCAL-based FedRAMP Content, Section 2.5.3 Markup-line", [
        ("external_part", "external", "Guide to OSCAL-based FedRAMP Content", "Section 2.5.3"),
    ]),
    ("Section 6.2 of the Guide to OSCAL-based System Security Plans describes", [
        ("external_part", "external", "Guide to OSCAL-based System Security Plans", "Section 6.2"),
    ]),
    ("see Section 4 of this Guide", [("section", S, "4", None)]),
    ("Section 4 of the Guide describes", [("section", S, "4", None)]),
    # forms: a schedule of another form
    ("Attach Schedule B (Form 1040) if required", [("form", "external", "Form 1040", "Schedule B")]),
    ("Attach Schedule B if required", [("schedule", "appendix", "B", None)]),
    # a provision path without its label: the section and its paragraphs
    ("Security Management Process 164.308(a)(1) Risk Analysis", [("section", S, "164.308", "paragraph (a)(1)")]),
    ("permitted under 164.502(a)(1)(ii) of this", [("section", S, "164.502", "paragraph (a)(1)(ii)")]),
    ("45 CFR 164.502(a) applies", [("cfr", "external", "45 CFR 164.502(a)", None)]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[c[0][:40] for c in CASES])
def test_family_phrasing_parses(text, expected):
    assert kinds(text) == expected


NOT_REFERENCES = [
    "the rate rose by 1.5(2) points",  # arithmetic, not a path
    "f(x) = 0.25(a) + b",
    "a share of 12.50(c)% of",
    "in 2.3(b), we show",  # a one-digit fraction: a paper's numbering, ambiguous without a label
]


@pytest.mark.parametrize("text", NOT_REFERENCES)
def test_prose_is_not_a_reference(text):
    assert kinds(text) == []


# --- resolution -------------------------------------------------------------------------------

Q = ParsedQuestion(text="")


def build(lines: list[dict], toc: list[dict]) -> DocTables:
    pages = [{"page": p, "printed_label": str(p)} for p in sorted({ln["page"] for ln in lines})]
    frame = {"line_df": lines, "page_df": pages, "toc_df": toc}
    built = {
        n: TABLES[n].conform(pd.DataFrame(frame[n])) if frame.get(n) else TABLES[n].empty() for n in TABLES
    }
    return DocTables(doc_id="d", **built)


def build_rows(body: list[tuple], rows: list[tuple]) -> DocTables:
    """Tables from lines (page, line, text, role, section_id) and toc rows (toc_id, number,
    title, level, parent_id, page, line), each row a heading on its page."""
    lines = [{"page": p, "line": ln, "text": t, "role": r, "section_id": s} for p, ln, t, r, s in body]
    toc = [
        {"toc_id": i, "number": n, "title": t, "level": lv, "parent_id": p, "page_start": pg,
         "line_start": ls, "page_end": pg, "source": "heading"}
        for i, n, t, lv, p, pg, ls in rows
    ]  # fmt: skip
    return build(lines, toc)


def _rule() -> DocTables:
    """Two provisions of a rule, each with its (a) and (b); (a) of the first has an (1)."""
    body = [
        (1, 1, "§ 1.10 Scope.", "heading", "1.10"),
        (1, 2, "(a) Standard. Scope text.", "list_item", "1.10(a)"),
        (1, 3, "(1) First sub-paragraph of the scope.", "list_item", "1.10(a)(1)"),
        (1, 4, "(b) Scope exceptions.", "list_item", "1.10(b)"),
        (2, 1, "§ 1.20 Uses.", "heading", "1.20"),
        (2, 2, "(a) Uses standard.", "list_item", "1.20(a)"),
        (2, 3, "(b) Uses are limited as stated in paragraph (a) of this section.", "list_item", "1.20(b)"),
        (3, 1, "Matrix: Scope 1.10(a)(1) Required", "table", None),
    ]
    rows = [("1.10", "1.10", "Scope", 1, None, 1, 1), ("1.10(a)", "(a)", "", 2, "1.10", 1, 2),
            ("1.10(a)(1)", "(1)", "", 3, "1.10(a)", 1, 3), ("1.10(b)", "(b)", "", 2, "1.10", 1, 4),
            ("1.20", "1.20", "Uses", 1, None, 2, 1), ("1.20(a)", "(a)", "", 2, "1.20", 2, 2),
            ("1.20(b)", "(b)", "", 2, "1.20", 2, 3)]  # fmt: skip
    return build_rows(body, rows)


def _ref(raw: str, page: int, line: int) -> PendingReference:
    return PendingReference(raw_text=raw, ref_type="unknown", origin_page=page, origin_line=line)


def test_a_provision_path_reaches_the_toc_paragraph():
    res = resolve_in_tables(_ref("1.10(a)(1)", 3, 1), _rule(), question=Q)
    assert res.status == "resolved"
    assert res.passages[0].lines[0].text.startswith("(1) First sub-paragraph")


def test_a_relative_paragraph_is_the_one_of_the_citing_provision():
    res = resolve_in_tables(_ref("paragraph (a)", 2, 3), _rule(), question=Q)
    assert res.status == "resolved" and res.passages[0].lines[0].text == "(a) Uses standard."


def _regulation() -> DocTables:
    """Two Articles whose numbered paragraphs are body lines (the toc lists the Articles and
    their points), and a Chapter's "SECTION 1" in the toc."""
    body = [
        (1, 1, "SECTION 1", "heading", "S1"),
        (1, 2, "Article 14", "heading", "A14"),
        (1, 3, "1.", "body", "A14"),
        (1, 4, "Where data have not been obtained, the controller shall inform.", "body", "A14"),
        (1, 5, "(a) the identity of the controller;", "list_item", "A14(a)"),
        (1, 6, "2.", "body", "A14"),
        (1, 7, "The obligation referred to in paragraph 1 does not apply where", "body", "A14"),
        (2, 1, "Article 15", "heading", "A15"),
        (2, 2, "1. The data subject shall have the right of access.", "body", "A15"),
        (2, 3, "(a) the purposes, as set out in paragraph 1;", "list_item", "A15(a)"),
        (2, 4, "Paragraph 3 applies to copies.", "body", "A15"),
    ]
    rows = [("S1", "1", "SECTION 1", 1, None, 1, 1), ("A14", None, "Article 14", 2, "S1", 1, 2),
            ("A14(a)", "(a)", "", 3, "A14", 1, 5), ("A15", None, "Article 15", 2, "S1", 2, 1),
            ("A15(a)", "(a)", "", 3, "A15", 2, 3)]  # fmt: skip
    return build_rows(body, rows)


def test_a_numbered_paragraph_is_the_one_of_the_article_it_is_written_in():
    tables = _regulation()
    res = resolve_in_tables(_ref("paragraph 1", 1, 7), tables, question=Q)
    assert res.status == "resolved" and (res.passages[0].lines[0].page, res.passages[0].lines[0].line) == (
        1,
        3,
    )
    # from a point of Article 15: Article 15's "1.", never the Chapter's SECTION 1
    res = resolve_in_tables(_ref("paragraph 1", 2, 3), tables, question=Q)
    assert res.status == "resolved" and res.passages[0].lines[0].text.startswith("1. The data subject")


def test_a_numbered_paragraph_the_article_lacks_is_not_taken_from_another_article():
    res = resolve_in_tables(_ref("Paragraph 3", 2, 4), _regulation(), question=Q)
    assert not any(ln.page == 1 for p in res.passages for ln in p.lines)


def test_english_parties_is_no_french_part_label():
    assert kinds("the asserting and relying parties 466 may") == []
    assert kinds("voir la partie 3 du rapport") == [("part", S, "3", None)]


def test_a_margin_line_number_never_finishes_a_reference():
    from docintel.parsing.refpatterns import references_on_lines

    lines = [(1, 1, "The time value is encoded in UTC, as described in Section"), (1, 2, "1553")]
    assert [r for _, rows in references_on_lines(lines) for r in rows] == []
    lines = [(1, 1, "as described in Section"), (1, 2, "4.2 of the guide.")]
    assert [r["ref_target"] for _, rows in references_on_lines(lines) for r in rows] == ["4.2"]


def _line_numbered() -> DocTables:
    """A standard printed with margin line numbers, whose toc was read off its contents page."""
    body = [
        (1, 1, "2.2.2 Complex Type NameIDType ............................ 13", "toc_entry", None),
        (1, 2, "4.2 SAML Namespace Version ............................... 67", "toc_entry", None),
        (2, 1, "443 2.2.2 Complex Type NameIDType", "heading", "s2"),
        (2, 2, "444 The NameIDType complex type is used when an element serves.", "body", "s2"),
        (3, 1, "2831 4.2 SAML Namespace Version", "heading", "s3"),
        (3, 2, "2832 The namespace carries the version (see Section 2.2.2).", "body", "s3"),
    ]
    lines = [{"page": p, "line": ln, "text": t, "role": r, "section_id": s} for p, ln, t, r, s in body]
    toc = [{"toc_id": "2.2.2", "number": "2.2.2", "title": "", "level": 3, "parent_id": None, "page_start": 1,
            "line_start": 1, "page_end": 1, "source": "provision"}]  # fmt: skip
    return build(lines, toc)


def test_a_section_is_its_heading_not_its_contents_entry_nor_lost_to_a_margin_number():
    tables = _line_numbered()
    res = resolve_in_tables(_ref("Section 2.2.2", 3, 2), tables, question=Q)
    assert res.status == "resolved" and res.passages[0].lines[0].text == "443 2.2.2 Complex Type NameIDType"
    res = resolve_in_tables(_ref("Section 4.2", 2, 2), tables, question=Q)
    assert res.status == "resolved" and res.passages[0].lines[0].page == 3
    # a definition pointer falls back to the numbered heading too
    res = resolve_in_tables(_ref("as defined in Section 4.2", 2, 2), tables, question=Q)
    assert res.status == "resolved" and res.passages[0].lines[0].page == 3


def test_a_paragraph_of_a_section_the_toc_missed_is_read_under_its_heading():
    """The toc lacks § 1.30 (its heading line was not registered), so its lines sit under § 1.20's
    toc row; "paragraph (b)(1)" written in § 1.30 is § 1.30's, not § 1.20's (b)."""
    tables = _rule()
    extra = [
        (4, 1, "§ 1.30 Notices of practices.", "body", "1.20(b)"),
        (4, 2, "(a) Standard. A notice is given.", "list_item", "1.20(b)"),
        (4, 3, "(b) Content.", "list_item", "1.20(b)"),
        (4, 4, "(1) Required elements of the notice.", "list_item", "1.20(b)"),
        (4, 5, "(2) Optional elements.", "list_item", "1.20(b)"),
        (
            4,
            6,
            "(c) The elements required by paragraph (b)(1) of this section are listed.",
            "list_item",
            "1.20(b)",
        ),
    ]
    rows = [{"page": p, "line": ln, "text": t, "role": r, "section_id": s} for p, ln, t, r, s in extra]
    lines = pd.concat([tables.line_df, TABLES["line_df"].conform(pd.DataFrame(rows))], ignore_index=True)
    tables = dataclasses.replace(tables, line_df=lines)
    res = resolve_in_tables(_ref("paragraph (b)(1)", 4, 6), tables, question=Q)
    assert (
        res.status == "resolved" and res.passages[0].lines[0].text == "(1) Required elements of the notice."
    )
    # a section the toc lists keeps the toc's own paragraph
    res = resolve_in_tables(_ref("paragraph (a)", 2, 3), tables, question=Q)
    assert res.passages[0].lines[0].text == "(a) Uses standard."


def test_a_form_row_is_the_caption_whose_leaders_run_to_its_box():
    """A two-column form prints a row's caption with dot leaders, then the box id alone
    ("e Standard deduction ... . . . ." / "12e"); a caption may wrap before its leaders."""
    rows = ["Standard", "e Standard deduction or itemized deductions (from Schedule A) . . . . . .", "12e",
            "13a Qualified business income deduction from Form 8995 . . . . . . .", "13a",
            "11a Subtract line 10 from line 9. This is your adjusted gross income", ". . . . . . . .", "11a",
            "14 Add lines 12e, 13a, and 11a . . . . . .", "14"]  # fmt: skip
    lines = [{"page": 1, "line": i + 1, "text": t, "role": "table"} for i, t in enumerate(rows)]
    tables = build(lines, [])
    for raw, want in (("line 12e", 2), ("line 13a", 4), ("line 11a", 6)):
        res = resolve_in_tables(_ref(raw, 1, 9), tables, question=Q)
        assert res.status == "resolved" and res.passages[0].lines[0].line == want, raw
