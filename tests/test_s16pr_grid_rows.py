"""``label_rows.grid_rows`` with its edge search inlined (session 16, pr): the same rows as the
earlier form, which found each line's edge with a generator (``_edge``), on random pages.

The pages mix groups of one to five lines at a few column edges (jittered within and beyond
``GRID_ALIGN_PT``), stray left edges, NaN edges and sizes, and sizes on both sides of the 0.5 pt
row test; about one page in twelve has grid rows.
"""

from __future__ import annotations

import random

from docintel.parsing.heading_candidates import _baseline_groups
from docintel.parsing.label_rows import GRID_ALIGN_PT, GRID_MIN_EDGES, grid_rows


def _edge(edges: list[float], x: float) -> int:
    return next((k for k, e in enumerate(edges) if abs(e - x) <= GRID_ALIGN_PT), -1)


def _reference(groups: list[list[dict]]) -> set[int]:
    """grid_rows as it read before the inline search (session 15)."""
    edges: list[float] = []
    counts: list[int] = []
    for g in groups:
        if len(g) < 3:
            continue
        at = set()
        for r in g:
            k = _edge(edges, r["x0"])
            if k < 0:
                edges.append(r["x0"])
                counts.append(0)
                k = len(edges) - 1
            at.add(k)
        if len(at) >= 3:
            for k in at:
                counts[k] += 1
    shared = [e for e, n in zip(edges, counts, strict=True) if n >= 2]
    if len(shared) < GRID_MIN_EDGES:
        return set()
    rows = set()
    for i, g in enumerate(groups):
        if len(g) < 2:
            continue
        at = {_edge(shared, r["x0"]) for r in g}
        sizes = [r["size"] for r in g]
        if -1 not in at and len(at) >= 2 and max(sizes) - min(sizes) <= 0.5:
            rows.add(i)
    return rows


def _page(rng: random.Random) -> list[list[dict]]:
    nan = float("nan")
    cols = [rng.choice([50.0, 200.0, 350.0]) + rng.uniform(-3, 3) for _ in range(rng.randint(1, 5))]
    groups = []
    for _ in range(rng.randint(0, 12)):
        n = rng.choice([1, 1, 2, 3, 3, 4, 5])
        xs = [*cols, nan, rng.uniform(0, 500), 52.0, 54.0, 56.0]
        groups.append(
            [{"x0": rng.choice(xs), "size": rng.choice([9.0, 10.0, 10.4, 11.0, nan])} for _ in range(n)]
        )
    return groups


def test_grid_rows_match_the_generator_search_on_random_pages():
    rng = random.Random(16)
    found = 0
    for _ in range(3000):
        groups = _page(rng)
        got = grid_rows(groups)
        assert got == _reference(groups), groups
        found += bool(got)
    assert found > 100  # both branches exercised


def test_a_three_column_table_is_found_and_a_prose_page_is_not():
    def row(y: float, xs: list[float]) -> list[dict]:
        return [{"x0": x, "x1": x + 40, "y0": y - 9, "y1": y, "size": 10.0, "column": 0} for x in xs]

    table = [row(100 + 14 * i, [72.0, 200.0, 330.0]) for i in range(4)]
    assert grid_rows(table) == {0, 1, 2, 3} == _reference(table)
    prose = [row(100 + 14 * i, [72.0]) for i in range(20)]
    # one line per baseline: the heading stage skips the call, and the rows are none either way
    assert len(_baseline_groups([r for g in prose for r in g])) == 20
    assert grid_rows(prose) == set() == _reference(prose)
