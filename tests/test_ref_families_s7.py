"""Reference families, session 7: a regulation's point of a paragraph ("point (a) of Article
6(1)"), and a provision of another document cited by its own part number ("§ 164.308(a)(1)" in
a guide numbered 1 to 4; "§ 160.103" in part 164 of a rule), told from the document's numbering.
"""

from __future__ import annotations

import pytest

from docintel.parsing.refpatterns import find_references
from docintel.retrieval.refparts import foreign_part, own_parts
from docintel.retrieval.resolve import resolve_in_tables
from tests.test_ref_families_s6 import Q, _ref, build, build_rows


def kinds(text: str) -> list[tuple[str, str | None, str | None]]:
    return [(r["ref_type"], r["ref_target"], r["sub_selector"]) for r in find_references(text)]


POINTS = [
    # regulations (GDPR): the point is kept as the last paragraph tag
    ("lawful under point (a) of Article 6(1) or", [("section", "6", "paragraph (1)(a)")]),
    ("based on point (f) of paragraph 1 of Article 6", [("section", "6", "paragraph (1)(f)")]),
    ("points (a) and (b) of Article 6(1)", [("section", "6", "paragraph (1)(a)"), ("section", "6", "paragraph (1)(b)")]),
    ("referred to in point (b) of paragraph 2", [("section", "2", "paragraph (b)")]),
    ("Article 6(1)(f) applies", [("section", "6", "paragraph (1)(f)")]),
    # prose: "point" without "of" and a unit is no point reference
    ("at this point (a) of the", []),
    ("the point (a) is", []),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), POINTS, ids=[c[0][:40] for c in POINTS])
def test_a_point_of_a_unit_is_kept(text, expected):
    assert kinds(text) == expected


def _guide() -> object:
    """A guide numbered 1 to 2 (toc "1", "1.1", "2", "2.1") whose section 2.1 is titled after the
    rule's provision it discusses, and which cites the rule's provisions in its prose."""
    body = [
        (1, 1, "1 Introduction", "heading", "1"),
        (1, 2, "1.1 Purpose", "heading", "1.1"),
        (1, 3, "See § 164.308(a)(1) and Section 1.1 and section 1.4 of this guide.", "body", "1.1"),
        (2, 1, "2 Safeguards", "heading", "2"),
        (2, 2, "2.1 Security Management Process (§ 164.308(a)(1))", "heading", "2.1"),
        (2, 3, "164.308(a)(1)(ii)(A) – Risk Analysis", "table", "2.1"),
    ]
    rows = [("1", "1", "Introduction", 1, None, 1, 1), ("1.1", "1.1", "Purpose", 2, "1", 1, 2),
            ("2", "2", "Safeguards", 1, None, 2, 1),
            ("2.1", "2.1", "Security Management Process (§ 164.308(a)(1))", 2, "2", 2, 2)]  # fmt: skip
    return build_rows(body, rows)


def test_a_guide_citing_a_rule_by_its_part_number_points_outside():
    tables = _guide()
    assert own_parts(tables) == {"1", "2"}
    assert foreign_part(tables, "164.308") == "164" and foreign_part(tables, "1.1") is None
    for raw, page, line in (("§ 164.308(a)(1)", 1, 3), ("164.308(a)(1)(ii)(A)", 2, 3)):
        res = resolve_in_tables(_ref(raw, page, line), tables, question=Q)
        assert res.status == "external", raw


def test_the_guide_s_own_sections_stay_internal():
    tables = _guide()
    res = resolve_in_tables(_ref("Section 1.1", 1, 3), tables, question=Q)
    assert res.status == "resolved" and res.passages[0].lines[0].text == "1.1 Purpose"
    # its own part, a section it does not print: unresolved, never sent outside
    res = resolve_in_tables(_ref("section 1.4", 1, 3), tables, question=Q)
    assert res.status == "unresolved"


def test_a_rule_s_own_part_is_internal_and_a_sibling_part_external():
    from tests.test_ref_families_s6 import _rule

    tables = _rule()  # sections 1.10 and 1.20 of part 1
    assert own_parts(tables) == {"1"}
    res = resolve_in_tables(_ref("§ 1.10(a)", 2, 3), tables, question=Q)
    assert res.status == "resolved"
    res = resolve_in_tables(_ref("§ 2.103", 2, 3), tables, question=Q)  # part 2: the rule cites another part
    assert res.status == "external"


RECORDS = [
    # court opinions: the pages of a volume of the record are another filing's
    ("Compact, 1 App. 7\u201351.", [("external", "1 App.", "p. 7\u201351")]),
    ("\u00a75.05(a), 1 App. 24\u201325.", [("section", "5.05", "paragraph (a)"), ("external", "1 App.", "p. 24\u201325")]),
    ("in Table 2 App. 4", [("table", "2", None), ("appendix", "4", None)]),  # the number is the table's
    ("see 2 App. A", [("appendix", "A", None)]),
    # a chapter of a CFR title (a rule's running header)
    ("21 CFR Ch. II (4\u20131\u201300 Edition)", [("external", "21 CFR Ch. II", None)]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), RECORDS, ids=[c[0][:30] for c in RECORDS])
def test_a_record_volume_and_a_cfr_chapter_are_external(text, expected):
    assert kinds(text) == expected


def test_a_part_the_document_does_not_number_is_another_document_s():
    tables = _guide()  # decimal ids of parts 1 and 2, no toc row labelled "Part"
    assert foreign_part(tables, "164", "part") == "164"
    assert foreign_part(tables, "2", "part") is None
    assert foreign_part(tables, "164", "chapter") is None  # only a part is read so
    res = resolve_in_tables(_ref("Part 160", 1, 3), tables, question=Q)
    assert res.status == "external"


CITED_PARTS = [
    # standards: a section of the work a bracketed key cites
    ("more on such issues, see [XMLEnc] Section 6.3.", [("external", "XMLEnc", "Section 6.3")]),
    ("as described in [18] Section 2 of", [("external", "18", "Section 2")]),
    ("as in [3], Section 4 shows", [("bib", "3", None), ("section", "4", None)]),  # a new clause
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), CITED_PARTS, ids=[c[0][:30] for c in CITED_PARTS])
def test_a_section_of_a_cited_work_is_external(text, expected):
    assert kinds(text) == expected


def _line_numbered() -> object:
    """A standard that prints a margin number before its lines (or alone on one), whose top-level
    headings and appendix heading the toc holds by their margin-numbered titles only."""
    body = [(1, k, str(200 + k), "body", "s1") for k in range(1, 8)]
    body += [
        (1, 8, "208 The extensions are described in Section 4 and Appendix A.", "body", "s1"),
        (2, 1, "2737 4 SAML Versioning", "heading", "s4"),
        (2, 2, "2738 The versioning of the protocol.", "body", "s4"),
        (3, 1, "3487 Appendix A. Acknowledgments", "heading", "sA"),
        (3, 2, "3488 The editors thank the members.", "body", "sA"),
    ]
    lines = [{"page": p, "line": ln, "text": t, "role": r, "section_id": s} for p, ln, t, r, s in body]
    toc = [
        {"toc_id": i, "number": None, "title": t, "level": 1, "parent_id": None, "page_start": pg,
         "line_start": 1, "page_end": pg, "source": "heading"}
        for i, t, pg in (("s1", "200 Introduction", 1), ("s4", "2737 4 SAML Versioning", 2),
                         ("sA", "3487 Appendix A. Acknowledgments", 3))
    ]  # fmt: skip
    return build(lines, toc)


def test_a_line_numbered_standard_s_headings_are_read_past_their_margin_number():
    from docintel.retrieval.reflines import line_numbered

    tables = _line_numbered()
    assert line_numbered(tables) and not line_numbered(_guide())
    for raw, first in (
        ("Section 4", "2737 4 SAML Versioning"),
        ("Appendix A", "3487 Appendix A. Acknowledgments"),
    ):
        res = resolve_in_tables(_ref(raw, 1, 8), tables, question=Q)
        assert res.status == "resolved" and res.passages[0].lines[0].text == first, raw


def _manual() -> object:
    """A manual: section 1 opens with "The following sections ..." over its 1.1 and 1.2; 1.2
    points at "the previous section"."""
    body = [
        (1, 1, "1 Overview", "heading", "1"),
        (1, 2, "The following sections describe the parts of the system.", "body", "1"),
        (1, 3, "1.1 Parts", "heading", "1.1"),
        (1, 4, "The parts are listed here.", "body", "1.1"),
        (2, 1, "1.2 Use", "heading", "1.2"),
        (2, 2, "As the previous section said, use it.", "body", "1.2"),
        (3, 1, "2 Maintenance", "heading", "2"),
        (3, 2, "The following sections are none.", "body", "2"),
    ]
    rows = [("1", "1", "Overview", 1, None, 1, 1), ("1.1", "1.1", "Parts", 2, "1", 1, 3),
            ("1.2", "1.2", "Use", 2, "1", 2, 1), ("2", "2", "Maintenance", 1, None, 3, 1)]  # fmt: skip
    return build_rows(body, rows)


def test_relative_sections_are_read_from_the_toc_around_the_reference():
    tables = _manual()
    res = resolve_in_tables(_ref("The following sections", 1, 2), tables, question=Q)
    assert res.status == "resolved" and res.target == "1.1,1.2"
    # one section before or after: the model resolver's (one toc_id), not the toc's
    assert resolve_in_tables(_ref("the previous section", 2, 2), tables, question=Q).status == "unresolved"
    # a section with no sub-sections after the pointer: left unresolved, never its neighbours
    res = resolve_in_tables(_ref("The following sections", 3, 2), tables, question=Q)
    assert res.status == "unresolved"


def test_a_figure_panel_is_the_panel_of_the_figure_its_number_captions():
    body = [
        (1, 1, "Abbildung 4.20: Zwei Punkte in der hyperbolischen Ebene.", "caption", None),
        (1, 2, "Siehe Abbildung 4.20b und Abbildung 4.21a.", "body", None),
        (2, 1, "Abbildung 4.21a: Ein Kreis.", "caption", None),
    ]
    lines = [{"page": p, "line": ln, "text": t, "role": r, "section_id": s} for p, ln, t, r, s in body]
    tables = build(lines, [])
    res = resolve_in_tables(_ref("Abbildung 4.20b", 1, 2), tables, question=Q)
    assert res.status == "resolved" and res.passages[0].lines[0].text.startswith("Abbildung 4.20:")
    res = resolve_in_tables(_ref("Abbildung 4.21a", 1, 2), tables, question=Q)  # its own caption first
    assert res.status == "resolved" and res.passages[0].lines[0].text.startswith("Abbildung 4.21a:")
    # a section id with a letter is its own unit, never a "panel" of another
    assert resolve_in_tables(_ref("Section 4.20b", 1, 2), tables, question=Q).status == "unresolved"
