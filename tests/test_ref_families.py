"""Reference families beyond papers and NIST guides (session 5): rule books, tax forms and their
instructions, contracts, class societies' rules and filings' items. Real-world phrasings must
parse with the right kind and target; prose that only looks like them must not; and the resolver
reaches a form's "line 16" by the line or toc title that names it, never by a bare section number.
"""

from __future__ import annotations

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
    # rule books
    ("as provided in Rule 5.2, the clerk", [("rule", S, "5.2", None)]),
    ("a motion under Rule 12(b)(6) is", [("rule", S, "12", "paragraph (b)(6)")]),
    ("see R. 3.1 for details", [("rule", S, "3.1", None)]),
    ("Rules 4 to 7 apply", [("rule", S, t, None) for t in "4567"]),
    ("under Regulation 4.2 the owner", [("regulation", S, "4.2", None)]),
    ("as required by reg. 12(3)", [("regulation", S, "12", "paragraph (3)")]),
    # tax forms and their instructions
    ("Enter the amount from line 16.", [("line", S, "16", None)]),
    ("Add lines 1 through 3 and enter the total", [("line", S, t, None) for t in "123"]),
    ("the amount on line 5a of Schedule B", [("schedule", "appendix", "B", "line 5a")]),
    ("Complete Part II if you", [("part", S, "II", None)]),
    ("Use Worksheet A to figure", [("worksheet", S, "A", None)]),
    ("the worksheet in Step 2", [("step", S, "2", None)]),
    ("report it on Form 8949", [("form", "external", "Form 8949", None)]),
    ("see Pub. 550 for more", [("publication", "external", "Pub. 550", None)]),
    ("the amount in box 1 of Form 1099-DIV", [("form", "external", "Form 1099-DIV", "box 1")]),
    # contracts
    ("as set forth in Section 7.2(a) of this Agreement", [("section", S, "7.2", "paragraph (a)")]),
    ("attached as Exhibit B", [("exhibit", "appendix", "B", None)]),
    ("pursuant to clause 14.3", [("clause", "clause", "14.3", None)]),
    ("subject to paragraph 5(c) above", [("paragraph", S, "5", "paragraph (c)")]),
    ("the provisions of Article IV", [("article", S, "IV", None)]),
    ("listed in Schedule 2 hereto", [("schedule", "appendix", "2", None)]),
    ("as described in the Annex", [("annex", "annex", None, None)]),
    ("as stated in Recital C", [("recital", S, "C", None)]),
    # class societies: one reference to the innermost unit
    ("see Ch.3 Sec.2 [1.2.3]", [("requirement", S, "1.2.3", None)]),
    ("requirements of Pt.4 Ch.1 Sec.2 apply", [("section", S, "2", None)]),
    ("Complete Part 4, Chapter 1, Section 2 as shown", [("section", S, "2", None)]),
    # filings
    ("see Item 7 and Item 1A", [("item", S, "7", None), ("item", S, "1A", None)]),
    ("See Item 7 of Part II", [("part", S, "II", "Item 7")]),
    # external rules and registers, not this document's
    (
        "a motion under Fed. R. Civ. P. 12(b)(6) was",
        [("court_rules", "external", "Fed. R. Civ. P. 12(b)(6)", None)],
    ),
    ("(66 Fed. Reg. 753, January 4, 2001)", [("fr", "external", "66 Fed. Reg. 753", None)]),
    ("Total amount from Form(s) W-2, box 1", [("form", "external", "Form(s) W-2", "box 1")]),
    ("Wages from Form 8919, line 6", [("form", "external", "Form 8919", "line 6")]),
    ("in FIPS Publication 199, Standards", [("fips", "external", "FIPS Publication 199", None)]),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[c[0][:40] for c in CASES])
def test_family_phrasing_parses(text, expected):
    assert kinds(text) == expected


NOT_REFERENCES = [
    "The Civil Procedure Rules 1998 apply to the claim",  # a title's year, not rule 1998
    "under the Data Protection Regulations 2018.",
    "He said the line was busy at 5 o'clock",
    "the annex building was closed and the schedule of works slipped",
    "a form 3 pages long",  # a form needs a form number, not a count
    "Equipment List items 22-10-01B, 22-10-02",  # an item code, not items 22 to 10
    "as a rule, 5 people attend",
    "H. R. 1904 as enrolled",  # a bill's initials
    "Support, P.O. Box 992, CH-6371 Zurich",  # an address
    "Binding corporate rules 1 The controller",  # a named rule set + a heading's number
    "as laid down in the Annex to Commission Recommendation",  # another act's annex
    "Implementing the HIPAA Security Rule 4.3 Security Standards",  # a named rule set + a heading number
    "4.3 Step 3: Activate the Interconnection",  # a step naming itself
    "General Processing Rules 2224",  # a line-numbered page's number
]


@pytest.mark.parametrize("text", NOT_REFERENCES)
def test_prose_is_not_a_reference(text):
    assert kinds(text) == []


def test_chain_keeps_its_outer_path_as_scope_and_qualified_ids_apart():
    row = find_references("see Pt.4 Ch.1 Sec.2 for the rule")[0]
    assert (row["anchor_text"], row["scope"]) == ("Pt.4 Ch.1 Sec.2", "Pt.4 Ch.1")
    # "Part 236, Sections 236.4 ...": the section ids carry the part, two references
    assert [r["ref_target"] for r in find_references("Part 236, Section 236.4 applies")] == ["236", "236.4"]


def test_a_roman_id_never_matches_empty():
    # "Part 4, Chapter 1": the roman form once matched empty before "Chapter", stretching "Part 4,"
    row = find_references("see Part 4, Chapters of the book")[0]
    assert row["anchor_text"] == "Part 4"


# --- resolution -------------------------------------------------------------------------------

Q = ParsedQuestion(text="")


def build(lines: list[dict], toc: list[dict] | None = None) -> DocTables:
    pages = [{"page": p, "printed_label": str(p)} for p in sorted({ln["page"] for ln in lines})]
    frame = {"line_df": lines, "page_df": pages, "toc_df": toc or []}
    built = {
        n: TABLES[n].conform(pd.DataFrame(frame[n])) if frame.get(n) else TABLES[n].empty() for n in TABLES
    }
    return DocTables(doc_id="d", **built)


def _instructions() -> DocTables:
    """A form's instructions: section 16 in the toc, and a "Line 16." heading the toc misses."""
    body = [
        (1, 1, "16. Definitions", "heading"),
        (1, 2, "Terms used in these instructions.", "body"),
        (2, 1, "Line 16. Tax", "heading"),
        (2, 2, "Figure the tax on the amount on line 15.", "body"),
        (3, 1, "Step 1. Gather your records.", "body"),
        (3, 2, "Step 2. Fill in the worksheet below.", "body"),
        (3, 3, "1. Enter your income.", "body"),
        (3, 4, "2. If line 1 is zero, go to step 4.", "body"),
        (3, 5, "3. Subtract line 2 from line 1.", "body"),
        (3, 6, "4. Enter the result here.", "body"),
        (4, 1, "Enter on line 16 the tax from Step 2.", "body"),
    ]
    lines = [{"page": p, "line": ln, "text": t, "role": r} for p, ln, t, r in body]
    toc = [{"toc_id": "16", "number": "16", "title": "Definitions", "level": 1, "page_start": 1,
            "line_start": 1, "page_end": 1, "line_end": 2, "source": "heading"}]  # fmt: skip
    return build(lines, toc)


def _ref(raw: str, page: int, line: int) -> PendingReference:
    return PendingReference(raw_text=raw, ref_type="unknown", origin_page=page, origin_line=line)


def test_a_form_line_is_its_line_heading_not_the_section_with_its_number():
    res = resolve_in_tables(_ref("line 16", 4, 1), _instructions(), question=Q)
    assert res.status == "resolved" and res.target_pages == [2]
    assert res.passages[0].lines[0].text == "Line 16. Tax"


def test_a_form_line_is_the_line_the_form_prints_with_its_id():
    lines = [
        {
            "page": 1,
            "line": 1,
            "text": "9 Add lines 1z, 2b and 3b. This is your total income",
            "role": "body",
        },
        {"page": 1, "line": 2, "text": "10 Adjustments to income from Schedule 1", "role": "body"},
        {
            "page": 1,
            "line": 3,
            "text": "11a Subtract line 10 from line 9. This is your adjusted gross income",
            "role": "body",
        },
    ]
    res = resolve_in_tables(_ref("line 10", 1, 3), build(lines), question=Q)
    assert res.status == "resolved" and res.passages[0].lines[0].text.startswith("10 Adjustments")


def test_a_form_line_printed_as_its_number_then_its_caption():
    rows = ["9", "Add lines 1z and 8. This is your total income", "9", "10",
            "Adjustments to income from Schedule 1", "10", "11a Subtract line 10 from line 9.", "12", "Credits"]  # fmt: skip
    lines = [{"page": 1, "line": i + 1, "text": t, "role": "table"} for i, t in enumerate(rows)]
    res = resolve_in_tables(_ref("line 10", 1, 7), build(lines), question=Q)
    # the "10" before its caption, not the amount column's "10" right above the reference
    assert res.status == "resolved" and res.passages[0].lines[0].line == 4
    # "12" before a one-word section label ("Credits") is no line's caption
    assert resolve_in_tables(_ref("line 12", 1, 7), build(lines), question=Q).status == "unresolved"


def test_a_list_marker_is_never_a_heading_or_a_footnote():
    lines = [
        {"page": 1, "line": 1, "text": "3. Trace Trees", "role": "heading"},
        {"page": 1, "line": 2, "text": "3 Arrays are actually worse than this", "role": "footnote"},
        {"page": 1, "line": 3, "text": "the loop on line 3 runs", "role": "body"},
    ]
    assert resolve_in_tables(_ref("line 3", 1, 3), build(lines), question=Q).status == "unresolved"


def test_a_form_line_nothing_names_stays_unresolved():
    # no "Line 40" heading: section 40 / a "40." line must not stand in for it
    res = resolve_in_tables(_ref("line 15", 4, 1), _instructions(), question=Q)
    assert res.status == "unresolved"


def test_a_step_is_its_labelled_line_and_an_algorithm_step_its_marker():
    t = _instructions()
    res = resolve_in_tables(_ref("Step 2", 4, 1), t, question=Q)
    assert res.status == "resolved" and res.passages[0].lines[0].text.startswith("Step 2.")
    res = resolve_in_tables(_ref("step 4", 3, 4), t, question=Q)
    assert res.status == "resolved" and res.passages[0].lines[0].text == "4. Enter the result here."


def test_a_step_is_the_paragraph_that_opens_with_it():
    lines = [
        {"page": 1, "line": 1, "text": "Step 4 is intended to determine if the information is needed.", "role": "body"},
        {"page": 1, "line": 2, "text": "Step 5 focuses on whether the service can be provided.", "role": "body"},
        {"page": 1, "line": 3, "text": "The agency should consider if Step 5 is of value.", "role": "body"},
    ]  # fmt: skip
    res = resolve_in_tables(_ref("Step 5", 1, 3), build(lines), question=Q)
    assert res.status == "resolved" and res.passages[0].lines[0].line == 2


def test_an_item_is_found_by_its_toc_title():
    lines = [
        {"page": 1, "line": 1, "text": "Item 7. Management's Discussion and Analysis", "role": "body"},
        {"page": 1, "line": 2, "text": "Revenue grew.", "role": "body"},
        {"page": 2, "line": 1, "text": "7. Leases", "role": "heading"},
        {"page": 3, "line": 1, "text": "As discussed in Item 7, revenue grew.", "role": "body"},
    ]
    toc = [
        {"toc_id": "s1", "number": None, "title": "Item 7. Management's Discussion and Analysis", "level": 1,
         "page_start": 1, "line_start": 1, "page_end": 1, "line_end": 2, "source": "heading"},
        {"toc_id": "7", "number": "7", "title": "Leases", "level": 1, "page_start": 2, "line_start": 1,
         "page_end": 2, "line_end": 1, "source": "heading"},
    ]  # fmt: skip
    res = resolve_in_tables(_ref("Item 7", 3, 1), build(lines, toc), question=Q)
    assert res.status == "resolved" and res.target_pages == [1]


def test_an_external_form_is_internal_only_where_the_document_prints_it():
    lines = [
        {"page": 1, "line": 1, "text": "Attach Form 8949 and see Pub. 550.", "role": "body"},
        {"page": 2, "line": 1, "text": "Form 8949 - Sales and Other Dispositions", "role": "heading"},
        {"page": 2, "line": 2, "text": "Part I Short-Term.", "role": "body"},
    ]
    t = build(lines)
    res = resolve_in_tables(_ref("Form 8949", 1, 1), t, question=Q)
    assert res.status == "resolved" and res.target_pages == [2]
    res = resolve_in_tables(_ref("Pub. 550", 1, 1), t, question=Q)
    assert res.status == "external"
