"""Cells of a captioned table: PyMuPDF's find_tables, else word clustering.

Ruled tables come out of ``page.find_tables()`` (strategy ``lines``). Academic
tables are often borderless with only horizontal rules (booktabs): there the
words under the caption are clustered into rows (by baseline) and columns (by
the x-projection of cell phrases). Horizontal rules split the table into row
groups; a group's label ("(A)" centred beside its sub-rows) becomes the
``row_label`` of every row in the group, so "row (E)" / "rows (A)" select rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# the ruled-grid reader (split off in session 15); callers keep reading tables_cells.X
from docintel.parsing.tables_ruled import _segments_in, horizontal_rules, ruled_cells  # noqa: F401

_NUMERIC = re.compile(r"^[\s\-+\u2212\u2013~<>=\u00b1.,%()$\u00d7x0-9eEKMB\u00b7]+$")


@dataclass
class Phrase:
    x0: float
    y0: float
    x1: float
    y1: float
    text: str

    @property
    def yc(self) -> float:
        return (self.y0 + self.y1) / 2


def _phrases(words: list, clip) -> list[Phrase]:
    """Words inside ``clip`` joined into phrases (words of one line closer than ~half a letter height)."""
    left, right, top, bottom = clip[0] - 1, clip[2] + 1, clip[1] - 1, clip[3] + 1
    inside = [w for w in words if w[0] >= left and w[2] <= right and w[1] >= top and w[3] <= bottom]
    inside.sort(key=_word_order)
    out: list[Phrase] = []
    last = None
    last_yc = 0.0  # ``last.yc``, kept as it changes (the property's own expression)
    for w in inside:
        x0, y0, x1, y1, t = w[:5]
        h = y1 - y0
        yc = (y0 + y1) / 2
        if last is not None and abs(last_yc - yc) < 0.3 * h and 0 <= x0 - last.x1 < 0.5 * h:
            last.x1, last.text = x1, f"{last.text} {t}"
            last.y0, last.y1 = min(last.y0, y0), max(last.y1, y1)
            last_yc = (last.y0 + last.y1) / 2
        else:
            last = Phrase(x0, y0, x1, y1, t)
            last_yc = (last.y0 + last.y1) / 2
            out.append(last)
    return out


def _word_order(w) -> tuple:
    """A word's (block, line, x0): reading order of ``get_text("words")`` rows."""
    return (w[5], w[6], w[0])


def _rows(phrases: list[Phrase]) -> list[list[Phrase]]:
    rows: list[list[Phrase]] = []
    ycs: list[float] = []  # the last row's ``yc`` values in row order: ``sum`` of them is what it summed
    for yc, p in sorted([(p.yc, p) for p in phrases], key=_first):
        tol = 0.35 * (p.y1 - p.y0)
        if rows and abs(sum(ycs) / len(ycs) - yc) <= tol:
            rows[-1].append(p)
            ycs.append(yc)
        else:
            rows.append([p])
            ycs = [yc]
    return rows


def _first(t: tuple) -> float:
    """A (yc, phrase) pair's ``yc``: sorted by it (stable) is the order ``sorted`` by ``p.yc`` gives."""
    return t[0]


def _columns(phrases: list[Phrase], width: float) -> list[tuple[float, float]]:
    """Column x-intervals from the projection of the (not too wide) phrases."""
    spans = sorted((p.x0, p.x1) for p in phrases if p.x1 - p.x0 < 0.3 * width) or sorted(
        (p.x0, p.x1) for p in phrases
    )
    cols: list[list[float]] = []
    for a, b in spans:
        if cols and a <= cols[-1][1] + 1.5:
            cols[-1][1] = max(cols[-1][1], b)
        else:
            cols.append([a, b])
    return [(a, b) for a, b in cols]


def _col_of(p: Phrase, cols: list[tuple[float, float]]) -> int:
    for i, (a, b) in enumerate(cols):
        if a - 1 <= p.x0 <= b + 1:
            return i
    xc = (p.x0 + p.x1) / 2
    return min(range(len(cols)), key=lambda i: abs((cols[i][0] + cols[i][1]) / 2 - xc))


def cluster_cells(page, clip) -> list[dict]:
    """Cells of a borderless table inside ``clip`` by word clustering (see module doc)."""
    words = page.get_text("words")
    phrases = _phrases(words, clip)
    if len(phrases) < 4:
        return []
    cols = _columns(phrases, clip[2] - clip[0])
    rows = _rows(phrases)
    if len(cols) < 2 or len(rows) < 2:
        return []
    rules = horizontal_rules(page, clip)

    # bands between rules; without rules every row is its own band
    def band(y: float) -> int:
        return sum(1 for r in rules if r < y)

    grid = []  # (band, y0, y1, {col: [phrases]})
    for r in rows:
        cells: dict[int, list[Phrase]] = {}
        for p in sorted(r, key=lambda p: p.x0):
            cells.setdefault(_col_of(p, cols), []).append(p)
        grid.append([band(min(p.yc for p in r)), min(p.y0 for p in r), max(p.y1 for p in r), cells])

    # header: everything above the first rule after the table's top rule, else rows before numbers
    header_band = None
    if len(rules) >= 2 and grid[0][0] == band(rules[0] + 0.1):
        header_band = grid[0][0]
    if header_band is not None:
        head = [g for g in grid if g[0] == header_band]
        merged: dict[int, list[Phrase]] = {}
        for g in head:
            for c, ps in g[3].items():
                merged.setdefault(c, []).extend(ps)
        grid = [[header_band, min(g[1] for g in head), max(g[2] for g in head), merged, True]] + [
            g + [False] for g in grid if g[0] != header_band
        ]
    else:
        n_head = 0
        for g in grid:
            texts = [" ".join(p.text for p in ps) for ps in g[3].values()]
            if sum(bool(_NUMERIC.match(t)) for t in texts) >= max(1, len(texts) // 2):
                break
            n_head += 1
        n_head = n_head if n_head < len(grid) else 0
        grid = [g + [i < min(n_head, 1)] for i, g in enumerate(grid)]

    # row groups: a label alone in the first column labels the data rows of its band
    # (with rules), else the rows that follow it until the next label
    use_bands = len(rules) >= 3
    firsts: dict[int, list[str]] = {}
    for g in grid:
        if use_bands and not g[4] and 0 in g[3]:
            firsts.setdefault(g[0], []).append(" ".join(p.text for p in g[3][0]))
    labels = {b: v[0] for b, v in firsts.items() if len(v) == 1}
    current = None
    kept = []
    for g in grid:
        if not g[4] and set(g[3]) == {0}:
            if not use_bands:
                current = " ".join(p.text for p in g[3][0])
            continue
        kept.append(g + [current])
    out = []
    for i, (b, y0, y1, cells, is_head, carried) in enumerate(kept):
        first = " ".join(p.text for p in cells.get(0, []))
        label = labels.get(b) or first or (carried if not is_head else None)
        for c, (cx0, cx1) in enumerate(cols):
            ps = cells.get(c, [])
            text = " ".join(p.text for p in sorted(ps, key=lambda p: (round(p.yc), p.x0)))
            bb = (
                (min(p.x0 for p in ps), min(p.y0 for p in ps), max(p.x1 for p in ps), max(p.y1 for p in ps))
                if ps
                else (cx0, y0, cx1, y1)
            )
            out.append(
                {
                    "row": i,
                    "col": c,
                    "text": text,
                    "is_header": bool(is_head),
                    "row_label": label or None,
                    "x0": bb[0],
                    "y0": bb[1],
                    "x1": bb[2],
                    "y1": bb[3],
                }
            )
    return out


def _n_rows(cells: list[dict]) -> int:
    return max((c["row"] for c in cells), default=-1) + 1


def table_cells(page, clip, grid_clip=None, *, near_top: bool = True) -> tuple[list[dict], tuple | None]:
    """Cells and bbox of the table in ``clip``: the ruled grid when it has a row per text row.

    find_tables' ``lines`` strategy on a booktabs table (horizontal rules only
    between row groups) yields one row per *group*; then the word clustering,
    which keeps one row per baseline, is the better reading.
    """
    cells, bb, _ = read_table(page, clip, grid_clip, near_top=near_top)
    return cells, bb


def is_numeric(text: str) -> bool:
    """A cell that holds a number, an amount, a percentage or a dash (an empty statistic)."""
    t = text.strip()
    return bool(_NUMERIC.match(t)) and (any(ch.isdigit() for ch in t) or t in ("-", "\u2013", "\u2014"))


def read_table(page, clip, grid_clip=None, *, near_top: bool = True) -> tuple[list[dict], tuple | None, bool]:
    """:func:`table_cells` plus whether the cells come from a ruled grid."""
    ruled, rb = ruled_cells(page, grid_clip or clip)
    if rb is not None:
        # the grid must start at the caption (below it) or end at it (above it), else it is another table
        g = grid_clip or clip
        gap = rb[1] - g[1] if near_top else g[3] - rb[3]
        if gap > 40:
            ruled, rb = [], None
    clustered = cluster_cells(page, clip) if clip[3] - clip[1] > 8 else []
    if ruled and _n_rows(ruled) >= 0.8 * _n_rows(clustered):
        return ruled, rb, True
    if not clustered:
        return ruled, rb, bool(ruled)
    bb = (
        min(c["x0"] for c in clustered),
        min(c["y0"] for c in clustered),
        max(c["x1"] for c in clustered),
        max(c["y1"] for c in clustered),
    )
    return clustered, bb, False


def phrases(words: list, clip) -> list[Phrase]:
    """The words inside ``clip`` joined into phrases (a line glued across a gutter splits there)."""
    return _phrases(words, clip)


def rows_of(phrases: list[Phrase]) -> list[list[Phrase]]:
    """Phrases grouped by baseline, top-down."""
    return _rows(phrases)
