"""A check-mark matrix in a grid: each first-column line its own row (session 15, cq).

Its rows are single lines at one pitch (no gap, no step marks them), so before this rule the
grid read as one band: every id, then every name, then every mark, each torn from its row.
"""

from __future__ import annotations

from types import SimpleNamespace

from docintel.corpus.blocks import reading_order

PITCH, HEIGHT = 14.0, 12.0


def line(text, x0, x1, row, dy=0.0):
    y0 = 100 + PITCH * row + dy
    return SimpleNamespace(text=text, x0=x0, x1=x1, y0=y0, y1=y0 + HEIGHT)


def texts(rows):
    return [r.text for r in rows]


def matrix():
    # id | name | one mark column (a mark sits a little below its row's baseline), rows 1 and 3
    # unmarked; the parser gives it row by row
    rows = []
    for i in range(5):
        rows.append(line(f"AC-{i + 1}", 72, 110, i))
        rows.append(line(f"Access control item {i + 1} name", 130, 330, i))
        if i % 2 == 0:
            rows.append(line("X", 400, 407, i, dy=0.5))
    return rows


def test_a_check_mark_matrix_reads_row_by_row():
    out = texts(reading_order(matrix()))
    assert out == texts(matrix())
    assert out[:4] == ["AC-1", "Access control item 1 name", "X", "AC-2"]


def test_a_bullet_is_not_a_mark():
    # a bullet opens the item beside it: a column of bullets does not make a check-mark matrix
    from docintel.corpus.blocks import _mark

    assert not _mark("\u2022") and not _mark("") and _mark("X") and _mark("\u2713") and _mark("P1")


def test_the_first_hop_grid_rows_carry_their_text():
    # the search path's first hop reorders its passages' lines through single._Row: the mark
    # rule reads each line's text there too
    from docintel.corpus.single import _Row

    rows = [_Row(SimpleNamespace(text=r.text), (r.x0, r.y0, r.x1, r.y1)) for r in matrix()]
    assert [r.line.text for r in reading_order(rows)] == texts(matrix())
