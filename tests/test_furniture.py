"""Running heads, page numbers, footnotes, printed page labels and image-only pages."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pymupdf
import pytest

try:  # tests/ is a package when tests/__init__.py exists, a plain rootdir entry otherwise
    from tests._page_stage import parse_pages
except ImportError:
    from _page_stage import parse_pages

PDFS = Path(__file__).resolve().parents[1] / "pdfs"
NIST = PDFS / "nist_sp800-106.pdf"
FAA = PDFS / "faa_ad_nprm_2020-17221.pdf"


def _booklet(n_pages: int = 5) -> bytes:
    """Pages with a running head, a footer, a printed number (physical + 10) and a footnote."""
    doc = pymupdf.open()
    for i in range(n_pages):
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 40), "ACME Manual Chapter 4 Revision B", fontsize=9)
        for k in range(20):
            page.insert_text(
                (72, 100 + 20 * k), f"Body text line {k} on page {i + 1} says something.", fontsize=11
            )
        page.insert_text((72, 650), "1 A footnote explaining the body text in small type.", fontsize=8)
        page.insert_text((72, 740), "Copyright ACME Corp. All rights reserved.", fontsize=8)
        page.insert_text((300, 760), str(i + 11), fontsize=9)
    return doc.tobytes()


@pytest.fixture(scope="module")
def booklet():
    return parse_pages(_booklet())


def test_repeated_header_footer_and_page_number_roles(booklet):
    df = booklet.line_df
    role = dict(zip(df["text"] + "|" + df["page"].astype(str), df["role"], strict=True))
    for p in range(1, 6):
        assert role[f"ACME Manual Chapter 4 Revision B|{p}"] == "header"
        assert role[f"Copyright ACME Corp. All rights reserved.|{p}"] == "footer"
        assert role[f"{p + 10}|{p}"] == "page_number"
        assert role[f"Body text line 3 on page {p} says something.|{p}"] == "body"
        assert role[f"1 A footnote explaining the body text in small type.|{p}"] == "footnote"


def test_printed_labels_follow_the_printed_numbers(booklet):
    pdf_ = booklet.page_df.set_index("page")
    assert pdf_["printed_label"].tolist() == ["11", "12", "13", "14", "15"]
    assert set(pdf_["label_source"]) == {"printed"}


@pytest.fixture(scope="module")
def nist():
    if not NIST.exists():
        pytest.skip("bundled NIST PDF missing")
    return parse_pages(NIST)


def test_nist_labels_are_read_off_the_page_not_the_wrong_pagelabels(nist):
    labels = dict(zip(nist.page_df["page"], nist.page_df["printed_label"], strict=True))
    assert pd.isna(labels[1])  # the cover prints no number
    assert [labels[p] for p in (2, 3, 4)] == ["ii", "iii", "iv"]
    assert all(labels[p] == str(p - 4) for p in range(5, 18))
    df = nist.line_df
    heads = df[df["text"].str.startswith("NIST SP 800-106")]
    assert len(heads) >= 15 and set(heads["role"]) == {"header"}


@pytest.fixture(scope="module")
def faa():
    if not FAA.exists():
        pytest.skip("bundled FAA PDF missing")
    return parse_pages(FAA)


def test_faa_federal_register_numbers_and_furniture(faa):
    pdf_ = faa.page_df.set_index("page")
    assert [pdf_.at[p, "printed_label"] for p in range(1, 16)] == [str(47697 + p) for p in range(1, 16)]
    df = faa.line_df
    assert set(df.loc[df["text"].str.startswith("jbell on"), "role"]) == {"header"}
    assert set(df.loc[df["text"].str.startswith("VerDate"), "role"]) == {"footer"}
    run_head = df[df["text"].str.startswith("Federal Register / Vol. 85")]
    assert len(run_head) == 14 and set(run_head["role"]) == {"header"}
    # Footnotes at the bottom of the columns of page 3, small type with a number.
    notes = df[(df["page"] == 3) & (df["role"] == "footnote")]["text"].tolist()
    assert any(t.startswith("10 A flight control law") for t in notes)
    assert not any(t.startswith("require operators") for t in notes)


def test_faa_figure_pages_are_flagged_image_only(faa):
    pdf_ = faa.page_df.set_index("page")
    assert all(pdf_.at[p, "image_only"] for p in range(8, 14))
    assert not any(pdf_.at[p, "image_only"] for p in (1, 2, 3, 15))
    for p in range(7, 15):
        assert (
            "OCR" in pdf_.at[p, "escalation_signals"] or "not extracted" in pdf_.at[p, "escalation_signals"]
        )


def _excerpt_page(with_number: bool = True) -> pymupdf.Document:
    """One journal page: a running head 'Title ... 9' set below the top band, then body text."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((194, 100), "Optimized Tokenization for Structure Recognition", fontsize=9)
    if with_number:
        page.insert_text((476, 100), "9", fontsize=9)
    for k in range(20):
        page.insert_text(
            (134, 125 + 12 * k), f"Body text line {k} of the excerpt goes on and on.", fontsize=10
        )
    return pymupdf.open("pdf", doc.tobytes())


def test_single_page_running_head_with_page_number_is_furniture():
    # a one-page excerpt cannot show its running head repeating, and wide margins put it below the
    # fixed top band: "Title      9" was body text (and a heading matched to the PDF's bookmark)
    from docintel.parsing.pymupdf_backend import parse_with_pymupdf

    ld = parse_with_pymupdf(_excerpt_page(), "gen", layout_mode="never").line_df
    roles = dict(zip(ld.text.str.strip(), ld.role, strict=False))
    assert roles["9"] == "page_number"
    assert roles["Optimized Tokenization for Structure Recognition"] == "header"
    assert (ld.role == "body").sum() == 20
    # without the number at its end the top line is an ordinary line
    ld = parse_with_pymupdf(_excerpt_page(with_number=False), "gen", layout_mode="never").line_df
    assert not ld.role.isin(["header", "page_number"]).any()
