"""How regulations, codes, bills and licences number their provisions, on generated PDFs."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pymupdf
import pytest

from docintel.parsing import parse_document, sections
from docintel.parsing.pymupdf_backend import parse_with_pymupdf

from .synthetic_pdf import build_pdf

# (text, font, size, where): where is "c" (centred), a left x, or omitted (x 72)
Line = tuple


def _doc(pages: list[list[Line]]) -> pymupdf.Document:
    return build_pdf(pages)


def _parse(pages):
    return parse_with_pymupdf(_doc(pages), "gen", layout_mode="never", ocr_mode="never")


def _para(text: str, x: float = 72) -> list[Line]:
    return [(text, "helv", 10, x)]


def _article(n: int, title: str, paras: int = 2) -> list[Line]:
    out = [(f"Article {n}", "helv", 11, "c", 30), (title, "helv", 11, "c", 16)]
    for k in range(1, paras + 1):
        out += _para(f"{k}. Member States shall apply paragraph {k} of this Article to controllers.")
    return out


REGULATION = [
    [
        ("CHAPTER I", "hebo", 14, "c"),
        ("GENERAL PROVISIONS", "hebo", 14, "c", 20),
        *_article(1, "Subject-matter and objectives"),
        ("Article 2", "helv", 11, "c", 30),
        ("Material scope", "helv", 11, "c", 16),
        *_para("1. This Regulation applies to the processing of personal data."),
        *_para("2. This Regulation does not apply to the processing of personal data:"),
        *_para("(a) in the course of an activity outside the scope of Union law;", 100),
        *_para("(b) by a natural person in a purely personal activity.", 100),
        *_para("3. Union law applies to the processing by Union institutions."),
    ],
    [
        ("CHAPTER II", "hebo", 14, "c"),
        ("RIGHTS OF THE DATA SUBJECT", "hebo", 14, "c", 20),
        ("SECTION 1", "hebo", 10, "c", 30),
        ("TRANSPARENCY AND MODALITIES", "hebo", 10, "c", 16),
        *_article(3, "Transparent information"),
        ("SECTION 2", "hebo", 10, "c", 30),
        ("ACCESS TO PERSONAL DATA", "hebo", 10, "c", 16),
        *_article(4, "Right of access by the data subject"),
    ],
    [
        ("CHAPTER III", "hebo", 14, "c"),
        ("CONTROLLER AND PROCESSOR", "hebo", 14, "c", 20),
        ("SECTION 1", "hebo", 10, "c", 30),
        ("GENERAL OBLIGATIONS", "hebo", 10, "c", 16),
        *_article(5, "Responsibility of the controller"),
    ],
]


@pytest.fixture(scope="module")
def regulation():
    return _parse(REGULATION).toc_df.set_index("toc_id")


def test_article_label_over_its_title_is_one_row_with_a_keyword_id(regulation):
    t = regulation
    assert t.loc["Article 1"].title == "Subject-matter and objectives"
    assert t.loc["Article 2"].title == "Material scope"
    assert "Material scope" not in set(t.drop(index="Article 2").title)  # the title is no row of its own


def test_article_paragraphs_and_points_are_cited_ids(regulation):
    t = regulation
    assert {"Article 2(1)", "Article 2(2)", "Article 2(2)(a)", "Article 2(2)(b)", "Article 2(3)"} <= set(
        t.index
    )
    assert t.loc["Article 2(2)(b)"].parent_id == "Article 2(2)"
    assert t.loc["Article 2(3)"].parent_id == "Article 2"
    assert t.loc["Article 2(1)"].level == t.loc["Article 2"].level + 1


def test_sections_of_a_chapter_hold_its_articles_and_restart_per_chapter(regulation):
    t = regulation
    sec = t[t.title == "TRANSPARENCY AND MODALITIES"]
    assert len(sec) == 1 and sec.index[0] == "Section 1"
    assert t.loc["Article 3"].parent_id == "Section 1"
    sec2 = t[t.title == "ACCESS TO PERSONAL DATA"].iloc[0]
    assert sec2.level == sec.iloc[0].level  # "SECTION 2" after an article is still a section
    assert t.loc["Article 4"].parent_id == sec2.name
    again = t[t.title == "GENERAL OBLIGATIONS"]
    assert len(again) == 1 and t.loc["Article 5"].parent_id == again.index[0]  # chapter III's SECTION 1
    # the restarted section carries its chapter: its parent is the chapter's row ("Section 1~2" in III)
    assert t.loc[again.index[0]].parent_id == "III" and t.loc["Section 1"].parent_id == "II"


def test_numbered_paragraphs_outside_an_article_are_no_rows():
    tables = _parse(
        [
            [
                ("1 Installation", "hebo", 14),
                *_para("Follow these steps to install the tool on your machine."),
                *_para("1. Download the package from the project page."),
                *_para("2. Run the installer and accept the licence."),
            ]
        ]
    )
    assert not tables.toc_df.toc_id.str.contains(r"\(").any()


ROBUST = Path(__file__).parent / "data" / "robust"


def test_bill_titles_hold_their_sections():
    # the enrolled bill prints "TITLE I\u2014HAZARDOUS FUEL" / "REDUCTION ON FEDERAL LAND" centred over
    # its sections (a generated PDF's base-14 fonts cannot print the em dash)
    t = parse_document(
        ROBUST / "us_hr1904_healthy_forests_act_enrolled_bill_2003.pdf",
        layout="never",
        ocr="never",
        out_dir=None,
        use_cache=False,
    ).toc_df.set_index("toc_id")
    assert t.loc["Title I"].title == "HAZARDOUS FUEL REDUCTION ON FEDERAL LAND"
    assert t.loc["Section 101"].parent_id == "Title I" and t.loc["Section 108"].parent_id == "Title I"
    assert t.loc["Section 201"].parent_id == "Title II"
    assert t.loc["Section 1"].title == "SHORT TITLE; TABLE OF CONTENTS"
    assert t.loc["Section 101(1)"].title == "AT-RISK COMMUNITY"  # a statute's run-in title ends at ".\u2014"
    assert "REDUCTION ON FEDERAL LAND" not in set(t.title)


BODY = "Any person may apply to the Administrator under this section."
CFR = [
    [
        ("PART 1308 - SCHEDULES OF CONTROLLED SUBSTANCES", "hebo", 12),
        ("\u00a7 1308.11 Schedule I.", "hebo", 10, 72, 30),
        *_para("(a) Schedule I shall consist of the drugs listed in this section."),
        *_para("(b) Opiates. Unless specifically excepted, any of the following."),
        ("\u00a7 1308.15 Schedule V.", "hebo", 10, 72, 30),
        *_para(BODY),
        ("\u00a7 1308.21 Application for exclusion of a", "hebo", 10, 72, 30),
        ("nonnarcotic substance.", "hebo", 10, 80, 12),
        *_para(BODY),
        ("\u00a7 1308.23 Exemption of certain chem-", "hebo", 10, 72, 30),
        ("ical preparations; application.", "hebo", 10, 80, 12),
        *_para(BODY),
    ]
]


def test_bold_section_sign_headings_that_skip_numbers():
    tables = _parse(CFR)
    toc = tables.toc_df
    n = toc.number.fillna("").str.lstrip("\u00a7 ")
    assert {"1308.11", "1308.15", "1308.21", "1308.23"} <= set(n)
    # 1308.23 follows 1308.21 with no chain of sub-numbers: its bold title vouches for it
    row = toc[n == "1308.23"].iloc[0]
    assert row.title == "Exemption of certain chemical preparations; application"


LICENCE = [
    [
        ("OPEN SOURCE AGREEMENT", "hebo", 14, "c"),
        ("1. DEFINITIONS", "helv", 10, 90, 30),
        *_para("A. Contributor means the developer of the software.", 110),
        ("2. DISCLAIMER OF WARRANTIES AND LIABILITIES; WAIVER AND", "helv", 10, 90, 30),
        ("INDEMNIFICATION", "helv", 10, 100, 12),
        *_para("A. No Warranty: THE SUBJECT SOFTWARE IS PROVIDED AS IS.", 110),
    ]
]


def test_licence_clause_title_in_capitals_wraps():
    t = _parse(LICENCE).toc_df.set_index("toc_id")
    assert t.loc["2"].title == "DISCLAIMER OF WARRANTIES AND LIABILITIES; WAIVER AND INDEMNIFICATION"
    assert t.loc["2"].level == t.loc["1"].level


def test_a_bold_name_ending_a_paragraph_is_no_section():
    # the NASA licence's cover: "... Adrian Agogino, Rory" / "Lipkis" in bold, one line pitch lower
    t = parse_document(
        ROBUST / "contract_nasa_open_source_agreement_v1.3.pdf",
        layout="never",
        ocr="never",
        out_dir=None,
        use_cache=False,
    ).toc_df.set_index("toc_id")
    assert "Lipkis" not in set(t.title)
    # the articles are siblings: level-1 sections since session 14 (tc: a body-type "1. 2. 3." run),
    # they hung under the agreement's title line before
    assert t.loc["1"].level == t.loc["5"].level == 1
    assert t.loc["4"].title == "DISCLAIMER OF WARRANTIES AND LIABILITIES; WAIVER AND INDEMNIFICATION"


def test_a_heading_beside_a_table_is_kept_when_the_numbering_vouches_for_it():
    toc = pd.DataFrame({"number": ["3", "3.1", "3.1.1", "3.1.2", "7.4", "Tabela"]})
    gone = [False, False, True, False, True, True]
    # 3.1.1 is 3.1's first child; 7.4 has no parent 7 and stays dropped
    assert sections._vouched(toc, gone) == [False, False, False, False, True, True]


def test_an_article_cited_by_its_label_is_the_whole_provision_with_its_paragraphs():
    """ "Article 2(2)" is the toc's keyed provision and its points, not the heading line alone
    (the paragraphs are toc rows, so a region from the heading stops at the first of them)."""
    from docintel.decide import resolve_pending
    from docintel.questions import parse_question
    from docintel.schema.answer import PendingReference

    tables = _parse(REGULATION)
    q = parse_question("Does this Regulation apply to a purely personal activity?")
    for raw, want in (
        ("Article 2(2)", "purely personal activity"),
        ("Article 2", "applies to the processing"),
        ("Articles 1 and 2", "purely personal activity"),
    ):
        ref = PendingReference(raw_text=raw, ref_type="unknown", origin_page=2, origin_line=5)
        res = resolve_pending(ref, tables, question=q)
        assert (res.status, res.method) == ("resolved", "toc_df"), (raw, res.reason)
        assert want in "\n".join(p.text for p in res.passages), raw
