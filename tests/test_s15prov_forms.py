"""provision_forms.form_lines on a line frame: the description segments on a box label's baseline
are joined in x order whatever the frame order, only the label's page is read, and a taken line,
a label left of the right edge and a repeated label are no form lines (s15 prov: the scan reads
column lists per page, not a frame filter per label)."""

from __future__ import annotations

import pandas as pd

from docintel.parsing.provision_forms import form_lines


def _row(page, line, text, x0, x1, y0, role="body"):
    return {"page": page, "line": line, "text": text, "role": role, "x0": x0, "y0": y0, "x1": x1, "size": 9.0}


def _frame() -> pd.DataFrame:
    rows = [
        _row(1, 0, "Form 1040", 72, 200, 40, role="header"),
        # the description's second segment comes first in the frame: x order joins them
        _row(1, 1, "from Form(s) W-2 . . . .", 200, 400, 100),
        _row(1, 2, "1 a Total amount", 96, 190, 100.5),
        _row(1, 3, "1a", 480, 492, 100),
        _row(1, 4, "b Household wages . . . .", 96, 400, 120),
        _row(1, 5, "1b", 480, 492, 120),
        _row(1, 6, "note 7 on the same baseline, right of the box", 300, 560, 140),
        _row(1, 7, "1b", 480, 492, 140),  # a repeated label
        _row(1, 8, "12", 100, 112, 160),  # left of the right edge: no box label
        _row(2, 9, "Plain text of a page with no box label", 72, 500, 100),
        _row(3, 10, "2 Add lines 1a and 1b. This is your total", 96, 400, 100),
        _row(3, 11, "2", 480, 486, 100),
        _row(3, 12, "3 Tax-exempt interest", 96, 400, 120),
        _row(3, 13, "3", 480, 486, 120),
    ]
    return pd.DataFrame(rows, index=[100 + i for i in range(len(rows))])


def test_form_lines_join_each_baseline_in_x_order_on_the_labels_page():
    got = form_lines(_frame(), set())
    assert [(c["printed"], c["page"], c["line"], c["idx"]) for c in got] == [
        ("1a", 1, 2, 102),
        ("1b", 1, 4, 104),
        ("2", 3, 10, 110),
        ("3", 3, 12, 112),
    ]
    assert got[0]["rest"] == "Total amount from Form(s) W-2 . . . ."
    assert got[0]["title"] == "Total amount from Form(s) W-2"
    assert got[2]["title"] == "Add lines 1a and 1b"


def test_a_taken_line_is_no_form_line():
    got = form_lines(_frame(), {(3, 12)})
    assert [c["printed"] for c in got] == ["1a", "1b", "2"]
