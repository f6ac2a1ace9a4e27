"""Issue 19 (session 3): tables without a caption, sideways pages, drop caps, continued headings,
flat outlines and small bold running heads, on PDFs generated here with PyMuPDF."""

from __future__ import annotations

import pymupdf

from docintel.parsing.pymupdf_backend import parse_with_pymupdf
from docintel.parsing.tables_free import looks_like_table
from docintel.retrieval.targets import section_lines


def _parse(doc: pymupdf.Document):
    return parse_with_pymupdf(
        pymupdf.open("pdf", doc.tobytes()), "gen", layout_mode="never", ocr_mode="never"
    )


def _prose(page, y: float, n: int, x: float = 72, width_words: int = 12) -> float:
    for i in range(n):
        words = " ".join(["ordinary"] * (width_words - 4))
        page.insert_text(
            (x, y), f"Line {i} of running text with {words} words.", fontname="helv", fontsize=10
        )
        y += 13
    return y


def _stats_page(doc: pymupdf.Document, *, caption: str | None, counter_rows: bool = False) -> None:
    page = doc.new_page(width=612, height=792)
    y = _prose(page, 72, 4)
    y += 20
    if caption:
        page.insert_text((72, y), caption, fontname="hebo", fontsize=10)
        y += 18
    cols = (72, 250, 340, 430)
    for x, h in zip(cols, ("State", "2019", "2020", "Change %"), strict=True):
        page.insert_text((x, y), h, fontname="hebo", fontsize=9)
    y += 14
    for i, state in enumerate(("Alaska", "Alabama", "Arizona", "Arkansas", "California", "Colorado")):
        row = (
            (str(100 + i), f"Reference entry {state}", "see the", "notes")
            if counter_rows
            else (state, f"{1200 + 37 * i:,}", f"{1300 + 41 * i:,}", f"{(i - 2) * 1.5:.1f}")
        )
        for x, t in zip(cols, row, strict=True):
            page.insert_text((x, y), t, fontname="helv", fontsize=9)
        y += 12
    _prose(page, y + 24, 3)


def test_uncaptioned_statistics_table_gets_a_registry_row_and_cells():
    doc = pymupdf.open()
    _stats_page(doc, caption="ESTIMATED SHIPMENTS BY STATE")
    t = _parse(doc)
    reg = t.object_registry
    found = reg[reg["source"] == "table_detection"]
    assert len(found) == 1
    row = found.iloc[0]
    assert row.object_type == "table" and row.object_id == "u1" and row.object_key == "table:u1"
    assert row.label is None or row.label != row.label  # no number, so no label
    assert row.caption == "ESTIMATED SHIPMENTS BY STATE"
    assert int(row.n_rows) == 7 and int(row.n_cols) == 4
    cells = t.cell_df[t.cell_df["object_key"] == "table:u1"]
    header = cells[cells["is_header"]]
    assert list(header.sort_values("col")["text"]) == ["State", "2019", "2020", "Change %"]
    assert "1,237" in set(cells["text"])
    lines = t.line_df[t.line_df["object_key"] == "table:u1"]
    assert (lines["role"] == "table").all() and "Alaska" in " ".join(lines["text"])


def test_prose_and_line_numbered_lists_are_no_tables():
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _prose(page, 72, 20, x=72, width_words=6)
    _prose(page, 72, 20, x=330, width_words=6)
    _stats_page(doc, caption=None, counter_rows=True)
    t = _parse(doc)
    assert not (t.object_registry["source"] == "table_detection").any()


def test_looks_like_table_rejects_dot_leaders_and_long_cells():
    def cells(rows):
        return [
            {"row": r, "col": c, "text": t, "is_header": r == 0}
            for r, row in enumerate(rows)
            for c, t in enumerate(row)
        ]

    good = cells([["Item", "Rate"], ["A", "1.5"], ["B", "2.5"], ["C", "3.0"]])
    assert looks_like_table(good, ruled=False)
    leaders = cells([["Intro", ".", "3"], ["Setup", ".", "5"], ["Usage", ".", "9"]])
    assert not looks_like_table(leaders, ruled=False)
    prose = cells([["a " * 10, "b " * 10]] * 4)
    assert not looks_like_table(prose, ruled=True)


def test_negative_amount_in_a_table_is_no_equation():
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    y = 100.0
    for x, h in zip((72, 300, 420, 500), ("Item", "2024", "2023", "Note"), strict=True):
        page.insert_text((x, y), h, fontname="hebo", fontsize=9)
    for i in range(5):
        y += 12
        for x, v in zip(
            (72, 300, 420, 500), (f"Line item {i}", f"{500 + i}", f"{400 + i}", f"({512 + i})"), strict=True
        ):
            page.insert_text((x, y), v, fontname="helv", fontsize=9)
    t = _parse(doc)
    assert not (t.object_registry["object_type"] == "equation").any()


def test_sideways_page_text_is_content_in_reading_order_not_header():
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    x = 60.0
    for i in range(25):  # a landscape page set on portrait paper: the text reads upwards
        page.insert_text((x, 700), f"Body line {i} of a landscape page set sideways.", fontsize=10, rotate=90)
        x += 14
    page.insert_text((300, 770), "1", fontsize=10)
    page.set_rotation(90)
    t = _parse(doc)
    lines = t.line_df[t.line_df["text"].str.startswith("Body line")]
    assert len(lines) == 25
    assert (lines["role"] == "body").all()
    assert list(lines["text"].str.extract(r"line (\d+)")[0].astype(int)) == list(range(25))


def test_drop_cap_joins_the_first_line_and_keeps_reading_order():
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 60), "1 Introduction", fontname="hebo", fontsize=14)
    page.insert_text((72, 120), "T", fontname="tiro", fontsize=44)
    y = 88.0
    for i in range(10):
        x = 108 if i < 3 else 72
        first = "he" if i == 0 else "and"
        text = f"{first} line {i} of the opening paragraph continues with ordinary body words."
        page.insert_text((x, y), text, fontname="tiro", fontsize=10)
        y += 13
    page.insert_text((72, y + 20), "2 Methods", fontname="hebo", fontsize=14)
    t = _parse(doc)
    body = t.line_df[t.line_df["role"] == "body"]
    assert body.iloc[0]["text"].startswith("The line 0")
    assert list(body["text"].str.extract(r"line (\d+)")[0].astype(int)) == list(range(10))
    assert list(t.toc_df["title"]) == ["Introduction", "Methods"]


def test_continued_numbered_heading_is_not_a_second_section():
    doc = pymupdf.open()
    for title in ("6. Investments in government enterprises", "6. Investments in GBEs (cont.)"):
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 80), title, fontname="hebo", fontsize=12)
        _prose(page, 110, 12)
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 80), "7. Bank indebtedness", fontname="hebo", fontsize=12)
    _prose(page, 110, 12)
    t = _parse(doc)
    assert list(t.toc_df["number"].str.rstrip(".")) == ["6", "7"]
    first = t.toc_df.iloc[0]
    assert int(first["page_end"]) == 2


def test_flat_outline_paragraph_bookmarks_are_dropped_and_each_article_covers_its_paragraphs():
    # Session 5: bookmarks on body sentences are not sections (toc_sources.sentence_like); they
    # used to become toc rows beside the articles (nested by renest_restarts)
    doc = pymupdf.open()
    outline = []
    for a in (1, 2):
        page = doc.new_page(width=612, height=792)
        _prose(page, 72, 4)
        page.insert_text((250, 150), f"Article {a}", fontname="hebo", fontsize=12)
        y = 180.0
        for n in (1, 2):
            text = f"Member States shall ensure rule {a}.{n} applies to processing of data."
            page.insert_text((72, y), f"{n}.", fontname="helv", fontsize=10)
            page.insert_text((72, y + 14), text, fontname="helv", fontsize=10)
            outline.append([1, f"{n}. {text}", a])
            y = _prose(page, y + 28, 8) + 20
    doc.set_toc(outline)
    t = _parse(doc)
    toc = t.toc_df
    assert (toc["source"] != "outline").all()
    articles = toc[toc["title"].str.startswith("Article")]
    assert len(articles) == 2
    first = " ".join(section_lines(t, articles.iloc[0])["text"].astype(str))
    assert "rule 1.1" in first and "rule 1.2" in first and "rule 2.1" not in first


def test_small_bold_running_head_beside_the_page_number_is_furniture():
    doc = pymupdf.open()
    for p in range(3):
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 40), str(p + 7), fontname="hebo", fontsize=9)
        head = ("TOPOLOGICAL SPACES", "METRIC SPACES", "CONTINUOUS MAPS")[p]  # differs on every page
        page.insert_text((300, 40), f"1.{p + 1}. {head}", fontname="hebo", fontsize=9)
        _prose(page, 120, 4)
        page.insert_text((72, 200), f"1.{p + 1} Section {p}", fontname="hebo", fontsize=14)
        _prose(page, 230, 20)
    t = _parse(doc)
    heads = t.line_df[t.line_df["text"].str.contains("SPACES|MAPS")]
    assert (heads["role"] == "header").all()
    assert list(t.toc_df["title"]) == ["Section 0", "Section 1", "Section 2"]


def test_two_columns_around_a_full_width_line_read_band_by_band():
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)

    def column(x: float, y: float, tag: str) -> None:
        for i in range(15):
            page.insert_text((x, y), f"{tag}{i} words of a column line here", fontname="helv", fontsize=9)
            y += 11

    column(72, 80, "LA")
    column(320, 80, "RA")
    wide = "Full width statement that spans across both of the columns of this page in one line of text"
    page.insert_text((72, 270), wide, fontname="helv", fontsize=9)
    column(72, 300, "LB")
    column(320, 300, "RB")
    t = _parse(doc)
    tags = [s.split()[0].rstrip("0123456789") for s in t.line_df["text"]]
    runs = [tag for k, tag in enumerate(tags) if k == 0 or tags[k - 1] != tag]
    assert runs == ["LA", "RA", "Full", "LB", "RB"]
    assert int(t.line_df.loc[t.line_df["text"] == wide, "column"].iloc[0]) == -1


def test_numbered_heading_repeated_mid_page_opens_a_second_document():
    doc = pymupdf.open()
    for k in range(2):  # two notices bound in one PDF, each with its own "14 CFR Part 39" block
        page = doc.new_page(width=612, height=792)
        y = _prose(page, 72, 10 if k else 0)
        page.insert_text((72, y + 30), "14 CFR Part 39", fontname="hebo", fontsize=12)
        _prose(page, y + 60, 12)
    t = _parse(doc)
    assert list(t.toc_df["page_start"]) == [1, 2]
