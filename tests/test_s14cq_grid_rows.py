"""Reading order inside a text grid whose cells are centred in their rows: one column's lines sit
between the other's baselines (not side by side by half a line) and a column's first line can
start below the row's top, so rows are found at the gaps across every column."""

from __future__ import annotations

from types import SimpleNamespace

from docintel.corpus.blocks import reading_order

HEIGHT, PITCH = 11.0, 13.3


def line(text, x0, x1, y0):
    return SimpleNamespace(text=text, x0=x0, x1=x1, y0=y0, y1=y0 + HEIGHT)


def _grid():
    rows = [("L", "Subcategory", 80.0), ("M", "Relevant Mappings", 80.0)]  # the header row
    # row 1: the label column has 3 lines, the mappings column 4 and a bit; the label is centred:
    # its first line sits below the mappings' first line, baselines half a line apart
    labels = ["PR.XX-1: Response", "plans are in", "place and managed"]
    maps = ["• Standard A 1.2.3", "• Standard B 4.5", "• Catalog CP-2, IR-8", "• Rule 1.2(a)", "1.3(b)"]
    top = 100.0
    rows += [("L", t, top + PITCH + 6.5 + i * PITCH) for i, t in enumerate(labels)]
    rows += [("M", t, top + i * PITCH) for i, t in enumerate(maps)]
    # row 2 below a gap of 15 points across both columns; the label starts above the mappings
    top2 = top + 5 * PITCH + 15
    rows += [("L", t, top2 + i * PITCH) for i, t in enumerate(["PR.XX-2: Plans", "are tested"])]
    rows += [("M", t, top2 + 6 + i * PITCH) for i, t in enumerate(["• Standard C 7", "• Catalog CP-4"])]
    out = [line(t, 316, 405, y) if c == "L" else line(t, 423, 610, y) for c, t, y in rows]
    return sorted(out, key=lambda r: r.y0)  # the parser's order: top to bottom, columns interleaved


def test_centred_cells_are_read_row_by_row_column_by_column():
    got = [r.text for r in reading_order(_grid())]
    assert got == [
        "Subcategory",
        "Relevant Mappings",
        "PR.XX-1: Response",
        "plans are in",
        "place and managed",
        "• Standard A 1.2.3",
        "• Standard B 4.5",
        "• Catalog CP-2, IR-8",
        "• Rule 1.2(a)",
        "1.3(b)",
        "PR.XX-2: Plans",
        "are tested",
        "• Standard C 7",
        "• Catalog CP-4",
    ]


def test_a_paragraph_gap_inside_a_top_aligned_cell_opens_no_row():
    # a glossary: the term on the baseline of its definition's first line; the second
    # definition of a term follows a gap as wide as the gap between entries
    t = 15.0
    rows = [
        line("Term one –", 67, 130, 100),
        line("First definition of the", 238, 500, 100),
        line("term, going on.", 238, 400, 113),
        line("Second definition of it.", 238, 500, 136),
        line("Term two –", 67, 130, 159),
        line("Its definition.", 238, 400, 159),
    ]
    for r in rows:
        r.y1 = r.y0 + t
    got = [r.text for r in reading_order(rows)]
    assert got.index("Second definition of it.") < got.index("Term two –")
    assert got[0] == "Term one –"


#: Line boxes of a landscape table on a portrait page (x0, y0, x1, y1): each line runs up the page.
UPRIGHT = [
    (142, 255, 153, 460), (145, 165, 157, 234), (153, 247, 165, 460), (158, 207, 169, 234),
    (165, 678, 176, 751), (165, 268, 176, 460), (176, 261, 188, 460), (188, 386, 199, 460),
    (206, 487, 217, 656), (206, 70, 217, 140), (210, 163, 221, 234), (217, 478, 229, 656),
    (217, 70, 229, 140), (222, 155, 233, 234), (229, 479, 240, 656), (229, 70, 240, 140),
]  # fmt: skip


def test_text_running_up_the_page_is_left_in_the_parsers_order():
    rows = [
        SimpleNamespace(text=f"line {i}", x0=a, y0=b, x1=c, y1=d) for i, (a, b, c, d) in enumerate(UPRIGHT)
    ]
    assert reading_order(rows) == rows
