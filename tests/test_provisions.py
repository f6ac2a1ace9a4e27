"""Numbered provisions, structure precision, back matter and stage isolation, on generated PDFs."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docintel.parsing import parse_document, pymupdf_backend, toc
from docintel.parsing.headings import first_sentence
from docintel.parsing.provision_scan import roman_value
from docintel.parsing.pymupdf_backend import parse_with_pymupdf

from .synthetic_pdf import build_pdf

Line = tuple[str, str, float] | tuple[str, str, float, float]


def _doc(pages: list[list[Line]]) -> pymupdf.Document:
    """(text, font, size[, x]) lines stacked from the top of each page, a blank line between paragraphs."""
    return build_pdf(pages, step=lambda size, x: size * 1.5 if x > 72 else size * 2.4)


def _parse(pages):
    return parse_with_pymupdf(_doc(pages), "gen", layout_mode="never", ocr_mode="never")


CONTRACT = [
    [
        ("NON-DISCLOSURE AGREEMENT", "hebo", 16),
        ("1. Definitions", "hebo", 11),
        ("1.1 In this Agreement the following words have these meanings.", "helv", 10),
        ("1.2 Headings do not affect the interpretation of this Agreement.", "helv", 10),
        ("2. Obligations", "hebo", 11),
        ("2.1 The Recipient must:", "helv", 10),
        ("(a) keep the Confidential Information strictly confidential;", "helv", 10, 100),
        ("(b) not disclose it to any person; and", "helv", 10, 100),
        ("(c) use it only for the Purpose.", "helv", 10, 100),
        ("2.2 Notwithstanding Clause 2.1, the Recipient may disclose it to advisers.", "helv", 10),
        ("2.5 times the fee is payable on a breach of Clause 2.1 by the Recipient.", "helv", 10),
        ("3. Term", "hebo", 11),
        ("3.1 This Agreement ends on the fifth anniversary of the Effective Date.", "helv", 10),
        ("5.1 This stray number does not follow the numbering of this document.", "helv", 10),
    ]
]


@pytest.fixture(scope="module")
def contract():
    return _parse(CONTRACT)


def test_untitled_sub_clauses_are_toc_rows_under_their_clause(contract):
    t = contract.toc_df.set_index("toc_id")
    assert {"1.1", "1.2", "2.1", "2.2", "3.1"} <= set(t.index)
    assert t.loc["1.1"].parent_id == "1" and t.loc["2.2"].parent_id == "2"
    assert t.loc["1.1"].source == "provision" and t.loc["1.1"].title == ""
    assert t.loc["2.1"].level == t.loc["2"].level + 1
    # a clause runs to its next sibling, its paragraphs included
    assert (t.loc["2.1"].page_end, t.loc["2.1"].line_end) == (1, int(t.loc["2.2"].line_start) - 1)


def test_numbering_sequence_rejects_numbers_that_do_not_fit(contract):
    ids = set(contract.toc_df.toc_id)
    assert "2.5" not in ids  # "2.5 times the fee" jumps from 2.2 and starts in lower case
    assert "5.1" not in ids  # no clause 5 in the document
    assert not contract.toc_df.toc_id.str.startswith("5").any()


def test_lettered_paragraphs_nest_under_the_sub_clause(contract):
    t = contract.toc_df.set_index("toc_id")
    assert {"2.1(a)", "2.1(b)", "2.1(c)"} <= set(t.index)
    assert t.loc["2.1(b)"].parent_id == "2.1" and t.loc["2.1(b)"].number == "(b)"


def test_clauses_are_registry_objects_labelled_as_the_document_cites_them(contract):
    reg = contract.object_registry.set_index("object_key")
    assert {"clause:1", "clause:1.1", "clause:2.1", "clause:2.2", "clause:3.1"} <= set(reg.index)
    assert reg.loc["clause:2.2"].label == "Clause 2.2"
    assert reg.loc["clause:2.2"].caption.startswith("Notwithstanding Clause 2.1")
    assert not reg.index.str.startswith("clause:(").any()  # paragraphs are not clauses
    # provision lines keep their body role: they have a number, not heading typography
    ld = contract.line_df
    line = int(reg.loc["clause:1.1"].line_start)
    assert ld[(ld.page == 1) & (ld.line == line)].role.iloc[0] != "heading"


def test_keyword_and_regulation_numbering():
    tables = _parse(
        [
            [
                ("ARTICLE I", "helv", 10),
                ("Section 1.01 Definitions. Terms used here have these meanings, as", "helv", 10),
                ("set out in this Article.", "helv", 10, 73),
                ("Section 1.02 Interpretation. Headings are for convenience only and", "helv", 10),
                ("do not affect the meaning.", "helv", 10, 73),
                ("ARTICLE II", "helv", 10),
                ("Section 2.01 Payment. The Buyer pays within thirty days.", "helv", 10),
                ("(a) Interest accrues on late payments at the agreed rate.", "helv", 10),
                ("(1) The rate is fixed on the due date of the payment.", "helv", 10, 100),
                ("(i) A partial payment is applied to the oldest invoice.", "helv", 10, 120),
                ("(ii) Any excess is credited to the next invoice.", "helv", 10, 120),
                ("(2) Interest is paid with the late payment.", "helv", 10, 100),
                ("(b) Payments are made in the agreed currency.", "helv", 10),
            ]
        ]
    )
    t = tables.toc_df.set_index("toc_id")
    assert {"Article I", "Article II", "1.01", "1.02", "2.01"} <= set(t.index)
    assert t.loc["1.01"].parent_id == "Article I" and t.loc["2.01"].parent_id == "Article II"
    assert t.loc["2.01"].title == "Payment"  # a run-in title is a title
    assert {"2.01(a)", "2.01(a)(1)", "2.01(a)(1)(i)", "2.01(a)(1)(ii)", "2.01(a)(2)", "2.01(b)"} <= set(
        t.index
    )
    assert t.loc["2.01(a)(1)(ii)"].parent_id == "2.01(a)(1)"
    assert t.loc["2.01(b)"].level == t.loc["2.01(a)"].level
    reg = tables.object_registry.set_index("object_key")
    assert reg.loc["clause:1.01"].label == "Section 1.01"
    assert reg.loc["clause:II"].label == "Article II"


def test_a_printed_list_of_sections_is_not_the_sections():
    listing = [("Contents of this Act", "hebo", 12)]
    listing += [(f"SEC. {n}. TITLE OF SECTION {n}.", "helv", 10) for n in (101, 102, 103, 104, 105)]
    body = [("An Act to do things", "hebo", 12)]
    for n in (101, 102, 103, 104, 105):
        body += [
            (f"SEC. {n}. TITLE OF SECTION {n}.", "hebo", 10),
            ("The Secretary shall act under", "helv", 10),
        ]
        body += [("this section as it provides.", "helv", 10, 73)]
    tables = _parse([listing, body])
    t = tables.toc_df
    prov = t[t.source == "provision"]
    assert set(prov.page_start) == {2} and len(prov) == 5
    assert prov.set_index("toc_id").loc["Section 101"].title == "TITLE OF SECTION 101"


def test_roman_numerals():
    assert roman_value("iv") == 4 and roman_value("XII") == 12
    assert roman_value("iiii") is None and roman_value("ab") is None


def test_a_heading_is_at_most_a_sentence():
    assert first_sentence("Comparisons with the State of the Art. In Table 4 we compare") == (
        "Comparisons with the State of the Art."
    )
    assert first_sentence("Identity vs. Projection Shortcuts.") == "Identity vs. Projection Shortcuts."


def test_front_matter_and_repeated_labels_are_not_sections():
    tables = _parse(
        [
            [
                ("A Study of Structure in Documents", "hebo", 18),
                ("Ada Lovelace  Charles Babbage", "helv", 12),
                ("Analytical Engines Ltd", "helv", 12),
                ("Abstract", "hebo", 12),
                ("We study the structure of documents and report what we find here.", "helv", 10),
                ("1 Introduction", "hebo", 12),
                ("Body text of the section that runs on for a while and ends with a stop.", "helv", 10),
                ("SIGNED BY", "hebo", 10),
                ("the first party, on the date written above.", "helv", 10),
                ("SIGNED BY", "hebo", 10),
                ("the second party, on the date written above.", "helv", 10),
            ]
        ]
    )
    titles = set(tables.toc_df.title)
    assert {"Abstract", "Introduction"} <= titles
    assert not titles & {
        "Ada Lovelace  Charles Babbage",
        "Ada Lovelace Charles Babbage",
        "Analytical Engines Ltd",
    }
    assert "SIGNED BY" not in titles


def test_lettered_appendices_after_the_references_are_appendix_objects():
    tables = _parse(
        [
            [
                ("1 Introduction", "hebo", 14),
                ("Body text of the section that runs on for a while and ends with a stop.", "helv", 10),
                ("References", "hebo", 14),
                ("[1] A. Author. A paper about documents. 2020.", "helv", 10),
            ],
            [
                ("A Additional Details", "hebo", 14),
                ("Body text of the appendix that runs on for a while and ends with a stop.", "helv", 10),
                ("A.1 More Details", "hebo", 12),
                ("Body text of the appendix that runs on for a while and ends with a stop.", "helv", 10),
                ("B Experimental Setup", "hebo", 14),
                ("Body text of the appendix that runs on for a while and ends with a stop.", "helv", 10),
            ],
        ]
    )
    t = tables.toc_df.set_index("toc_id")
    assert t.loc["A"].level == t.loc["1"].level  # not filed under the References
    assert t.loc["A.1"].parent_id == "A"
    reg = tables.object_registry.set_index("object_key")
    assert {"appendix:A", "appendix:B"} <= set(reg.index)
    assert reg.loc["appendix:A"].page_end == 2


def test_exhibits_and_schedules_are_objects():
    tables = _parse(
        [
            [
                ("1 Scope", "hebo", 14),
                ("Body text that runs on for a while and ends with a stop.", "helv", 10),
            ],
            [("Exhibit B: Form of Notice", "hebo", 14), ("Body text of the exhibit ends here.", "helv", 10)],
            [("Schedule 2 Fees", "hebo", 14), ("Body text of the schedule ends here.", "helv", 10)],
        ]
    )
    reg = tables.object_registry.set_index("object_key")
    assert reg.loc["exhibit:B"].label == "Exhibit B" and reg.loc["exhibit:B"].page == 2
    assert reg.loc["schedule:2"].page == 3


def test_a_failing_stage_is_recorded_and_the_other_tables_are_written(monkeypatch):
    def boom(*a, **k):
        raise ValueError("cannot convert float NaN to integer")

    monkeypatch.setattr(pymupdf_backend.objects, "build_objects", boom)
    tables = _parse(CONTRACT)
    assert "objects" in tables.manifest["stage_errors"]
    assert "NaN" in tables.manifest["stage_errors"]["objects"]
    assert tables.object_registry.empty and list(tables.object_registry.columns)
    assert len(tables.toc_df) and len(tables.line_df) and len(tables.page_df) == 1
    assert tables.line_df.section_id.notna().any()  # later stages still ran


def test_a_failing_toc_stage_leaves_an_empty_toc(monkeypatch):
    monkeypatch.setattr(pymupdf_backend.toc, "build_toc", lambda *a, **k: 1 / 0)
    tables = _parse(CONTRACT)
    assert set(tables.manifest["stage_errors"]) == {"toc"}
    assert tables.toc_df.empty and len(tables.line_df)


def test_no_stage_errors_on_a_good_document(contract):
    assert contract.manifest["stage_errors"] == {}


def test_toc_ends_are_linear_in_the_number_of_rows():
    # many sibling rows: the section ends come from one pass (this used to be quadratic)
    entries = [
        {
            "number": str(i),
            "title": f"T{i}",
            "level": 1 + i % 3,
            "page_start": 1,
            "line_start": i + 1,
            "source": "x",
        }
        for i in range(3000)
    ]
    import pandas as pd

    lines = pd.DataFrame({"page": [1] * 3001, "line": range(1, 3002)})
    frame = toc.to_frame(entries, lines, "d", ids=[f"x{i}" for i in range(3000)])
    assert len(frame) == 3000
    row = frame.iloc[0]  # level 1: ends before the next level-1 row (index 3)
    assert row.line_end == 3


ROBUST = Path(__file__).parent / "data" / "robust"


def _robust(name: str):
    return parse_document(ROBUST / name, layout="never", ocr="never", out_dir=None, use_cache=False)


def test_enrolled_bill_sections_under_their_titles():
    t = _robust("us_hr1904_healthy_forests_act_enrolled_bill_2003.pdf").toc_df.set_index("toc_id")
    assert t.loc["Section 101"].title == "DEFINITIONS" and t.loc["Section 101"].page_start == 3
    assert t.loc["Section 201"].page_start > 3  # the body's SEC. 201, not its line in the contents list
    assert t.loc["Section 101"].level == t.loc["Section 201"].level


def test_cfr_sections_keep_one_level_and_nest_their_paragraphs():
    t = _robust("cfr_title21_part1308_dea_controlled_substance_schedules.pdf").toc_df.set_index("toc_id")
    assert t.loc["\u00a7 1308.13"].level == t.loc["\u00a7 1308.14"].level
    assert t.loc["\u00a7 1308.13(b)"].parent_id == "\u00a7 1308.13"
    assert t.loc["\u00a7 1308.13(b)"].title == "Stimulants"


def test_licence_agreement_numbered_articles_and_lettered_definitions():
    tables = _robust("contract_nasa_open_source_agreement_v1.3.pdf")
    t = tables.toc_df.set_index("toc_id")
    assert t.loc["1"].title == "DEFINITIONS" and t.loc["2"].title == "GRANT OF RIGHTS"
    assert {f"1({c})" for c in "ABCDEFGHIJKLM"} <= set(t.index)
    assert t.loc["2(B)"].title == "Under Patent Rights" and t.loc["2(B)"].parent_id == "2"
    reg = tables.object_registry.set_index("object_key")
    assert {"clause:1", "clause:2", "clause:5"} <= set(reg.index)


def test_headings_printed_as_sections_are_clause_objects():
    tables = _parse(
        [
            [
                ("MASTER SERVICES AGREEMENT", "hebo", 18),
                ("This Agreement is made between the parties named on the cover page.", "helv", 10),
                ("ARTICLE I DEFINITIONS", "hebo", 13),
                ("Section 1.01 Defined Terms", "hebo", 11),
                ("Capitalised terms used in this Agreement have the meanings given here.", "helv", 10),
                ("Section 1.02 Interpretation", "hebo", 11),
                ("Headings are for convenience only and do not affect the meaning.", "helv", 10),
            ]
        ]
    )
    reg = tables.object_registry.set_index("object_key")
    assert reg.loc["clause:1.01"].label == "Section 1.01" and reg.loc["clause:1.01"].page == 1
    assert reg.loc["clause:I"].label == "Article I"


def test_parse_summary_names_a_failed_stage(monkeypatch, tmp_path, capsys):
    import pymupdf

    from docintel.cli import main

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "1 Scope", fontname="hebo", fontsize=14)
    page.insert_text((72, 100), "Body text of the only page ends here.", fontsize=10)
    doc.save(tmp_path / "one.pdf")

    def boom(*a, **k):
        raise ValueError("cannot convert float NaN to integer")

    monkeypatch.setattr(pymupdf_backend.objects, "build_objects", boom)
    assert main(["parse", str(tmp_path / "one.pdf"), "--artifacts", str(tmp_path / "art")]) == 0
    out = capsys.readouterr().out
    assert "stage failed, its table left empty: objects: ValueError" in out


def test_chained_and_stacked_paragraph_labels_open_every_level():
    # "(1)" printed alone over "(i) Standard: ..." and "(2)(i) ..." on one line, as the eCFR prints them
    tables = _parse(
        [
            [
                ("\u00a7 164.308 Administrative safeguards.", "hebo", 10),
                ("(a) A covered entity must, in accordance with this section:", "helv", 10),
                ("(1)", "helv", 10, 90),
                ("(i) Standard: Security management process. Implement policies.", "helv", 10, 110),
                ("(ii) Implementation specifications:", "helv", 10, 110),
                ("(A) Risk analysis (Required). Conduct an assessment.", "helv", 10, 130),
                ("(2)(i) Standard: Workforce security. Implement procedures.", "helv", 10, 90),
                ("(ii) Implementation specifications: clearance procedures.", "helv", 10, 110),
                ("(b) A covered entity may permit a business associate to act.", "helv", 10),
            ]
        ]
    )
    t = tables.toc_df.set_index("toc_id")
    root = "164.308"
    want = [
        "(a)",
        "(a)(1)",
        "(a)(1)(i)",
        "(a)(1)(ii)",
        "(a)(1)(ii)(A)",
        "(a)(2)",
        "(a)(2)(i)",
        "(a)(2)(ii)",
        "(b)",
    ]
    assert {root + w for w in want} <= set(t.index)
    assert t.loc[root + "(a)(1)(i)"].parent_id == root + "(a)(1)"
    assert t.loc[root + "(a)(2)"].level == t.loc[root + "(a)(1)"].level
    bare = tables.line_df[tables.line_df.text.str.strip() == "(1)"].line.iloc[0]
    assert (
        t.loc[root + "(a)(1)"].line_start == t.loc[root + "(a)(1)(i)"].line_start == bare
    )  # from the bare "(1)"
    # paragraph (1) ends where (2) begins: its extent does not swallow its sibling
    assert (t.loc[root + "(a)(1)"].page_end, t.loc[root + "(a)(1)"].line_end) < (
        t.loc[root + "(a)(2)"].page_start,
        t.loc[root + "(a)(2)"].line_start,
    )
