"""Session 15 (obj): the ruled-grid reader's fast paths give what the plain code gave.

``tables_ruled._chain_bottom`` replaces a Python loop over every vertical rule; the word
centres are kept once per page. Both are checked against the plain reading.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from docintel.parsing import tables_ruled
from docintel.parsing.tables_free import CachedPage


def _plain_chain(vs: list[tuple]) -> tuple[float, float]:
    """The loop ``ruled_cells`` ran before session 15 (obj)."""
    top = min(v[1] for v in vs)
    bottom = top
    for lo, hi in sorted((v[1], v[2]) for v in vs):
        if lo <= bottom + 2:
            bottom = max(bottom, hi)
    return top, bottom


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("seed", range(4))
def test_chain_bottom_equals_the_loop_on_random_rules(seed):
    rng = random.Random(seed)
    for _ in range(3000):
        vs = []
        for _ in range(rng.randint(1, 14)):
            # whole points make ties and exact 2-pt gaps (the boundary of the chain test) common
            lo = float(rng.randint(0, 40)) if rng.random() < 0.5 else rng.uniform(0, 200)
            hi = lo + rng.choice([rng.uniform(0, 30), float(rng.randint(0, 4)), -1.0])
            if rng.random() < 0.01:
                lo = float("nan")
            vs.append((rng.uniform(0, 500), lo, hi))
        want, got = _plain_chain(vs), tables_ruled._chain_bottom(vs)
        assert _same(want[0], got[0]) and _same(want[1], got[1]), (vs, want, got)


def test_chain_bottom_stops_at_the_first_gap():
    # rules 10-50 and 51-90 chain (1 pt gap); 100-140 starts 10 pt below: not the grid's
    vs = [(0.0, 51.0, 90.0), (0.0, 10.0, 50.0), (0.0, 100.0, 140.0), (0.0, 92.0, 95.0)]
    assert tables_ruled._chain_bottom(vs) == (10.0, 95.0) == _plain_chain(vs)


class _Page:
    """A pymupdf page stand-in: a 3 x 3 ruled grid and one word per cell."""

    rect = (0.0, 0.0, 300.0, 300.0)
    number = None  # no parent document: CachedPage keeps a memo of its own

    def __init__(self) -> None:
        self.word_reads = 0

    def get_cdrawings(self):
        items = [("l", (x, 0.0), (x, 90.0)) for x in (0.0, 30.0, 60.0, 90.0)]
        items += [("l", (0.0, y), (90.0, y)) for y in (0.0, 30.0, 60.0, 90.0)]
        return [{"items": items, "rect": (0.0, 0.0, 90.0, 90.0)}]

    def get_text(self, kind="text", **kw):
        self.word_reads += 1
        return [
            (10.0 + 30 * c, 10.0 + 30 * r, 20.0 + 30 * c, 20.0 + 30 * r, f"r{r}c{c}", 0, r, c)
            for r in range(3)
            for c in range(3)
        ]


def test_word_centres_read_once_per_page_and_cells_unchanged():
    page = CachedPage(_Page())
    first, box = tables_ruled.ruled_cells(page, (0.0, 0.0, 90.0, 90.0))
    assert box == (0.0, 0.0, 90.0, 90.0)
    assert [c["text"] for c in first] == [f"r{r}c{c}" for r in range(3) for c in range(3)]
    words = page.get_text("words")
    centres = page._memo["word_centres"]
    assert centres[0] is words
    np.testing.assert_array_equal(centres[1], [(w[0] + w[2]) / 2 for w in words])
    np.testing.assert_array_equal(centres[2], [(w[1] + w[3]) / 2 for w in words])
    again, _ = tables_ruled.ruled_cells(page, (0.0, 0.0, 90.0, 90.0))
    assert again == first
    assert page._memo["word_centres"] is centres  # the second read reused them


def test_word_centres_follow_a_new_word_list():
    page = CachedPage(_Page())
    a = page.get_text("words")
    cx, _ = tables_ruled._word_centres(page, a)
    b = [(w[0] + 1, w[1], w[2] + 1, *w[3:]) for w in a]  # another list (another page's words): not the memo's
    cx2, _ = tables_ruled._word_centres(page, b)
    np.testing.assert_array_equal(cx2, cx + 1)
