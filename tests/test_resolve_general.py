"""Resolution rules that must hold across document families (issue 10B): page references by
printed label (restarting numbering, unlabelled pages, a label inferred one page off), a
sub-unit id the document repeats in every section ("paragraph (a)"), and a sub-paragraph
chain followed into the toc's own provision ("§ 164.312(b)(1)").

The documents are built by hand so that each target's page and lines are known.
"""

from __future__ import annotations

import pandas as pd

from docintel.retrieval.lookup import find_page
from docintel.retrieval.resolve import resolve_in_tables
from docintel.schema.answer import PendingReference
from docintel.schema.document import DocTables
from docintel.schema.evidence import ParsedQuestion
from docintel.schema.tables import TABLES

Q = ParsedQuestion(text="")


def build(lines: list[dict], pages: list[dict], toc: list[dict] | None = None) -> DocTables:
    frame = {"line_df": lines, "page_df": pages, "toc_df": toc or []}
    built = {
        n: TABLES[n].conform(pd.DataFrame(frame[n])) if frame.get(n) else TABLES[n].empty() for n in TABLES
    }
    return DocTables(doc_id="d", **built)


def paged(labels: list[str | None], sources: list[str] | None = None, furniture: dict | None = None):
    """One body line per page, plus a page_number line where ``furniture`` prints one."""
    pages = [
        {"page": i + 1, "printed_label": lab, "label_source": (sources or ["printed"] * len(labels))[i]}
        for i, lab in enumerate(labels)
    ]
    lines = [
        {"page": i + 1, "line": 1, "text": f"body of sheet {i + 1}", "role": "body"}
        for i in range(len(labels))
    ]
    for page, text in (furniture or {}).items():
        lines.append({"page": page, "line": 2, "text": text, "role": "page_number"})
    return build(lines, pages)


def test_label_before_physical_page():
    t = paged(["i", "ii", "1", "2", "3", "4"])
    assert find_page(t, "3") == (5, "page_label")
    assert find_page(t, "ii") == (2, "page_label")


def test_restarting_numbering_takes_the_run_of_the_reference():
    # a syllabus 1-3 then an opinion 1-4: "page 2" written in the opinion is the opinion's page 2
    t = paged(["1", "2", "3", "1", "2", "3", "4"])
    assert find_page(t, "2", origin_page=6) == (5, "page_label")
    assert find_page(t, "2", origin_page=1) == (2, "page_label")
    assert find_page(t, "2") == (2, "page_label")


def test_unlabelled_page_placed_by_the_offset_of_its_neighbours():
    # printed = physical - 2; the last two sheets print no number (figures)
    t = paged([None, None, "1", "2", "3", "4", None, None])
    assert find_page(t, "6") == (8, "page_label")  # not physical page 6 (printed 4)
    assert find_page(t, "9") == (None, "none")  # past the end


def test_physical_page_only_when_nothing_is_printed():
    assert find_page(paged([None, None, None]), "2") == (2, "physical_page")
    assert find_page(paged([None, None, None]), "iv") == (None, "none")


def test_inferred_label_one_page_off_gives_way_to_the_page_printing_it():
    labels = ["1", "2", "3", "4", "5"]
    sources = ["printed", "printed", "inferred", "printed", "printed"]
    t = paged(labels, sources, furniture={4: "3", 5: "5"})  # sheet 4 prints "3": the inference is off
    assert find_page(t, "3") == (4, "page_label")
    t = paged(labels, sources, furniture={3: "- 3 -"})  # the inferred page does print it
    assert find_page(t, "3") == (3, "page_label")


def _rule():
    """§ 1.10 and § 1.20, each with (a) and (b); (b) of § 1.20 has (1) and (2)."""
    rows = [
        ("1.10", "1.10", None, 1, "§ 1.10 Scope."),
        ("1.10(a)", "(a)", "1.10", 2, "(a) Scope of the first rule applies to sellers."),
        ("1.10(b)", "(b)", "1.10", 3, "(b) Exceptions of the first rule."),
        ("1.20", "1.20", None, 4, "§ 1.20 Duties."),
        ("1.20(a)", "(a)", "1.20", 5, "(a) Duties of buyers. See paragraph (b) of this section."),
        ("1.20(b)", "(b)", "1.20", 6, "(b) Records kept by buyers:"),
        ("1.20(b)(1)", "(1)", "1.20(b)", 7, "(1) Invoices for five years; and"),
        ("1.20(b)(2)", "(2)", "1.20(b)", 8, "(2) Receipts for two years."),
    ]
    lines, toc = [], []
    for i, (tid, num, parent, line, text) in enumerate(rows):
        sec = tid
        lines.append({"page": 1, "line": line, "text": text, "role": "heading" if i in (0, 3) else "body",
                      "section_id": sec})  # fmt: skip
        toc.append({"toc_id": tid, "number": num, "title": text if i in (0, 3) else "", "parent_id": parent,
                    "level": tid.count("(") + 1, "page_start": 1, "line_start": line, "page_end": 1,
                    "line_end": line if i not in (0, 3, 5) else {0: 3, 3: 8, 5: 8}[i], "source": "provision"})  # fmt: skip
    return build(lines, [{"page": 1, "printed_label": None}], toc)


def _ref(raw: str, line: int) -> PendingReference:
    return PendingReference(raw_text=raw, ref_type="unknown", origin_page=1, origin_line=line)


def test_a_repeated_sub_unit_id_is_the_one_of_the_section_it_is_written_in():
    t = _rule()
    res = resolve_in_tables(_ref("paragraph (b) of this section", 5), t, question=Q)
    assert res.status == "resolved"
    text = " ".join(ln.text for p in res.passages for ln in p.lines)
    assert "Records kept by buyers" in text and "Exceptions of the first rule" not in text


def test_a_sub_paragraph_chain_is_followed_into_the_provision_itself():
    t = _rule()
    res = resolve_in_tables(_ref("§ 1.20(b)(2)", 2), t, question=Q)
    assert res.status == "resolved"
    text = [ln.text for p in res.passages for ln in p.lines]
    assert text == ["(2) Receipts for two years."]
    res = resolve_in_tables(_ref("§ 1.20(b)", 2), t, question=Q)
    text = " ".join(ln.text for p in res.passages for ln in p.lines)
    assert (
        "Records kept" in text
        and "Invoices" in text
        and "Receipts" in text
        and "Duties of buyers" not in text
    )


def _report():
    """A report whose registry and toc are empty: a contents line, a caption, a footnote."""
    rows = [
        (1, 1, "toc_entry", "Tabela 3.1 Fecundidade ........ 2"),
        (1, 3, "body", "Tabela 4.1"),  # a list of tables: the entry, its title and leaders below
        (1, 4, "body", "Uso de redes ........ 9"),
        (1, 5, "body", "Tabela 4.2 Posse ........ 9"),
        (1, 6, "body", "Tabela 4.3 Outras ........ 9"),
        (1, 2, "body", "A tabela 3.1 apresenta as taxas, como LEWIS, supra note 2, mostra."),
        (2, 1, "caption", "Tabela 3.1 Taxas de fecundidade por idade"),
        (2, 2, "table", "15-19 | 124"),
        (2, 3, "table", "20-24 | 231"),
        (2, 4, "heading", "3.2 Outras medidas"),
        (2, 5, "footnote", "1 SPENCER, IRAQ (2000)."),
        (2, 6, "footnote", "2 LEWIS, THE MIDDLE EAST 35 (1995),"),
        (2, 7, "footnote", "available at a library."),
        (2, 8, "footnote", "3 Id. at 18."),
    ]
    lines = [{"page": p, "line": n, "role": r, "text": t} for p, n, r, t in rows]
    return build(lines, [{"page": 1}, {"page": 2}])


def test_a_caption_the_registry_missed_is_found_by_its_line_in_any_language():
    res = resolve_in_tables(_ref("tabela 3.1", 2), _report(), question=Q)
    assert (res.status, res.method) == ("resolved", "offline_rules")
    text = [ln.text for p in res.passages for ln in p.lines]
    assert text == ["Tabela 3.1 Taxas de fecundidade por idade", "15-19 | 124", "20-24 | 231"]
    assert res.target_pages == [2]  # not the contents line on page 1


def test_a_footnote_is_found_by_its_marker_with_its_continuation():
    res = resolve_in_tables(_ref("note 2", 2), _report(), question=Q)
    assert res.status == "resolved" and res.ref_type == "footnote"
    text = [ln.text for p in res.passages for ln in p.lines]
    assert text == ["2 LEWIS, THE MIDDLE EAST 35 (1995),", "available at a library."]


def test_a_label_only_listed_on_a_contents_page_stays_unresolved():
    assert resolve_in_tables(_ref("Tabela 4.1", 2), _report(), question=Q).status == "unresolved"


def test_a_paragraph_id_is_matched_as_written_not_across_case():
    t = _rule()
    toc = t.toc_df.copy()
    toc.loc[toc["toc_id"] == "1.20(b)(1)", "number"] = "(B)"  # a deeper "(B)" before the section's own
    t = DocTables(doc_id="d", **{**t.tables(), "toc_df": toc})
    res = resolve_in_tables(_ref("paragraph (b)", 7), t, question=Q)
    assert res.target == "(b)" and res.passages[0].lines[0].text.startswith("(b) Records")


def test_a_named_unit_is_its_heading_not_a_paragraph_with_the_same_number():
    # a regulation's toc holds the paragraphs "1." and "2." of each article; "Article 2" is the heading
    rows = [
        (1, 1, "heading", "Article 1"), (1, 2, "body", "Subject matter"),
        (1, 3, "body", "1."), (1, 4, "body", "This Regulation lays down rules."),
        (1, 5, "body", "2."), (1, 6, "body", "It protects rights, see Article 2."),
        (2, 1, "heading", "Article 2"), (2, 2, "body", "Material scope"),
        (2, 3, "body", "1."), (2, 4, "body", "This Regulation applies to processing."),
    ]  # fmt: skip
    lines = [{"page": p, "line": n, "role": r, "text": t} for p, n, r, t in rows]
    toc = [{"toc_id": f"a{p}-{n}", "number": n, "title": "", "level": 2, "page_start": pg, "line_start": ln,
            "page_end": pg, "line_end": ln + 1} for (p, n, pg, ln) in [(1, "1", 1, 3), (1, "2", 1, 5), (2, "1", 2, 3)]]  # fmt: skip
    t = build(lines, [{"page": 1}, {"page": 2}], toc)
    res = resolve_in_tables(_ref("Article 2", 6), t, question=Q)
    assert res.target_pages == [2] and res.passages[0].lines[0].text == "Article 2"
    res = resolve_in_tables(_ref("paragraph 2", 4), t, question=Q)
    assert res.target_pages == [1]


def test_a_lettered_paragraph_cited_in_dotted_form_is_its_toc_row():
    # "clause 5.F" names the paragraph printed "F." under clause 5 (toc id "5(F)"); "5.2" stays decimal
    from docintel.retrieval.lookup import find_sections

    from .test_retrieval import DOC, make_tables

    toc = [
        {
            "doc_id": DOC,
            "toc_id": "5",
            "number": "5",
            "title": "GENERAL TERMS",
            "level": 1,
            "page_start": 1,
            "line_start": 1,
        },
        {
            "doc_id": DOC,
            "toc_id": "5(F)",
            "number": "(F)",
            "title": "",
            "level": 2,
            "page_start": 1,
            "line_start": 3,
        },
        {
            "doc_id": DOC,
            "toc_id": "5.2",
            "number": "5.2",
            "title": "Fees",
            "level": 2,
            "page_start": 1,
            "line_start": 5,
        },
    ]
    tables = make_tables(
        {
            1: [
                "5. GENERAL TERMS",
                "E. Notices.",
                "F. Points of Contact: the representative.",
                "x",
                "5.2 Fees",
            ]
        },
        toc=toc,
    )
    assert find_sections(tables, "5.F")["toc_id"].tolist() == ["5(F)"]
    assert find_sections(tables, "5.2")["toc_id"].tolist() == ["5.2"]
    assert find_sections(tables, "5.G").empty
