"""Session 14 (pg): the page stage's shortcuts must give what the pymupdf calls they replace gave."""

from __future__ import annotations

import pymupdf

from docintel.parsing import crossrefs, signals
from docintel.parsing.lines import extract_page_lines


def _image_pix() -> pymupdf.Pixmap:
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 8, 8), False)
    pix.clear_with(120)
    return pix


def test_lists_images_agrees_with_get_images():
    doc = pymupdf.open()
    plain = doc.new_page()
    plain.insert_text((72, 100), "text only", fontsize=11)
    pictured = doc.new_page()
    pictured.insert_image(pymupdf.Rect(100, 100, 200, 200), pixmap=_image_pix())
    # an image reached only through a Form XObject (show_pdf_page wraps the source page in one)
    src = pymupdf.open()
    src.new_page().insert_image(pymupdf.Rect(10, 10, 90, 90), pixmap=_image_pix())
    nested = doc.new_page()
    nested.show_pdf_page(nested.rect, src, 0)
    # a Form XObject without any image
    src2 = pymupdf.open()
    src2.new_page().insert_text((72, 72), "form text", fontsize=9)
    form_only = doc.new_page()
    form_only.show_pdf_page(form_only.rect, src2, 0)
    doc = pymupdf.open("pdf", doc.tobytes())
    got = [signals._lists_images(p) for p in doc]
    assert got == [bool(p.get_images()) for p in doc] == [False, True, True, False]


def test_sideways_page_reads_the_cropbox_when_the_dict_has_no_size():
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=700)
    for k in range(8):  # a landscape table set sideways: every line turned 90 degrees
        page.insert_text((60 + 30 * k, 600), f"sideways row {k} with some words", fontsize=9, rotate=90)
    page.insert_text((180, 680), "12", fontsize=9)
    doc = pymupdf.open("pdf", doc.tobytes())
    page = doc[0]
    page.set_cropbox(pymupdf.Rect(10, 20, 390, 690))  # the cropbox's size, not the mediabox's
    page.set_rotation(90)  # get_text's width is the cropbox's, not the turned page's
    tp, info, d = signals.text_and_images(page)
    assert info == [] and d is not None and "width" not in d
    shared, s1 = extract_page_lines(page, 1, textpage=tp, page_dict=d)
    own, s2 = extract_page_lines(page, 1)
    s1.pop("_page_dict"), s2.pop("_page_dict")
    assert shared == own and s1 == s2
    assert sum(r["text"].startswith("sideways row") for r in own) == 8


def _link_page() -> pymupdf.Page:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "See Section 2 and Table 4 for more.", fontsize=10)
    page.insert_text((72, 130), "Annex B applies.", fontsize=10)
    for r in (
        pymupdf.Rect(90, 88, 140, 103),
        pymupdf.Rect(160, 88, 205, 103),
        pymupdf.Rect(72, 118, 120, 133),
    ):
        page.insert_link({"kind": pymupdf.LINK_GOTO, "from": r, "page": 0})
    page.insert_link({"kind": pymupdf.LINK_GOTO, "from": pymupdf.Rect(400, 400, 420, 420), "page": 0})
    doc = pymupdf.open("pdf", doc.tobytes())
    return doc[0]


def _anchors_word_by_word(page) -> list[str]:
    """The anchors as the per-link loop read them (each word centre tested against the rectangle)."""
    out = []
    words = page.get_text("words")
    for lk in page.get_links():
        x0, y0, x1, y1 = tuple(lk["from"])
        under = [w[4] for w in words if x0 <= (w[0] + w[2]) / 2 <= x1 and y0 <= (w[1] + w[3]) / 2 <= y1]
        out.append(" ".join(under))
    return out


def test_link_anchors_from_one_mask_match_the_per_link_test():
    page = _link_page()
    got = [a for _lk, a in crossrefs.page_links(page)]
    assert got == _anchors_word_by_word(page)
    assert got[0] == "Section 2" and got[2] == "Annex B" and got[3] == ""
    assert [a for _lk, a in crossrefs.page_links(page, words=[])] == [""] * 4
