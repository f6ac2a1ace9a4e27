"""A window whose budget of windows is spent still reads the very next sentence when it is a
strong line and lines are left (session 15, fan; set 10's "how many lines make a contribution
legally significant": the window stopped at "... as described above." and the next line, "A
change of just a few lines (less than 15 or so) is not legally significant", got no window)."""

from __future__ import annotations

from docintel.generation.offline.scoring import ScoredLine, pick_windows
from docintel.schema.evidence import EvidenceLine

LINES = [
    ("6.2 Legally Significant Changes", {"legal", "signific"}, "heading"),
    (
        "If a person contributes more than around 15 lines of code that is legally signif-",
        {"contribut", "legal", "line"},
        "body",
    ),
    (
        "icant for copyright purposes, we need copyright papers for that contribution, as described",
        {"contribut"},
        "body",
    ),
    ("above.", set(), "body"),
    (
        "A change of just a few lines (less than 15 or so) is not legally significant for copyright.",
        {"legal", "line", "signific"},
        "body",
    ),
    ("Keep in mind that a series of minor changes can add up.", set(), "body"),
    ("Copyright does not cover ideas.", set(), "body"),
]


def _rows(lines):
    rows = [
        ScoredLine(0, i, EvidenceLine(page=11, line=i + 19, text=t, role=role), hits=set(h))
        for i, (t, h, role) in enumerate(lines)
    ]
    for r in rows:
        r.score = float(len(r.hits))
    for i, r in enumerate(rows):
        r.context = r.score + 0.5 * sum(rows[k].score for k in (i - 1, i + 1) if 0 <= k < len(rows))
    return [rows]


def test_the_next_sentence_extends_the_only_window():
    (w,) = pick_windows(_rows(LINES), [0], max_windows=1, max_lines=8)
    assert w.start <= 1 and w.end == 4
    assert "signific" in w.hits


def test_no_lines_left_no_extension():
    (w,) = pick_windows(_rows(LINES), [0], max_windows=1, max_lines=3)
    assert w.end < 4


def test_a_heading_after_the_window_is_not_read_on():
    lines = [*LINES[:4], ("6.3 Recording Contributors", {"legal", "line", "signific"}, "heading"), *LINES[5:]]
    (w,) = pick_windows(_rows(lines), [0], max_windows=1, max_lines=8)
    assert w.end == 3


def test_a_form_line_extends_the_first_hop_not_a_pulled_target():
    form = [
        ("33 Refund", set(), "body"),
        (
            "34 If line 33 is more than line 24, subtract line 24 from line 33. This is the amount you",
            {"line"},
            "body",
        ),
        ("overpaid.", {"overpaid"}, "body"),
        ("35a Amount of line 34 you want refunded to you.", {"line", "refund"}, "table"),
        ("36 Amount of line 34 you want applied to your estimated tax.", set(), "table"),
    ]

    def rows():
        out = _rows(form)
        out[0][1].context, out[0][3].context = 10.0, 8.0  # the sentence of line 34 seeds the window
        return out

    (w,) = pick_windows(rows(), [0], max_windows=1, max_lines=8)
    assert w.end == 3
    (w,) = pick_windows(rows(), [0], max_windows=1, max_lines=8, read_rows=False)
    assert w.end == 2
