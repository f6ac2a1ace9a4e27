"""Reading order inside a text grid whose cells the parser's line order interleaves."""

from __future__ import annotations

from types import SimpleNamespace

from docintel.corpus.blocks import reading_order

PITCH, HEIGHT = 14.0, 16.0


def line(text, x0, x1, row):
    y0 = 100 + PITCH * row
    return SimpleNamespace(text=text, x0=x0, x1=x1, y0=y0, y1=y0 + HEIGHT)


def texts(rows):
    return [r.text for r in rows]


def test_an_interleaved_grid_is_read_cell_by_cell_row_by_row():
    # two table rows, two columns, the lines in row-major (interleaved) order; a gap of two
    # pitches before the second row
    rows = [
        line("Label one", 72, 180, 0),
        line("first cell starts here and", 220, 520, 0),
        line("continues", 72, 140, 1),
        line("goes on to its end.", 220, 400, 1),
        line("Label two", 72, 180, 3),
        line("second cell starts and", 220, 520, 3),
        line("more", 72, 120, 4),
        line("ends here.", 220, 330, 4),
    ]
    assert texts(reading_order(rows)) == [
        "Label one",
        "continues",
        "first cell starts here and",
        "goes on to its end.",
        "Label two",
        "more",
        "second cell starts and",
        "ends here.",
    ]


def test_a_line_running_across_the_gutter_is_read_with_the_last_column_it_reaches():
    rows = [
        line("Refinements to", 72, 180, 0),
        line("The language has been refined", 220, 520, 0),
        line("better account to better account for identity", 72, 520, 1),
        line("proofing", 72, 130, 2),
        line("Proofing. The end.", 220, 400, 2),
        line("one more", 72, 130, 3),
        line("last line of the cell", 220, 400, 3),
    ]
    out = texts(reading_order(rows))
    col2 = out.index("The language has been refined")
    assert out[col2 : col2 + 3] == [
        "The language has been refined",
        "better account to better account for identity",
        "Proofing. The end.",
    ]


def test_text_already_in_column_order_and_plain_text_are_left_alone():
    left = [line(f"left {i}", 72, 290, i) for i in range(5)]
    right = [line(f"right {i}", 310, 530, i) for i in range(5)]
    assert reading_order(left + right) == left + right  # a two-column page the parser ordered
    plain = [line(f"body {i}", 72, 530, i) for i in range(8)]
    assert reading_order(plain) == plain
