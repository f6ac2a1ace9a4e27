"""OCR of image-only pages (docintel.parsing.ocr): Tesseract through PyMuPDF.

The image-only PDF is generated here: text rendered to a pixmap and placed as the
page's only picture, with a small digital page number under it (furniture that must
stay digital). The FAA pages whose figure captions exist only inside images come
from the checked-in PDF.
"""

from __future__ import annotations

import logging

import pymupdf
import pytest

from docintel.parsing import ocr, parse_document
from tests.conftest import PDFS

FAA = PDFS / "faa_ad_nprm_2020-17221.pdf"
needs_tesseract = pytest.mark.skipif(
    ocr.tessdata() is None,
    reason=f"Tesseract with English data is not installed ({ocr.INSTALL_HINT})",
)
TEXT = [
    "Scanned Inspection Report",
    "The left wing spar was inspected on arrival.",
    "No corrosion was found on the lower flange.",
]


@pytest.fixture(scope="module")
def scanned_pdf(tmp_path_factory):
    """A one-page PDF whose text exists only as pixels, plus a digital page number."""
    src = pymupdf.open()
    page = src.new_page(width=612, height=792)
    y = 100
    for line in TEXT:
        page.insert_text((72, y), line, fontsize=14)
        y += 28
    pix = page.get_pixmap(dpi=150)
    out = pymupdf.open()
    scan = out.new_page(width=612, height=792)
    scan.insert_image(scan.rect, pixmap=pix)  # a page scan: the picture is the whole page
    scan.insert_text((300, 760), "7", fontsize=10)
    path = tmp_path_factory.mktemp("ocr") / "scanned.pdf"
    out.save(path)
    return path


@needs_tesseract
def test_image_only_page_is_read_by_ocr(scanned_pdf):
    t = parse_document(scanned_pdf, out_dir=None)
    page = t.page_df.iloc[0]
    assert page["parse_method"] == "ocr"
    assert bool(page["image_only"]), "the page still has no text layer under its picture"
    assert page["escalation_signals"].startswith("image_only: ocr")
    lines = t.line_df
    recognised = lines[lines["parse_method"] == "ocr"]
    text = " ".join(recognised["text"]).lower()
    assert "inspection report" in text and "corrosion" in text
    # a scanned page's text is the page's text (retrievable), not figure text
    assert set(recognised["role"]) <= {"body", "list_item", "header", "title", "heading"}
    # the digital page number is kept as digital text and still read as the printed label
    digital = lines[lines["parse_method"] == "fast"]
    assert list(digital["text"]) == ["7"]
    assert page["printed_label"] == "7"
    assert t.manifest["ocr_pages"] == [1]


def test_ocr_never_leaves_the_page_flagged_and_empty(scanned_pdf):
    t = parse_document(scanned_pdf, out_dir=None, ocr="never")
    page = t.page_df.iloc[0]
    assert bool(page["image_only"]) and page["parse_method"] == "fast"
    assert "needs OCR" in page["escalation_signals"]
    assert set(t.line_df["text"]) == {"7"}


def test_missing_tesseract_warns_once_and_changes_nothing(scanned_pdf, monkeypatch, caplog):
    monkeypatch.setattr(ocr, "tessdata", lambda: None)
    with caplog.at_level(logging.WARNING, logger="docintel.parsing.ocr"):
        t = parse_document(scanned_pdf, out_dir=None)
    warnings = [r for r in caplog.records if "apt-get install tesseract-ocr" in r.getMessage()]
    assert len(warnings) == 1
    assert bool(t.page_df.iloc[0]["image_only"]) and t.page_df.iloc[0]["parse_method"] == "fast"
    assert set(t.line_df["parse_method"]) == {"fast"}


def test_ocr_mode_is_part_of_the_cache_key(scanned_pdf, tmp_path, monkeypatch):
    monkeypatch.setattr(ocr, "tessdata", lambda: None)  # the key, not the recognition, is tested
    a = parse_document(scanned_pdf, out_dir=tmp_path, ocr="never")
    b = parse_document(scanned_pdf, out_dir=tmp_path, ocr="auto")
    assert a.manifest["cache_dir"] != b.manifest["cache_dir"]
    assert not b.manifest["cache_hit"]


def test_unknown_ocr_mode_is_a_usage_error(scanned_pdf):
    from docintel.errors import UsageError

    with pytest.raises(UsageError, match="--ocr must be one of auto, never"):
        parse_document(scanned_pdf, out_dir=None, ocr="always")


@needs_tesseract
def test_figure_captions_inside_images_are_registered(tmp_path):
    """FAA pages 8 and 11: 'Figure N to paragraph (h)(k) — AFM revision: ...' exist only as pixels."""
    if not FAA.exists():
        pytest.skip(f"{FAA} is not checked out")
    src = pymupdf.open(FAA)
    out = pymupdf.open()
    for p in (8, 11):
        out.insert_pdf(src, from_page=p - 1, to_page=p - 1)
    path = tmp_path / "faa_figures.pdf"
    out.save(path)
    t = parse_document(path, out_dir=None)
    reg = t.object_registry.set_index("object_key")
    assert {"figure:2", "figure:4", "figure:5"} <= set(reg.index)
    assert reg.loc["figure:2", "caption"].startswith("Figure 2 to paragraph (h)(3)")
    assert "Airspeed Unreliable" in reg.loc["figure:2", "caption"]
    assert reg.loc["figure:5", "page"] == 2
    # the figure is the picture the caption was read from, not just the caption line
    assert reg.loc["figure:2", "y1"] - reg.loc["figure:2", "y0"] > 300
    lines = t.line_df
    # text recognised inside the picture is the figure's content, like a vector figure's labels
    body = lines[(lines["parse_method"] == "ocr") & (lines["role"] != "caption")]
    assert len(body) > 40 and set(body["role"]) == {"figure_text"}
    assert set(body.loc[body["page"] == 1, "object_key"]) == {"figure:2"}
    # the running head and page number stay digital furniture, so printed labels stay right
    assert list(t.page_df["printed_label"]) == ["47705", "47708"]
    assert set(lines.loc[lines["role"].isin(["header", "page_number"]), "parse_method"]) == {"fast"}
    # recognised checklist text inside the figures never becomes a section heading
    heads = lines[lines["role"].isin(["heading", "title"])]
    assert (heads["parse_method"] != "ocr").all()
