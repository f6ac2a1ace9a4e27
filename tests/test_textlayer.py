"""Issue 19 (session 4): page_df.text_gaps flags what a page shows that its text layer lacks,
on PDFs generated here with PyMuPDF (and the garbled-text rule on rows directly)."""

from __future__ import annotations

import pymupdf

from docintel.parsing import textlayer
from docintel.parsing.pymupdf_backend import parse_with_pymupdf


def _parse(doc: pymupdf.Document):
    return parse_with_pymupdf(
        pymupdf.open("pdf", doc.tobytes()), "gen", layout_mode="never", ocr_mode="never"
    )


def _prose(page, y: float = 100, n: int = 8) -> None:
    for i in range(n):
        page.insert_text(
            (100, y + 14 * i), f"Line {i} of ordinary running text set in the body of the page.", fontsize=10
        )


def _gaps(t) -> dict[int, str | None]:
    return {
        int(p): (g if isinstance(g, str) else None)
        for p, g in zip(t.page_df["page"], t.page_df["text_gaps"], strict=True)
    }


def test_clean_page_has_no_gap():
    doc = pymupdf.open()
    _prose(doc.new_page())
    assert _gaps(_parse(doc))[1] is None


def test_section_number_drawn_as_paths_is_flagged():
    doc = pymupdf.open()
    page = doc.new_page()
    _prose(page, y=140)
    page.insert_text((100, 110), "Introduction and scope", fontsize=12)
    for x in (72, 84):  # two filled outlines on the heading's baseline: a "12" drawn as paths
        shape = page.new_shape()
        shape.draw_oval(pymupdf.Rect(x, 100, x + 8, 111))
        shape.finish(fill=(0, 0, 0), color=None)
        shape.commit()
    gaps = _gaps(_parse(doc))[1]
    assert gaps is not None and gaps.startswith("vector_glyphs (2 ")


def test_picture_on_a_text_page_is_flagged_but_not_a_small_logo():
    doc = pymupdf.open()
    for size in (300, 40):
        page = doc.new_page()
        _prose(page, y=500)
        pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 30, 30), False)
        pix.clear_with(200)
        page.insert_image(pymupdf.Rect(100, 100, 100 + size, 100 + size), pixmap=pix)
    gaps = _gaps(_parse(doc))
    assert gaps[1] is not None and gaps[1].startswith("raster_region (")
    assert gaps[2] is None


def test_garbled_characters_counted_but_not_bullets():
    rows = [{"text": "\uf0b7 a bullet item of plain words", "x0": 0, "y0": 0, "x1": 9, "y1": 9}] * 5
    assert textlayer.page_gaps(rows, {"width": 600, "height": 800}) is None
    garbled = [{"text": "\ue001\ue002\ue003 \ue004\ue005", "x0": 0, "y0": 0, "x1": 9, "y1": 9}] * 4
    assert textlayer.page_gaps(garbled + rows, {"width": 600, "height": 800}).startswith("garbled_text (20 ")
