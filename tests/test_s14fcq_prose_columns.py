"""Two columns of running text whose lines the parser interleaved (sorted top to bottom) are read
column by column: a paragraph break in the first column is no table row, so the second column's
headings and paragraphs are not read into the middle of the first column's text."""

from __future__ import annotations

from types import SimpleNamespace

from docintel.corpus.blocks import reading_order

#: (x0, x1, y0, y1, text): a page of notes to financial statements, two columns, interleaved.
PAGE = [
    (72.0, 286.6, 373.4, 385.7, "the City proportionately consolidates two entities held"),
    (72.0, 281.9, 384.2, 396.5, "in partnership. The Toronto Waterfront Revitalization"),
    (333.0, 400.0, 385.8, 398.7, "d. Trust funds"),
    (72.0, 279.1, 395.0, 407.3, "Corporation is a 33.3% partnership with each of the"),
    (72.0, 286.5, 405.8, 418.1, "Canadian and Ontario Governments, and the Toronto"),
    (351.0, 573.3, 405.8, 418.1, "Trust funds administered by the City are not included in"),
    (72.0, 282.1, 416.6, 428.9, "Pan Am Sports Centre is a 50% partnership with the"),
    (351.0, 423.5, 416.6, 428.9, "these Statements."),
    (72.0, 158.9, 427.4, 439.7, "University of Toronto."),
    (333.0, 553.1, 436.2, 449.1, "e. Use of estimates and measurement uncertainty"),
    (72.0, 298.3, 447.2, 459.5, "The City's 100% share of the Toronto Hydro Corporation"),
    (72.0, 269.9, 458.0, 470.3, "and Toronto Parking Authority follow Government"),
    (351.0, 534.6, 456.2, 468.5, "The preparation of these Statements requires"),
    (72.0, 259.1, 468.8, 481.1, "Business Enterprises (GBE) accounting, using"),
    (351.0, 569.6, 467.0, 479.3, "management to make estimates and assumptions that"),
    (72.0, 271.6, 479.6, 491.9, "the modified equity basis of accounting where the"),
    (351.0, 570.4, 477.8, 490.1, "affect the reported amounts of assets and liabilities, as"),
    (72.0, 276.6, 490.4, 502.7, "accounting principles of the GBEs are not adjusted"),
    (351.0, 563.1, 488.6, 500.9, "well as disclosure of contingent assets and liabilities,"),
]


def test_a_paragraph_break_in_the_first_prose_column_opens_no_row():
    rows = [SimpleNamespace(text=t, x0=a, x1=b, y0=c, y1=d) for a, b, c, d, t in PAGE]
    got = [r.text for r in reading_order(rows)]
    left = [t for a, _, _, _, t in PAGE if a < 300]
    assert got[: len(left)] == left  # the first column whole, its second paragraph included
    assert got[len(left)] == "d. Trust funds"
