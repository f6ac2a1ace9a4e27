"""Issue 19 (session 4): tables of wrapped text cells (no rules) read cell by cell, on PDFs
generated here with PyMuPDF; prose set in two columns is not such a table."""

from __future__ import annotations

import pymupdf

from docintel.parsing import tables_text
from docintel.parsing.pymupdf_backend import parse_with_pymupdf

_CELLS = [
    ("Level one label", "Sources may use this level when the matter cannot be acted upon by others"),
    ("Level two label", "Sources may use this level when the matter needs support from the members"),
    ("Level three label", "Sources may use this level when the matter is useful to the whole group"),
]


def _parse(doc: pymupdf.Document):
    return parse_with_pymupdf(
        pymupdf.open("pdf", doc.tobytes()), "gen", layout_mode="never", ocr_mode="never"
    )


def _wrap(text: str, n: int) -> list[str]:
    words = text.split()
    return [" ".join(words[i : i + n]) for i in range(0, len(words), n)]


def _table_page(doc: pymupdf.Document) -> None:
    page = doc.new_page(width=612, height=792)
    page.insert_text(
        (72, 72), "Some running text above the table, long enough to be a paragraph line.", fontsize=10
    )
    page.insert_text((200, 100), "Table 2-1: Levels of sharing", fontname="hebo", fontsize=10)
    page.insert_text((80, 124), "Level", fontname="hebo", fontsize=11)
    page.insert_text((260, 124), "When should it be used?", fontname="hebo", fontsize=11)
    y = 140
    for label, text in _CELLS:
        left, right = _wrap(label, 1), _wrap(text, 4)
        for k in range(max(len(left), len(right))):
            if k < len(left):
                page.insert_text((80, y + 12 * k), left[k], fontsize=10)
            if k < len(right):
                page.insert_text((260, y + 12 * k), right[k], fontsize=10)
        y += 12 * max(len(left), len(right)) + 4
    page.insert_text(
        (72, y + 20), "A closing paragraph of running text that crosses the whole width of it.", fontsize=10
    )


def test_wrapped_text_table_cells_and_reading_order():
    doc = pymupdf.open()
    _table_page(doc)
    t = _parse(doc)
    reg = t.object_registry.set_index("object_key")
    assert "table:2-1" in reg.index
    cells = t.cell_df[t.cell_df["object_key"] == "table:2-1"]
    assert int(cells["row"].max()) + 1 == 4 and int(cells["col"].max()) + 1 == 2
    head = cells[cells["is_header"]].sort_values("col")["text"].tolist()
    assert head == ["Level", "When should it be used?"]
    body = cells[(cells["row"] == 2) & (cells["col"] == 1)]["text"].iloc[0]
    assert body == _CELLS[1][1]
    # a cell's lines follow each other in line order: the cell's text is a run of the page's lines
    lines = t.line_df[t.line_df["page"] == 1].sort_values("line")["text"].str.strip().tolist()
    assert " ".join(lines).count(_CELLS[0][1]) == 1


def test_two_column_prose_is_no_text_table():
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((200, 60), "Table 1: The numbers are discussed below", fontname="hebo", fontsize=10)
    for x, shift in ((72, 0), (320, 2)):
        y = 90
        for para in range(4):
            n = 3 + (para + shift) % 3  # paragraphs of different lengths: their starts do not line up
            for k in range(n):
                page.insert_text((x, y), f"prose line {para}.{k} with words enough here", fontsize=10)
                y += 12
            y += 10
    clip = (30, 70, 582, 740)
    cells, box, _ = tables_text.read_text_table(page.get_text("words"), clip)
    assert box is not None and not tables_text.looks_like_text_table(cells)


def test_reorder_reads_what_the_page_stage_holds():
    """The page stage keeps the words and drawings of table-caption pages; the reorder reads them."""
    from docintel.parsing import pymupdf_backend

    doc = pymupdf.open()
    _table_page(doc)
    doc.new_page(width=612, height=792).insert_text((72, 72), "A page without any caption.", fontsize=10)
    pdf = pymupdf.open("pdf", doc.tobytes())
    held: dict = {}
    raw, _ = pymupdf_backend._page_stage(pdf, "gen", "never", {}, None, {}, held)
    assert list(held) == [1] and held[1]["words"] == pdf[0].get_text("words")
    assert held[1]["cd"] == pdf[0].get_cdrawings()
    raw = raw.assign(role="body")
    fresh = tables_text.reorder_lines(pdf, raw)
    served = tables_text.reorder_lines(pdf, raw, {1: {**held[1], "words": []}})  # read from held: no words
    assert not fresh.equals(raw) and served.equals(raw)
    assert tables_text.reorder_lines(pdf, raw, held).equals(fresh)
