"""Issue 18PL (session 7): the page stage's words and drawings serve the table readers after it.

The pages a table reader can look at (a table caption, or fast rows of role ``table``) keep the
page stage's ``get_text("words")`` and ``get_cdrawings()``; the objects stage reads them through
``heldpages.HeldDoc`` instead of asking pymupdf again. PDFs generated here with PyMuPDF.
"""

from __future__ import annotations

import pymupdf

from docintel.parsing import heldpages, pymupdf_backend, tables_text
from docintel.parsing.pymupdf_backend import parse_with_pymupdf


def _numbers_page(doc: pymupdf.Document) -> None:
    """A borderless table of numbers without a caption, between two prose lines."""
    page = doc.new_page(width=612, height=792)
    page.insert_text(
        (72, 72), "Running text above the figures, long enough to be a paragraph line.", fontsize=10
    )
    y = 110
    for row in (
        ("Region", "2019", "2020", "2021"),
        *((f"Area {i}", *(str(100 * i + k) for k in range(3))) for i in range(1, 6)),
    ):
        for x, cell in zip((80, 220, 320, 420), row, strict=True):
            page.insert_text((x, y), cell, fontsize=10)
        y += 16
    page.draw_line((72, 96), (540, 96))
    page.insert_text(
        (72, y + 24), "A closing paragraph of running text that crosses the whole width of it.", fontsize=10
    )


def _pdf() -> pymupdf.Document:
    doc = pymupdf.open()
    _numbers_page(doc)
    doc.new_page(width=612, height=792).insert_text(
        (72, 72), "A page of prose without any table.", fontsize=10
    )
    return pymupdf.open("pdf", doc.tobytes())


def test_held_doc_serves_only_the_plain_calls_of_held_pages():
    pdf = _pdf()
    kept = {"words": ["w"], "cd": ["d"]}
    doc = heldpages.HeldDoc(pdf, {1: kept})
    page, other = doc[0], doc[1]
    assert isinstance(page, heldpages.HeldPage) and not isinstance(other, heldpages.HeldPage)
    assert page.get_text("words") is kept["words"] and page.get_cdrawings() is kept["cd"]
    assert page.get_text("words", clip=page.rect) == pdf[0].get_text("words", clip=pdf[0].rect)
    assert page.get_text() == pdf[0].get_text() and page.number == 0 and page.rect == pdf[0].rect
    assert len(doc) == 2 and doc.page_count == 2 and [p.number for p in doc] == [0, 1]


def test_table_pages_are_held_and_the_objects_stage_reads_them(monkeypatch):
    pdf = _pdf()
    held: dict = {}
    pymupdf_backend._page_stage(pdf, "gen", "never", {}, None, {}, held)
    assert list(held) == [1]
    assert held[1]["words"] == pdf[0].get_text("words") and held[1]["cd"] == pdf[0].get_cdrawings()
    found = parse_with_pymupdf(_pdf(), "gen", layout_mode="never", ocr_mode="never").object_registry
    assert list(found["object_key"]) == ["table:u1"]
    # served words that hold nothing: the uncaptioned-table reader finds no cells (it read them)
    monkeypatch.setattr(tables_text, "held_page", lambda page, tp, cd, words=None: {"words": [], "cd": cd})
    blind = parse_with_pymupdf(_pdf(), "gen", layout_mode="never", ocr_mode="never").object_registry
    assert blind.empty


def test_a_held_page_with_links_reads_its_words_once(monkeypatch):
    """Session 8: the link anchors and the held page share one ``get_text("words")``."""
    src = pymupdf.open()
    _numbers_page(src)
    src.new_page(width=612, height=792).insert_text((72, 72), "Target page.", fontsize=10)
    src[0].insert_link({"kind": pymupdf.LINK_GOTO, "from": pymupdf.Rect(70, 60, 200, 76), "page": 1})
    pdf = pymupdf.open("pdf", src.tobytes())
    calls: list[int] = []
    real = pymupdf.Page.get_text

    def counted(self, option="text", *a, **k):
        if option == "words":
            calls.append(self.number)
        return real(self, option, *a, **k)

    monkeypatch.setattr(pymupdf.Page, "get_text", counted)
    held: dict = {}
    links: dict = {}
    pymupdf_backend._page_stage(pdf, "gen", "never", {}, None, links, held)
    assert list(held) == [1] and links[1] and links[1][0][1].startswith("Running text")
    assert calls == [0]  # page 1 (index 0): one read for both; page 2 has neither
    assert held[1]["words"] == real(pdf[0], "words")
