"""The reach-back over a table's rows counts words, not one-cell lines (session 10, an).

Session 9 reverted a clamp of ``rows_above_caption`` to the window's line budget: ResNet's Table 3
rows the question compares are 21 one-cell lines against a 14-line budget, so the clamp cut them
(res-r1). Counted by words (a one-cell line is a tenth of a prose line) the same rows fit, and a
table of full-width rows is still bounded by the budget.
"""

from __future__ import annotations

from types import SimpleNamespace

from docintel.generation.offline.tablerows import line_cost, rows_above_caption


def _row(role: str, text: str, hits: set | None = None) -> SimpleNamespace:
    return SimpleNamespace(ln=SimpleNamespace(role=role, text=text), hits=hits or set())


def test_one_cell_rows_fit_the_budget_that_prose_wide_rows_do_not():
    cells = [_row("table", "plain-34", {"plain-34"})] + [_row("table", v) for v in ["28.54", "10.02"] * 10]
    rows = [_row("body", "The models are compared below."), *cells]
    rows += [_row("caption", "Table 3. Error rates (%, 10-crop testing) on ImageNet validation.", {"error"})]
    seed = len(rows) - 1
    # all 21 one-cell rows are read with a 14-line budget (2.1 lines' worth of words)
    assert rows_above_caption(rows, seed, seed, seed, 14) == 1
    wide = "plain-34 network with thirty four layers trained on ImageNet from scratch reaches"
    rows = [_row("body", "The models are compared below."), _row("table", wide, {"plain-34"})]
    rows += [_row("table", wide) for _ in range(20)]
    rows += [_row("caption", "Table 3. Error rates (%, 10-crop testing) on ImageNet validation.", {"error"})]
    seed = len(rows) - 1
    # the hit row (index 1) is out of the budget's reach: no reach-back (review fix, fxn), not a
    # window spent on the 13 rows above the caption the question did not hit
    assert rows_above_caption(rows, seed, seed, seed, 14) == seed


def test_the_reach_back_holds_the_hit_row_when_it_fits():
    wide = "network with thirty four layers trained on ImageNet from scratch reaches about"
    rows = [_row("body", "The models are compared below.")]
    rows += [_row("table", f"model-{i} " + wide, {"model-8"} if i == 8 else None) for i in range(20)]
    rows += [_row("caption", "Table 3. Error rates (%, 10-crop testing) on ImageNet validation.", {"error"})]
    seed = len(rows) - 1
    hit = 9  # "model-8"
    start = rows_above_caption(rows, seed, seed, seed, 14)
    assert start == hit and rows[start].hits  # the window opens at the row the question hits
    assert sum(line_cost(rows[k].ln.text) for k in range(start, seed + 1)) <= 14
    far = rows_above_caption(rows, seed, seed, seed, 8)  # 12 rows' worth needed, 8 allowed
    assert far == seed


def test_line_cost_is_a_share_of_a_prose_line():
    assert line_cost("22.85") == 0.1
    assert (
        line_cost("the controller shall without undue delay and where feasible notify the authority") == 1.0
    )
