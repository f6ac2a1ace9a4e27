"""object_registry and cell_df: captions, regions, equations, appendices, bibliography, table cells."""

from __future__ import annotations

import os
from pathlib import Path

import pymupdf
import pytest

from docintel.parsing import parse_document
from docintel.parsing.pymupdf_backend import parse_with_pymupdf

PDFS = Path(__file__).resolve().parents[1] / "pdfs"
SHARED = Path(os.environ.get("DOCINTEL_SHARED", Path(__file__).resolve().parents[2] / "shared"))
BODY = "Body text of the section that runs on for a while and ends with a full stop."


@pytest.fixture(scope="module")
def nist():
    return parse_document(PDFS / "nist_sp800-106.pdf", layout="never", out_dir=None, use_cache=False)


def _reload(doc: pymupdf.Document) -> pymupdf.Document:
    return pymupdf.open("pdf", doc.tobytes())


def _ruled_table_doc() -> pymupdf.Document:
    """A page with a caption above a fully ruled 3x3 table, then prose mentioning it."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 80), "1 Results", fontname="hebo", fontsize=14)
    page.insert_text((72, 110), "Table 1: Scores of the variants.", fontname="helv", fontsize=10)
    xs, ys = [72, 200, 330, 460], [120, 140, 160, 180]
    for x in xs:
        page.draw_line((x, ys[0]), (x, ys[-1]))
    for y in ys:
        page.draw_line((xs[0], y), (xs[-1], y))
    rows = [["Variant", "BLEU", "PPL"], ["(A)", "25.8", "4.92"], ["(E)", "25.7", "4.95"]]
    for i, row in enumerate(rows):
        for j, cell in enumerate(row):
            page.insert_text((xs[j] + 4, ys[i] + 14), cell, fontname="helv", fontsize=10)
    page.insert_text(
        (72, 220), "As shown in Table 1 the variants are close. " + BODY[:30], fontname="helv", fontsize=10
    )
    page.insert_text(
        (72, 240), "Table 1 summarizes the scores and is not a caption.", fontname="helv", fontsize=10
    )
    return _reload(doc)


def test_nist_figure_and_appendix_are_registered(nist):
    reg = nist.object_registry.set_index("object_key")
    fig = reg.loc["figure:1"]
    assert fig.page == 12 and fig.caption.startswith("Figure 1")
    assert fig.y1 - fig.y0 > 50  # the region covers the drawing, not just the caption line
    appendix = nist.object_registry[nist.object_registry.object_type == "appendix"]
    assert len(appendix) == 1 and appendix.iloc[0].page == 17
    ld = nist.line_df
    cap = ld[(ld.page == 12) & ld.text.str.startswith("Figure 1")]
    assert set(cap.role) == {"caption"} and set(cap.object_key) == {"figure:1"}


def test_nist_bibliography_entries_have_bracketed_keys(nist):
    bib = nist.object_registry[nist.object_registry.object_type == "bib"]
    assert {"FIPS 180-3", "FIPS 186-3", "SP 800-90"} <= set(bib.object_id)
    assert (bib.page == 16).all()


def test_prose_mentions_are_not_captions_and_ruled_table_has_cells():
    tables = parse_with_pymupdf(_ruled_table_doc(), "gen", layout_mode="never")
    reg = tables.object_registry
    assert list(reg.object_key) == ["table:1"]
    t = reg.iloc[0]
    assert (t.n_rows, t.n_cols) == (3, 3) and t.line_start == 2
    cells = tables.cell_df
    header = cells[cells.is_header].sort_values("col")
    assert list(header.text) == ["Variant", "BLEU", "PPL"]
    row_e = cells[cells.row_label == "(E)"].sort_values("col")
    assert list(row_e.text) == ["(E)", "25.7", "4.95"]
    ld = tables.line_df
    assert set(ld[ld.text == "25.7"].role) == {"table"}
    assert ld[ld.text.str.startswith("As shown")].object_key.isna().all()  # prose below the grid is not in it


def test_equation_number_at_right_margin():
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 80), BODY, fontname="helv", fontsize=10)
    page.insert_text((220, 120), "E = m c^2 + softmax(QK)", fontname="helv", fontsize=10)
    page.insert_text((500, 120), "(1)", fontname="helv", fontsize=10)
    page.insert_text(
        (72, 160), "where (2) in prose at the left is not an equation label.", fontname="helv", fontsize=10
    )
    tables = parse_with_pymupdf(_reload(doc), "gen", layout_mode="never")
    reg = tables.object_registry
    assert list(reg.object_key) == ["equation:1"]
    assert "softmax" in reg.iloc[0].caption
    assert set(tables.line_df[tables.line_df.object_key == "equation:1"].role) == {"formula"}


def test_numbered_bibliography_and_appendix_after_references():
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 80
    for text, font, size in [
        ("1 Introduction", "hebo", 14),
        (BODY + " See [2].", "helv", 10),
        ("References", "hebo", 14),
        ("[1] A. Author. A first title. Journal, 2001.", "helv", 10),
        ("[2] B. Author. A second title that is long enough", "helv", 10),
        ("to wrap. Journal, 2002.", "helv", 10),
        ("Appendix A: Proofs", "hebo", 14),
        (BODY, "helv", 10),
    ]:
        page.insert_text(
            (72 if not text.startswith("to wrap") else 90, y), text, fontname=font, fontsize=size
        )
        y += size * 1.8
    tables = parse_with_pymupdf(_reload(doc), "gen", layout_mode="never")
    reg = tables.object_registry.set_index("object_key")
    assert (
        reg.loc["bib:2"].caption.endswith("Journal, 2002.")
        and reg.loc["bib:2"].line_end > reg.loc["bib:2"].line_start
    )
    assert reg.loc["appendix:A"].label == "Appendix A"
    assert "bib:3" not in reg.index


@pytest.mark.skipif(
    not (SHARED / "eval" / "pdfs" / "attention_1706.03762v7.pdf").exists(), reason="shared PDFs absent"
)
def test_borderless_table_row_groups_select_rows():
    tables = parse_document(
        SHARED / "eval" / "pdfs" / "attention_1706.03762v7.pdf", layout="never", out_dir=None, use_cache=False
    )
    reg = tables.object_registry.set_index("object_key")
    assert {"table:1", "table:2", "table:3", "table:4", "equation:1", "equation:3", "figure:5"} <= set(
        reg.index
    )
    assert reg.loc["table:3"].page == 9
    cells = tables.cell_df[tables.cell_df.object_key == "table:3"]
    header = cells[cells.is_header].sort_values("col").text.tolist()
    assert "BLEU (dev)" in header and "PPL (dev)" in header
    e = cells[cells.row_label == "(E)"]
    assert e.row.nunique() == 1 and "4.92" in set(e.text)
    assert cells[cells.row_label == "(A)"].row.nunique() == 4  # the group label applies to its sub-rows
    big = cells[cells.row_label == "big"]
    bleu_col = cells[cells.is_header & (cells.text == "BLEU (dev)")].col.iloc[0]
    assert big[big.col == bleu_col].text.iloc[0] == "26.4"


def test_caption_with_plain_space_only_when_set_smaller_than_body():
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text(
        (72, 80),
        "Table 2-1 shows the usage identifiers described below in detail.",
        fontname="helv",
        fontsize=10,
    )
    page.insert_text((72, 100), BODY, fontname="helv", fontsize=10)
    page.insert_text((72, 130), "Table 2-1 FUNCTION_USAGE view", fontname="helv", fontsize=8)
    page.insert_text((72, 160), BODY, fontname="helv", fontsize=10)
    tables = parse_with_pymupdf(_reload(doc), "gen", layout_mode="never")
    reg = tables.object_registry
    assert list(reg.object_key) == ["table:2-1"] and reg.iloc[0].line_start == 3


def test_table_with_caption_below_it():
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 80), BODY + " And more words here.", fontname="helv", fontsize=10)
    for i, row in enumerate([["Name", "Value"], ["alpha", "1.5"], ["beta", "2.5"]]):
        for j, cell in enumerate(row):
            page.insert_text((100 + 150 * j, 120 + 16 * i), cell, fontname="helv", fontsize=10)
    page.insert_text((72, 180), "Table 4: Values under the table.", fontname="helv", fontsize=10)
    tables = parse_with_pymupdf(_reload(doc), "gen", layout_mode="never")
    cells = tables.cell_df
    assert set(cells.object_key) == {"table:4"}
    assert cells[cells.row_label == "beta"].sort_values("col").text.tolist() == ["beta", "2.5"]


def test_words_inside_vector_figures_are_figure_text_not_body(nist):
    """Bug: the labels of NIST's Figure 1 (a vector diagram, upright, body-sized) read as prose."""
    lines = nist.line_df
    p12 = lines[lines["page"] == 12].set_index("text")
    for label in ("m =", "Ms", "padding", "Rv", "m ⊕ Rv", "rv_length_indicator"):
        assert p12.at[label, "role"] == "figure_text", label
        assert p12.at[label, "object_key"] == "figure:1", label
    assert p12.at["Figure 1: Message Randomization", "role"] == "caption"
    # the steps above the figure and the section below it stay running text
    assert p12.at["Output: M", "role"] == "body"
    assert p12.at["3.3 The Random Value", "role"] == "heading"
    assert not lines[(lines["page"] != 12) & (lines["object_key"] == "figure:1")].shape[0]


PARAGRAPH = [
    "The encoder maps the input sequence to a",
    "sequence of continuous representations and the",
    "decoder then generates the output.",
]


def _figure_beside_prose_doc(framed: bool) -> pymupdf.Document:
    """Labels inside a drawn diagram, and a paragraph whose lines the drawings' box also covers."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 80), "1 Design", fontname="hebo", fontsize=14)
    if framed:  # a ruled box around a paragraph, captioned as a figure: no labels, only prose
        page.draw_rect(pymupdf.Rect(66, 100, 530, 190))
        for i in range(6):
            page.insert_text((72, 115 + 13 * i), BODY, fontname="helv", fontsize=10)
    else:  # the diagram's box runs under a paragraph of the text set beside it
        page.draw_rect(pymupdf.Rect(66, 100, 530, 190))
        page.draw_rect(pymupdf.Rect(350, 110, 440, 140))
        page.insert_text((360, 128), "Encoder", fontname="helv", fontsize=10)
        page.insert_text((440, 170), "Decoder stack", fontname="helv", fontsize=10)
        page.insert_text((360, 160), "Attention", fontname="helv", fontsize=10)
        page.insert_text((470, 125), "Output", fontname="helv", fontsize=10)
        for i, text in enumerate(PARAGRAPH):
            page.insert_text((72, 115 + 13 * i), text, fontname="helv", fontsize=10)
    page.insert_text((200, 210), "Figure 1: The model.", fontname="helv", fontsize=10)
    page.insert_text((72, 240), BODY, fontname="helv", fontsize=10)
    return _reload(doc)


def test_figure_text_spares_prose_and_frames_around_text():
    labelled = parse_with_pymupdf(_figure_beside_prose_doc(framed=False), "d", layout_mode="never")
    roles = labelled.line_df.set_index("text")["role"]
    assert all(roles[t] == "figure_text" for t in ("Encoder", "Decoder stack", "Attention", "Output"))
    assert all(roles[t] == "body" for t in PARAGRAPH), "a paragraph's lines, its short last one too"
    assert roles["Figure 1: The model."] == "caption" and roles[BODY] == "body"
    framed = parse_with_pymupdf(_figure_beside_prose_doc(framed=True), "d", layout_mode="never")
    assert "figure_text" not in set(framed.line_df["role"])
    assert "figure:1" in set(framed.object_registry["object_key"])


def test_caption_text_after_a_bold_label_on_its_baseline_is_part_of_the_caption():
    # "Table 1." in bold and "HPO performed in ..." in regular type are two lines on one baseline:
    # the caption kept only the label and the lines below it
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 80), "Body text that introduces the results of the experiment.", fontsize=10)
    page.insert_text((72, 110), "Table 1.", fontname="hebo", fontsize=9)
    page.insert_text((120, 110), "HPO performed in two representations on the same", fontsize=9)
    page.insert_text((72, 123), "architecture, trained only on one data set.", fontsize=9)
    for i, row in enumerate((("layers", "score"), ("6", "0.91"), ("4", "0.93"))):
        page.insert_text((100, 145 + 14 * i), row[0], fontsize=9)
        page.insert_text((300, 145 + 14 * i), row[1], fontsize=9)
    reg = parse_with_pymupdf(_reload(doc), "gen", layout_mode="never").object_registry
    cap = reg.set_index("object_key").loc["table:1"].caption
    assert cap.startswith("Table 1. HPO performed in two representations") and "trained only" in cap


def test_bracketed_korean_table_caption_and_cjk_prose_ends_the_table():
    # "[표 1] ..." (Korean reports) was no caption; and CJK body text after the table has too few
    # spaces to count as prose by words, so the table ran on into the paragraph below it
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    prose = "감염병의 예방 및 관리에 관한 법률에 따르면 제일급감염병이란 생물테러감염병"
    page.insert_text((72, 80), prose, fontname="korea", fontsize=11.5)
    page.insert_text((72, 110), "[표 1] 감염병예방법 개정전후 비교", fontname="korea", fontsize=11)
    for i, (a, b, c) in enumerate(
        (("구분", "개정전", "개정후"), ("분류", "일군", "일급"), ("대상", "육종", "십칠종"))
    ):
        for x, t in ((80, a), (200, b), (320, c)):
            page.insert_text((x, 135 + 16 * i), t, fontname="korea", fontsize=9)
    for k in range(6):
        page.insert_text((72, 220 + 18 * k), prose, fontname="korea", fontsize=11.5)
    tables = parse_with_pymupdf(_reload(doc), "gen", layout_mode="never")
    reg = tables.object_registry.set_index("object_key")
    assert reg.loc["table:1"].object_type == "table" and reg.loc["table:1"].caption.startswith("[표 1]")
    ld = tables.line_df
    assert set(ld[ld.y0 > 200].role) == {"body"}
    assert (ld.role == "table").sum() >= 6
