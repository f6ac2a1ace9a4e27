"""Reading order of row-aligned label layouts (a glossary's terms beside their definitions).

A narrow column of short labels, each set at the height of its text's first line in a wide
right column, reads label, its text, next label; two-column prose, margin line numbers and
a table's cells in the left column keep their column-by-column order.
"""

from __future__ import annotations

import pymupdf
import pytest

from docintel.parsing import columns, label_rows
from docintel.parsing.lines import extract_page_lines

_SENTENCE = (
    "the organization shall review each system account and record the result in its audit log for the "
    "period named by the responsible official before the next assessment cycle begins"
)
WORDS = _SENTENCE.split()


def _text(n: int, start: int) -> str:
    return " ".join(WORDS[(start + k) % len(WORDS)] for k in range(n))


# (a hyphen: the base-14 font has no en dash)
GLOSSARY = [
    ("Responsible Individual Name -", 3),
    ("Restricted Data Element -", 5),
    ("Revoke a Certificate Now -", 2),
    ("Risk Assessment Report -", 4),
    ("Risk Management Framework -", 3),
]


def _glossary_page(doc: pymupdf.Document) -> None:
    page = doc.new_page(width=612, height=792)
    page.insert_text((60, 50), "Glossary of Key Security Terms and Definitions Used Herein", fontsize=11)
    # the previous page's last definition runs over to the top of the right column
    y = 80.0
    page.insert_text((300, y), _text(7, 1) + ".", fontsize=10)
    y += 24
    for k, (term, n) in enumerate(GLOSSARY):
        page.insert_text((60, y), term, fontsize=10)
        for i in range(n):
            words = 7 if i < n - 1 else 4
            page.insert_text((300, y), _text(words, 3 * k + i) + ("." if i == n - 1 else ""), fontsize=10)
            y += 12.5
        y += 12


def _lines(pdf: pymupdf.Document, **kw) -> list[dict]:
    return extract_page_lines(pdf[0], 1, **kw)[0]


def test_glossary_terms_read_before_their_definitions():
    doc = pymupdf.open()
    _glossary_page(doc)
    rows, sig = extract_page_lines(doc[0], 1)
    assert sig["_gutters"], "the synthetic page must have a term column and a definition column"
    texts = [r["text"] for r in rows]
    terms = [texts.index(t) for t, _ in GLOSSARY]
    # each term is followed by its definition's lines, up to the next term
    for k, ((_term, n), at) in enumerate(zip(GLOSSARY, terms, strict=True)):
        following = rows[at + 1 : at + 1 + n]
        assert [r["column"] for r in following] == [1] * n
        assert following[-1]["text"].endswith(".")
        if k + 1 < len(terms):
            assert terms[k + 1] == at + 1 + n
    # the run-over text above the first term is read first (it ends the previous page's entry)
    assert texts.index(_text(7, 1) + ".") < terms[0]


def test_two_column_prose_stays_column_by_column():
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    # paragraphs of three lines on one baseline grid in both columns
    for i in range(32):
        if i % 4 == 3:
            continue
        y = 80 + 12 * i
        page.insert_text((60, y), _text(8, i), fontsize=9)
        page.insert_text((320, y), _text(8, i + 5), fontsize=9)
    rows, sig = extract_page_lines(page, 1)
    assert sig["_gutters"]
    cols = [r["column"] for r in rows]
    assert cols == sorted(cols), "a two-column page reads its left column, then its right"


def test_short_left_lines_of_prose_columns_are_not_labels():
    """Equal columns of short lines (a list set in two columns) are not a label column."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for i in range(20):
        y = 80 + 12 * i
        page.insert_text((60, y), _text(4, i), fontsize=10)
        page.insert_text((320, y), _text(4, i + 3), fontsize=10)
    rows, sig = extract_page_lines(page, 1, hint_gutters=[(290.0, 310.0)])
    cols = [r["column"] for r in rows if r["column"] >= 0]
    assert cols == sorted(cols)


def _row(text: str, x0: float, y0: float, width: float, column: int) -> dict:
    return {"text": text, "x0": x0, "y0": y0, "x1": x0 + width, "y1": y0 + 11, "column": column}


def test_margin_line_numbers_are_not_labels():
    left = [_row(str(n), 40, 80 + 24 * n, 8, 0) for n in range(1, 10)]
    right = [_row(_text(9, n), 80, 80 + 12 * n, 400, 1) for n in range(2, 20)]
    assert label_rows.interleave(left, right) is None
    order = columns.reading_order(left + right, [(55.0, 70.0)])
    assert [r["column"] for r in order] == [0] * len(left) + [1] * len(right)


def test_table_cells_at_several_x_are_not_labels():
    """A table's narrow first column holding cells that start at different x is no label column."""
    left = [_row("ID 1", 60, 80, 30, 0), _row("Check ID", 130, 80, 40, 0)]
    left += [_row(f"Row {k}", 60 + 60 * (k % 2), 116 + 36 * k, 40, 0) for k in range(4)]
    right = [_row(_text(9, n), 300, 80 + 12 * n, 250, 1) for n in range(0, 24)]
    assert label_rows.interleave(left, right) is None


@pytest.mark.parametrize("n_labels", [1, 2])
def test_too_few_labels_keep_column_order(n_labels):
    left = [_row(f"Term {k} –", 60, 80 + 60 * k, 60, 0) for k in range(n_labels)]
    right = [_row(_text(9, n), 300, 80 + 12 * n, 250, 1) for n in range(0, 10)]
    assert label_rows.interleave(left, right) is None


def test_wrapped_label_stays_one_label():
    left = [
        _row("Alpha –", 60, 80, 40, 0),
        _row("Designated Approving", 60, 130, 100, 0),
        _row("(Accrediting) Authority –", 60, 142.5, 120, 0),
        _row("Gamma –", 60, 205, 40, 0),
    ]
    right = [_row(_text(9, n), 300, 80 + 12.5 * n, 250, 1) for n in range(0, 14)]
    out = label_rows.interleave(left, right)
    assert out is not None
    texts = [r["text"] for r in out]
    k = texts.index("Designated Approving")
    assert texts[k + 1] == "(Accrediting) Authority –"
    assert out[k + 2]["column"] == 1 and out[k + 2]["y0"] == 130
