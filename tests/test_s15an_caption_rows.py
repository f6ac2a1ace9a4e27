"""A window ending on a caption above its table reads on to the rows the question hits (session 15, an).

The caption names the table ("Table 1: Maximum path lengths ... for different layer types"); the
value asked for is a cell of a row ("Self-Attention | O(n2 d) | O(1) | O(1)"). Before, the window
stopped at the caption's last sentence and quoted prose about the table instead.
"""

from __future__ import annotations

from types import SimpleNamespace

from docintel.generation.offline.scoring import ScoredLine, pick_windows
from docintel.generation.offline.tablerows import rows_below_caption
from docintel.schema.evidence import EvidenceLine


def _row(role: str, text: str, hits: set | None = None) -> SimpleNamespace:
    return SimpleNamespace(ln=SimpleNamespace(role=role, text=text), hits=hits or set())


CAPTION = [
    _row("caption", "Table 1: Maximum path lengths and complexity for different layer types.", {"path"}),
]
GRID = [
    _row("table", "Layer Type | Complexity per Layer | Maximum Path Length", {"path"}),
    _row("table", "Self-Attention | O(n2 d) | O(1)", {"self-attention"}),
    _row("table", "Recurrent | O(n d2) | O(n)", {"recurr"}),
    _row("table", "Convolutional | O(k n d2) | O(logk(n))"),
]


def test_caption_above_reads_to_the_last_hit_row():
    rows = [_row("body", "Layers are compared below."), *CAPTION, *GRID]
    assert rows_below_caption(rows, 1, 1, 14) == 4  # through "Recurrent", not the unhit last row


def test_no_hit_row_past_the_header_no_read_on():
    rows = [*CAPTION, GRID[0], _row("table", "Convolutional | O(k n d2) | O(logk(n))")]
    assert rows_below_caption(rows, 0, 0, 14) == 0


def test_caption_under_rows_does_not_read_the_next_tables_rows():
    rows = [_row("table", "plain-34 28.54", {"plain"}), *CAPTION, *GRID]
    assert rows_below_caption(rows, 1, 1, 14) == 1


def test_rows_past_the_budget_are_not_read():
    wide = "Self-Attention | a long cell of many words that fill a whole line of prose here"
    rows = [*CAPTION, GRID[0], *[_row("table", wide, {"self-attention"}) for _ in range(20)]]
    assert rows_below_caption(rows, 0, 0, 14) == 0


def test_pick_windows_reads_the_rows_in_the_first_hop_not_in_a_pulled_target():
    rows = [
        ScoredLine(0, i, EvidenceLine(page=6, line=i + 1, text=r.ln.text, role=r.ln.role), hits=r.hits)
        for i, r in enumerate([*CAPTION, *GRID])
    ]
    for r in rows:
        r.score = float(len(r.hits)) * (3.0 if r.ln.role == "caption" else 1.0)
    for i, r in enumerate(rows):
        r.context = r.score + 0.5 * sum(rows[k].score for k in (i - 1, i + 1) if 0 <= k < len(rows))
    (w,) = pick_windows([rows], [0], max_windows=1, max_lines=14)
    assert (w.start, w.end) == (0, 3)
    (w,) = pick_windows([rows], [0], max_windows=1, max_lines=14, finish=0, read_rows=False)
    assert w.end < 2
