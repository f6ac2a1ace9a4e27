"""Session 16 (ut): ``ruled_cells`` fills a column that holds none of a row's words with "" at once.

The cell loop it replaced took every cell's words by mask, sorted and joined them, also for the
empty cells of a sparse grid. Held here to that loop on random grids (words on the rules, NaN
centres, ties), so the cells stay the same list of dicts.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from docintel.parsing import tables_ruled
from docintel.parsing.tables_free import CachedPage
from docintel.parsing.tables_ruled import _chain_bottom, _cluster, _segments_in, _word_centres


def _plain_ruled_cells(page, clip):
    """``ruled_cells`` as it was before session 16 (ut)."""
    hs, vs = _segments_in(page, clip)
    xs = _cluster([v[0] for v in vs])
    if len(xs) < 3:
        return [], None
    left, right = xs[0], xs[-1]
    ys = _cluster([h[0] for h in hs if h[1] <= left + 3 and h[2] >= right - 3])
    top, bottom = _chain_bottom(vs)
    ys = [y for y in ys if top - 2 <= y <= bottom + 2]
    if len(ys) < 3:
        return [], None
    words = page.get_text("words")
    cx, cy = _word_centres(page, words)
    in_col = [(xs[j] <= cx) & (cx <= xs[j + 1]) for j in range(len(xs) - 1)]
    out = []
    r_out = 0
    for i in range(len(ys) - 1):
        row = []
        at = np.flatnonzero((ys[i] <= cy) & (cy <= ys[i + 1]))
        for j in range(len(xs) - 1):
            ws = [words[k] for k in at[in_col[j][at]].tolist()] if len(at) else []
            ws.sort(key=lambda w: (round(w[1]), w[0]))
            row.append((" ".join([w[4] for w in ws]), (xs[j], ys[i], xs[j + 1], ys[i + 1])))
        if not any(t for t, _ in row):
            continue
        label = next((t for t, _ in row if t), None)
        for j, (t, bb) in enumerate(row):
            out.append(
                {
                    "row": r_out,
                    "col": j,
                    "text": t,
                    "is_header": r_out == 0,
                    "row_label": label,
                    "x0": bb[0],
                    "y0": bb[1],
                    "x1": bb[2],
                    "y1": bb[3],
                }
            )
        r_out += 1
    if r_out < 2:
        return [], None
    return out, (left, ys[0], right, ys[-1])


class _Page:
    """A pymupdf page stand-in: a ruled grid (lines or thin rectangles) and the given words."""

    rect = (0.0, 0.0, 600.0, 800.0)
    number = None

    def __init__(self, items, words) -> None:
        self._items, self._words = items, words

    def get_cdrawings(self):
        return [{"items": self._items, "rect": (0.0, 0.0, 600.0, 800.0)}]

    def get_text(self, kind="text", **kw):
        return self._words


def _random_page(rng: random.Random) -> tuple[_Page, tuple]:
    xs = sorted(rng.sample(range(20, 580, 10), rng.randint(2, 9)))
    ys = sorted(rng.sample(range(20, 780, 10), rng.randint(2, 14)))
    items = []
    for x in xs:
        items.append(("l", (float(x), float(ys[0])), (float(x), float(ys[-1]))))
    for y in ys:
        if rng.random() < 0.5:
            items.append(("l", (float(xs[0]), float(y)), (float(xs[-1]), float(y))))
        else:  # a rule drawn as a thin filled rectangle
            items.append(("re", (float(xs[0]), y - 0.4, float(xs[-1]), y + 0.4), 1))
    words = []
    density = rng.choice([0.05, 0.3, 0.9])
    for i in range(len(ys) - 1):
        for j in range(len(xs) - 1):
            for _ in range(rng.randint(1, 3) if rng.random() < density else 0):
                # whole-point centres land on the rules (a word in two cells) now and then
                cx = rng.choice([rng.uniform(xs[j], xs[j + 1]), float(xs[j]), float(xs[j + 1])])
                cy = rng.choice([rng.uniform(ys[i], ys[i + 1]), float(ys[i]), float(ys[i + 1])])
                if rng.random() < 0.02:
                    cy = float("nan")
                words.append((cx - 5, cy - 4, cx + 5, cy + 4, rng.choice(["a", "12", "x y", ""]), 0, 0, 0))
    rng.shuffle(words)
    clip = (xs[0] - 2.0, ys[0] - 2.0, xs[-1] + 2.0, ys[-1] + 2.0)
    return _Page(items, words), clip


@pytest.mark.parametrize("seed", range(4))
def test_ruled_cells_equal_the_plain_loop_on_random_grids(seed):
    rng = random.Random(seed)
    kept = 0
    for _ in range(400):
        page, clip = _random_page(rng)
        want = _plain_ruled_cells(CachedPage(page), clip)
        got = tables_ruled.ruled_cells(CachedPage(page), clip)
        assert repr(got) == repr(want), clip  # repr: NaN-free cells, exact floats and types
        kept += bool(got[0])
    assert kept > 100  # most random grids give cells: the comparison is not vacuous


def test_sparse_grid_keeps_empty_cells_and_a_word_on_a_rule_in_both_cells():
    items = [("l", (x, 0.0), (x, 90.0)) for x in (0.0, 30.0, 60.0, 90.0)]
    items += [("l", (0.0, y), (90.0, y)) for y in (0.0, 30.0, 60.0, 90.0)]
    words = [
        (10.0, 10.0, 20.0, 20.0, "a", 0, 0, 0),  # row 0, column 0
        (25.0, 40.0, 35.0, 50.0, "b", 0, 1, 0),  # centre x = 30: on the rule, columns 0 and 1
        (70.0, 70.0, 80.0, 80.0, "c", 0, 2, 0),
    ]
    cells, box = tables_ruled.ruled_cells(CachedPage(_Page(items, words)), (0.0, 0.0, 90.0, 90.0))
    assert box == (0.0, 0.0, 90.0, 90.0)
    grid = [[c["text"] for c in cells if c["row"] == r] for r in range(3)]
    assert grid == [["a", "", ""], ["b", "b", ""], ["", "", "c"]]
