"""The page stage's /PageLabels read (``pymupdf_backend._pdf_labels``) gives each page's ``get_label()``."""

from __future__ import annotations

import pymupdf

from docintel.parsing import pymupdf_backend


def _doc(rules: list[dict], pages: int = 9) -> pymupdf.Document:
    doc = pymupdf.open()
    for _ in range(pages):
        doc.new_page()
    if rules:
        doc.set_page_labels(rules)
    return doc


def test_labels_match_get_label_for_every_style():
    doc = _doc(
        [
            {"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1},
            {"startpage": 3, "prefix": "", "style": "D", "firstpagenum": 1},
            {"startpage": 6, "prefix": "A-", "style": "D", "firstpagenum": 1},
            {"startpage": 8, "prefix": "", "style": "a", "firstpagenum": 1},
        ]
    )
    got = pymupdf_backend._pdf_labels(doc)
    assert got == [doc[i].get_label() for i in range(doc.page_count)]
    assert got == ["i", "ii", "iii", "1", "2", "3", "A-1", "A-2", "a"]


def test_labels_with_a_gap_before_the_first_rule():
    doc = _doc([{"startpage": 2, "prefix": "", "style": "D", "firstpagenum": 5}], pages=4)
    got = pymupdf_backend._pdf_labels(doc)
    assert got == [doc[i].get_label() for i in range(doc.page_count)]
    assert got[2:] == ["5", "6"]


def test_no_labels_is_none():
    assert pymupdf_backend._pdf_labels(_doc([])) is None
