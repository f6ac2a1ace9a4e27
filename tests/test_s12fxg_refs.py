"""Session 12 (fxg): review fixes on gx's reference vocabulary; false-positive shapes.

Each test fails on gx's branch before the review fixes (the guards of correct readings pass on both)."""

from __future__ import annotations

import pytest

from docintel.parsing.refpatterns import find_references
from docintel.retrieval.reflines import footnote_lines
from docintel.retrieval.resolve import resolve_in_tables
from docintel.schema.answer import PendingReference
from docintel.schema.evidence import ParsedQuestion
from tests.test_resolve_general import build

Q = ParsedQuestion(text="")


def _rows(text: str) -> list[tuple]:
    return [(r["ref_type"], r["ref_target"], r["sub_selector"]) for r in find_references(text)]


@pytest.mark.parametrize(
    "text",
    [
        # "this", "the" and "agreement" name the agreement itself, not a schedule delivered apart
        "SECTION 4.03 OF THIS AGREEMENT AND THE DISCLOSURE SCHEDULE",
        "Section 4.03 of the Agreement and Disclosure Schedule",
        "Section 4.03 of This Agreement and Disclosure Letter",
    ],
)
def test_the_agreement_and_its_schedule_is_the_agreements_section(text):
    assert _rows(text) == [("section", "4.03", None)]


def test_a_named_agreement_and_its_schedule_is_the_named_agreements_section():
    # the section belongs to "the Merger Agreement" (a named instrument: the resolver reads it here
    # when this document is that agreement, rz), never to the schedule delivered with it
    text = "as set forth in Section 4.03 of the Merger Agreement and Company Disclosure Schedule"
    assert _rows(text) == [("external", "Merger Agreement", "Section 4.03")]


@pytest.mark.parametrize(
    "text, want",
    [
        (
            "Section 4.03 of the Amended and Restated Seller Disclosure Schedule",
            [("external", "Amended and Restated Seller Disclosure Schedule", "Section 4.03")],
        ),
        (
            "Section 4.03 of the Company Disclosure Schedule",
            [("external", "Company Disclosure Schedule", "Section 4.03")],
        ),
    ],
)
def test_a_named_disclosure_schedule_stays_external(text, want):
    assert _rows(text) == want


@pytest.mark.parametrize(
    "text, want",
    [
        (
            "Agencies must follow the Code of Federal Regulations, Section 2 of this guide summarizes them.",
            [("section", "2", None)],
        ),
        ("as required by the U.S. Code, Section 4.2 of this policy describes it", [("section", "4.2", None)]),
    ],
)
def test_a_code_named_before_a_section_of_this_document_is_not_its_section(text, want):
    assert _rows(text) == want


def _lettered() -> object:
    """A document whose section 1 has paragraphs (a) to (e) and no section 2.12."""
    rows = [
        ("1", "1", None, 1, "1. Claims"),
        *[(f"1({c})", f"({c})", "1", i + 2, f"({c}) Claim {c}.") for i, c in enumerate("abcde")],
    ]
    lines, toc = [], []
    for tid, num, parent, line, text in rows:
        lines.append({"page": 1, "line": line, "text": text, "role": "body", "section_id": tid})
        toc.append({"toc_id": tid, "number": num, "title": text, "parent_id": parent, "level": 1 + (parent is not None),
                    "page_start": 1, "line_start": line, "page_end": 1, "line_end": 6 if parent is None else line,
                    "source": "provision"})  # fmt: skip
    lines.append(
        {"page": 1, "line": 7, "text": "Under §§2.12(a)–(e) of the Compact each State", "role": "body"}
    )
    return build(lines, [{"page": 1, "printed_label": None}], toc)


def _ref(raw: str) -> PendingReference:
    return PendingReference(raw_text=raw, ref_type="unknown", origin_page=1, origin_line=7)


@pytest.mark.parametrize("raw", ["§§2.12(a)–(e)", "§§2.12(a) through (e)"])
def test_the_tags_of_a_missing_section_are_not_the_bare_paragraphs(raw):
    res = resolve_in_tables(_ref(raw), _lettered(), question=Q)
    assert res.status != "resolved" or "(a)" not in str(res.target), (res.status, res.target)


def test_a_range_of_bare_tags_still_resolves():
    res = resolve_in_tables(_ref("paragraphs (b) through (d)"), _lettered(), question=Q)
    assert res.status == "resolved", (res.status, res.reason)
    assert str(res.target) == "(b),(c),(d)"


@pytest.mark.parametrize(
    "text, want",
    [
        # a dash between tags the numbering cannot run from one to the other is no range: the end
        # tag is not read (nor 26 paragraphs for "(a)-(z)")
        ("Section 5(c)-(a)", [("section", "5", "paragraph (c)")]),
        ("Section 3(a)-(ii)", [("section", "3", "paragraph (a)")]),
        ("Section 2(a)-(z)", [("section", "2", "paragraph (a)")]),
        ("Section 2(a)-(c)", [("section", "2", f"paragraph ({t})") for t in "abc"]),
    ],
)
def test_a_dash_between_tags_is_a_range_only_when_the_numbering_runs(text, want):
    assert _rows(text) == want


@pytest.mark.parametrize("key", ["Step3", "Stage2", "Phase2", "Id.at-5", "Alternative.Text-here"])
def test_steps_and_dotted_words_in_brackets_are_no_citation_keys(key):
    assert _rows(f"then see [{key}] for the rest") == []


@pytest.mark.parametrize("key", ["Schema2", "W3C.REC-html401", "XMLSig"])
def test_a_standards_citation_keys_stay_keys(key):
    assert _rows(f"as defined in [{key}] for the rest") == [("bib", key, None)]


def _small_print_page(with_neighbour: bool):
    """A report whose page 2 prints an address in small type in its lower half ("100 Bureau
    Drive"), with a footnote line elsewhere; note 99 printed too only ``with_neighbour``."""

    def line(page, n, text, role, size, y0):
        return {"page": page, "line": n, "text": text, "role": role, "size": size, "y0": y0}

    lines = [
        line(1, 1, "The program tests the products (see footnote 100).", "body", 11.0, 100.0),
        line(1, 2, "1 See the program's web site.", "footnote", 8.0, 700.0),
        line(2, 1, "National Institute of Standards and Technology", "body", 11.0, 100.0),
        line(2, 2, "100 Bureau Drive (Mail Stop 8930) Gaithersburg, MD 20899", "body", 8.0, 600.0),
    ]
    if with_neighbour:
        lines.insert(3, line(2, 2, "99 The program's first report (2010).", "body", 8.0, 580.0))
        lines[-1]["line"] = 3
    pages = [{"page": p, "printed_label": str(p), "height": 792.0} for p in (1, 2)]
    return build(lines, pages)


def test_a_lone_small_print_line_opening_with_the_number_is_no_footnote():
    assert footnote_lines(_small_print_page(False), "100", 1).empty


def test_a_small_print_note_in_a_run_of_notes_is_found():
    got = footnote_lines(_small_print_page(True), "100", 1)
    assert not got.empty and str(got.iloc[0]["text"]).startswith("100 Bureau")


def test_an_outline_list_in_roman_numerals_is_no_part_heading():
    # "I. Review ... / II. Approve ... / III. Elect ..." on consecutive lines: a list, and the
    # "Section II" under it is a section of the enclosed form, not the list's item
    rows = [
        "Committee actions for the fiscal year:",
        "I. Review the draft budget",
        "II. Approve the hiring plan",
        "III. Elect the new chair",
        "Applicants complete Section II of the enclosed form.",
    ]
    lines = [
        {"page": 1, "line": n, "text": t, "role": "body", "size": 10.0, "y0": 100.0 + n}
        for n, t in enumerate(rows, 1)
    ]
    tables = build(lines, [{"page": 1, "printed_label": "1", "height": 792.0}])
    res = resolve_in_tables(_ref("Section II").model_copy(update={"origin_line": 5}), tables, question=Q)
    assert res.status != "resolved", [(p.page, p.lines[0].text) for p in res.passages]
