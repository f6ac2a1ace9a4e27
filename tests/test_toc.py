"""toc_df: outline matching, printed contents pages, heading detection, section ranges."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pymupdf
import pytest

from docintel.parsing import parse_document, toc, toc_sources
from docintel.parsing.pymupdf_backend import parse_with_pymupdf

PDFS = Path(__file__).resolve().parents[1] / "pdfs"


@pytest.fixture(scope="module")
def nist():
    return parse_document(PDFS / "nist_sp800-106.pdf", layout="never", out_dir=None, use_cache=False)


@pytest.fixture(scope="module")
def faa():
    return parse_document(PDFS / "faa_ad_nprm_2020-17221.pdf", layout="never", out_dir=None, use_cache=False)


def _line(tables, page: int, line: int) -> str:
    ld = tables.line_df
    return ld[(ld.page == page) & (ld.line == line)].iloc[0].text


def _doc(pages: list[list[tuple[str, str, float]]]) -> pymupdf.Document:
    """A PDF whose pages hold (text, font, size) lines stacked from the top."""
    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page(width=595, height=842)
        y = 72.0
        for text, font, size in lines:
            y += size * 1.6
            page.insert_text((72, y), text, fontname=font, fontsize=size)
    return pymupdf.open("pdf", doc.tobytes())


BODY = "Body text of the section that runs on for a while and ends with a full stop."


def test_nist_outline_entries_are_matched_to_their_heading_lines(nist):
    t = nist.toc_df.set_index("toc_id")
    assert (nist.toc_df.source == "outline").sum() >= 15
    row = t.loc["1.1"]
    assert row.title.strip() == "Authority" and row.page_start == 6
    assert "Authority" in _line(nist, 6, int(row.line_start))
    # "3.   Randomized Hashing" (extra spaces in the outline title) still finds its line
    ld = nist.line_df
    start = ld[(ld.page == t.loc["3"].page_start) & (ld.line == t.loc["3"].line_start)].iloc[0]
    same_row = ld[(ld.page == start.page) & ((ld.y1 - start.y1).abs() < 3)]
    assert "Randomized Hashing" in " ".join(same_row.text) and set(same_row.role) == {"heading"}
    assert nist.toc_df.toc_id.is_unique
    assert t.loc["1.1"].parent_id == "1"


def test_nist_adds_unnumbered_sections_the_outline_misses(nist):
    detected = nist.toc_df[nist.toc_df.source == "heading_detection"]
    assert {"Abstract", "Acknowledgements"} <= set(detected.title)
    assert not nist.toc_df.title.str.contains("COMPUTER|Special Publication", regex=True).any()  # cover page


def test_nist_duplicate_number_fragments_do_not_become_sections(nist):
    ld = nist.line_df
    p6 = ld[ld.page == 6]
    assert set(p6[p6.text.str.strip() == "1.1"].role) <= {
        "heading"
    }  # an artefact left by the lines belongs to the heading
    assert (nist.toc_df.title.str.strip() == "").sum() == 0
    assert nist.toc_df.page_start.is_monotonic_increasing


def test_nist_contents_page_lines_are_toc_entries(nist):
    ld = nist.line_df
    p5 = ld[(ld.page == 5) & ld.text.str.contains(r"\.{5,}")]
    assert len(p5) >= 10 and set(p5.role) == {"toc_entry"}


def test_nist_sections_are_assigned_to_lines(nist):
    ld = nist.line_df
    t = nist.toc_df.set_index("toc_id")
    start = ld[(ld.page == t.loc["3.2"].page_start) & (ld.line == t.loc["3.2"].line_start + 1)]
    assert start.section_id.iloc[0] == "3.2"
    assert ld[ld.page == 17].section_id.dropna().eq("6").any()


def test_faa_without_outline_detects_paragraph_headings(faa):
    t = faa.toc_df
    # sub-paragraphs "(h)(1)" in body type are provisions; every heading is detected
    assert set(t.source) == {"heading_detection", "provision"}
    ids = set(t.toc_id)
    assert {f"({c})" for c in "abcdefghijklmnopq"} <= ids
    a = t.set_index("toc_id").loc["(a)"]
    assert a.title == "Comments Due Date" and a.page_start == 6
    assert "39.13" in ids
    titles = set(t.title)
    assert {"Background", "Costs of Compliance", "Regulatory Findings"} <= titles
    # a heading wrapped over two lines is one section
    assert any(x.startswith("Related Service Information Under 1 CFR Part 51") for x in titles)
    # running headers / page numbers / rotated margin stamps never become sections
    assert not t.title.str.contains("Federal Register / Vol|VerDate|jbell", regex=True).any()


def test_faa_paragraph_headings_nest_under_the_section_sign(faa):
    t = faa.toc_df.set_index("toc_id")
    assert t.loc["(a)"].level > t.loc["39.13"].level
    assert t.loc["(q)"].page_end >= t.loc["(q)"].page_start


def test_numbered_headings_without_outline():
    doc = _doc(
        [
            [
                ("1 Introduction", "hebo", 14),
                (BODY, "helv", 10),
                ("2 Method", "hebo", 14),
                (BODY, "helv", 10),
                ("2.1 Data", "hebo", 12),
                (BODY, "helv", 10),
                ("1. a numbered list item in the body", "helv", 10),
            ],
            [("3 Results", "hebo", 14), (BODY, "helv", 10)],
        ]
    )
    tables = parse_with_pymupdf(doc, "gen", layout_mode="never")
    t = tables.toc_df.set_index("toc_id")
    assert list(t.index) == ["1", "2", "2.1", "3"]
    assert t.loc["2.1"].parent_id == "2" and t.loc["2.1"].level == 2
    assert (t.loc["2"].page_end, t.loc["2"].line_end) == (1, 7)  # up to the line before "3 Results"
    assert t.loc["3"].page_start == 2
    ld = tables.line_df
    assert ld[ld.text == "2.1 Data"].role.iloc[0] == "heading"
    assert ld[(ld.page == 2) & (ld.line == 2)].section_id.iloc[0] == "3"


def test_printed_contents_page_maps_labels_to_physical_pages():
    doc = _doc(
        [
            [
                ("Contents", "hebo", 14),
                ("1 Introduction ........................ 1", "helv", 10),
                ("2 Background ........................ 2", "helv", 10),
                ("2.1 Prior Work ..................... 2", "helv", 10),
            ],
            [("1 Introduction", "helv", 10), (BODY, "helv", 10)],
            [
                ("2 Background", "helv", 10),
                (BODY, "helv", 10),
                ("2.1 Prior Work", "helv", 10),
                (BODY, "helv", 10),
            ],
        ]
    )
    lines = parse_with_pymupdf(doc, "gen", layout_mode="never").line_df
    lines["role"] = "body"
    page_df = pd.DataFrame({"page": [1, 2, 3], "printed_label": [None, "1", "2"]})
    toc_df, marked = toc.build_toc(doc, lines, page_df, "gen")
    t = toc_df.set_index("toc_id")
    assert set(toc_df.source) == {"contents_page"}
    assert (t.loc["1"].page_start, t.loc["2"].page_start, t.loc["2.1"].page_start) == (2, 3, 3)
    assert t.loc["2.1"].line_start == 3 and t.loc["2.1"].parent_id == "2"
    assert set(
        marked[marked.page == 1].text.str.contains(r"\.\.\.") & (marked[marked.page == 1].role == "toc_entry")
    ) >= {True}


def test_rotated_and_tiny_text_is_not_a_heading():
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 90), "1 Introduction", fontname="hebo", fontsize=14)
    page.insert_text((72, 120), BODY, fontname="helv", fontsize=10)
    page.insert_text((300, 400), "Governments", fontname="hebo", fontsize=12, rotate=90)
    page.insert_text((72, 140), BODY, fontname="helv", fontsize=10)
    doc = pymupdf.open("pdf", doc.tobytes())
    tables = parse_with_pymupdf(doc, "gen", layout_mode="never")
    assert list(tables.toc_df.title) == ["Introduction"]


def test_manual_style_italic_run_of_headings():
    body = [(BODY, "tiro", 10), ("It goes on with a second sentence of plain body text here.", "tiro", 10)]
    doc = _doc(
        [
            [
                ("Boots Self-Locking Nut", "tiit", 10),
                *body,
                ("Elastic Stop Nut", "tiit", 10),
                *body,
                ("an italic phrase inside prose", "tiit", 10),
                *body,
            ]
        ]
    )
    tables = parse_with_pymupdf(doc, "gen", layout_mode="never")
    assert list(tables.toc_df.title) == ["Boots Self-Locking Nut", "Elastic Stop Nut"]


def test_non_latin_numbered_headings():
    doc = _doc(
        [
            [
                ("1 \u5e8f\u8ad6", "china-ss", 14),
                (BODY, "helv", 10),
                ("2 \u65b9\u6cd5", "china-ss", 14),
                (BODY, "helv", 10),
            ]
        ]
    )
    tables = parse_with_pymupdf(doc, "gen", layout_mode="never")
    assert list(tables.toc_df.toc_id) == ["1", "2"]


def test_ieee_roman_and_letter_headings():
    doc = _doc(
        [
            [
                ("I. INTRODUCTION", "tiro", 10),
                (BODY, "tiro", 10),
                ("A. Prior Work", "tiit", 10),
                (BODY, "tiro", 10),
                ("II. METHOD", "tiro", 10),
                (BODY, "tiro", 10),
                ("A. Data Sets", "tiit", 10),
                (BODY, "tiro", 10),
            ]
        ]
    )
    t = parse_with_pymupdf(doc, "gen", layout_mode="never").toc_df
    assert list(t.toc_id) == ["I", "I.A", "II", "II.A"]
    assert list(t.parent_id.fillna("")) == ["", "I", "", "II"]


def _mixed_line(page, y: float, parts: list[tuple[str, str]], size: float = 10) -> None:
    """One baseline of differently styled runs, left to right."""
    x = 72.0
    for text, font in parts:
        page.insert_text((x, y), text, fontname=font, fontsize=size)
        x += pymupdf.get_text_length(text, fontname=font, fontsize=size)


def test_bold_subject_of_a_sentence_is_not_a_run_in_heading():
    # "Jim Bainbridge is a senior consultant ...": a bold name that the sentence goes on from
    # (author bios) was a run-in heading; "Acknowledgements We thank ..." still is one
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 90), "1 Authors", fontname="hebo", fontsize=14)
    page.insert_text((72, 106), BODY, fontname="helv", fontsize=10)
    _mixed_line(
        page, 120, [("Jim Bainbridge", "hebo"), (" is a senior consultant on the team here.", "helv")]
    )
    page.insert_text((72, 134), BODY, fontname="helv", fontsize=10)
    _mixed_line(
        page, 160, [("Acknowledgements", "hebo"), (" We thank the reviewers for their help.", "helv")]
    )
    page.insert_text((72, 174), BODY, fontname="helv", fontsize=10)
    tables = parse_with_pymupdf(pymupdf.open("pdf", doc.tobytes()), "gen", layout_mode="never")
    titles = list(tables.toc_df.title)
    assert "Jim Bainbridge" not in titles and "Acknowledgements" in titles


def test_display_title_fitted_in_two_sizes_is_one_heading():
    # a cover-style title set 33 pt then 30 pt was two headings
    doc = _doc(
        [
            [(BODY, "helv", 10)] * 3,
            [
                ("Row and Column Access", "hebo", 33),
                ("Support in Everything", "hebo", 30),
                *[(BODY, "helv", 10)] * 6,
            ],
        ]
    )
    tables = parse_with_pymupdf(doc, "gen", layout_mode="never")
    assert "Row and Column Access Support in Everything" in list(tables.toc_df.title)


def test_contents_entry_matched_out_of_page_order_is_dropped():
    # "Chapter 3. <book title>" whose page is missing from an excerpt matched the book title on the
    # back cover, after sections the contents page lists later
    e = lambda page, searched: {"page_start": page, "searched": searched}  # noqa: E731
    entries = [e(3, False), e(18, True), e(11, True), e(12, False)]
    assert [x["page_start"] for x in toc_sources.in_contents_order(entries)] == [3, 11, 12]


def test_detected_heading_inside_a_figure_is_dropped():
    # bold syntax words drawn inside a figure ("CREATE PERMISSION") were section headings
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 90), "1 Introduction", fontname="hebo", fontsize=14)
    page.insert_text((72, 120), BODY, fontname="helv", fontsize=10)
    page.draw_rect(pymupdf.Rect(70, 140, 520, 300), color=(0, 0, 0))
    page.insert_text((90, 170), "CREATE PERMISSION", fontname="hebo", fontsize=12)
    page.insert_text((300, 200), "Names the permission", fontname="helv", fontsize=9)
    page.insert_text((90, 240), "ENFORCED FOR ALL ACCESS", fontname="hebo", fontsize=12)
    page.insert_text((72, 320), "Figure 1: The statement syntax.", fontname="helv", fontsize=9)
    page.insert_text((72, 350), BODY, fontname="helv", fontsize=10)
    tables = parse_with_pymupdf(pymupdf.open("pdf", doc.tobytes()), "gen", layout_mode="never")
    assert list(tables.toc_df.title) == ["Introduction"]
    ld = tables.line_df
    assert set(ld[ld.text.str.startswith(("CREATE", "ENFORCED"))].role) == {"figure_text"}
    assert tables.toc_df.iloc[0].page_end == 1


def test_bookmark_to_a_title_printed_only_in_the_running_head_is_not_a_section():
    # a one-page excerpt keeps the paper's bookmark "<title>", which that page only prints in its
    # running head "<title>      9": the bookmark became a section with no heading line
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((194, 100), "Optimized Tokenization for Structure Recognition", fontsize=9)
    page.insert_text((476, 100), "9", fontsize=9)
    page.insert_text((134, 130), "5.1 Hyper Parameter Optimization", fontname="hebo", fontsize=10)
    for k in range(12):
        page.insert_text((134, 150 + 12 * k), BODY, fontsize=10)
    doc.set_toc([[1, "Optimized Tokenization for Structure Recognition", 1]])
    tables = parse_with_pymupdf(pymupdf.open("pdf", doc.tobytes()), "gen", layout_mode="never")
    assert list(tables.toc_df.title) == ["Hyper Parameter Optimization"]


def test_stacked_bold_highlights_are_not_sections():
    # a back cover's sidebar "Implement roles" / "Leverage row permissions" / "Protect columns", bold
    # phrases stacked with no text between them, became three sections; a heading with text under
    # it on the same page stays one
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    for i, t in enumerate(("Implement roles", "Leverage row permissions", "Protect columns")):
        page.insert_text((30, 100 + 30 * i), t, fontname="hebo", fontsize=12)
    page.insert_text((200, 100), "Overview", fontname="hebo", fontsize=12)
    for k in range(8):
        page.insert_text(
            (200, 120 + 14 * k), "Body text of this part goes on here.", fontname="helv", fontsize=10
        )
    tables = parse_with_pymupdf(pymupdf.open("pdf", doc.tobytes()), "gen", layout_mode="never")
    assert list(tables.toc_df.title) == ["Overview"]
