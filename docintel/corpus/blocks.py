"""Blocks: the corpus retrieval unit, bounded by the document's own structure.

A block is a run of lines of one section (``line_df.section_id``) on one page, split at a size
cap at a paragraph boundary where one is near. It never crosses a section or a page, so its
page/line span and bbox always highlight in the PDF. One exception keeps blocks from being a
line or two: while a block is under ``MIN_CHARS`` it takes in the next section on the page when
that is its subsection or a sibling under the same parent (a definition's lettered items, the
entries of a glossary, AAL1/AAL2/AAL3); the block then belongs to the enclosing section.
A short block that continues its section (its first line is not the section's first: the tail
of a section carried over from the previous page and cut off by the next heading, or the rest
of a section after a size split) takes in the next section on the page whatever its level:
alone it is a line or two with no heading of its own, which ranks on nothing but its length;
the block then belongs to the section it grew into.
A block's text reads a text grid cell by cell where the line order interleaves its columns
(:func:`reading_order`; the search path's first hop applies the same rule to its passages):
rows where the first column steps down, or below a gap across every column (cells centred in
their rows, one column's baselines between the other's), and in a check-mark matrix found by
neither (a column of marks beside single-line rows) at every first-column line; text running up
a rotated page, and a page of mostly one-character cells, is left in the parser's order.
"""

from __future__ import annotations

from collections import defaultdict

import pandas as pd

from docintel.text import dehyphenate, terms

#: Line roles that are not content: running headers/footers, page numbers, figure internals,
#: contents-page entries (they only echo other pages' headings).
SKIP_ROLES = frozenset({"header", "footer", "page_number", "figure_text", "toc_entry"})
#: Measured on the NIST dev corpus (1000 beat 600 and 1500 for the winning document).
MAX_CHARS = 1000
#: A block this short takes in the following subsection or sibling section (BM25 rewards a
#: two-line block for the title words every block carries; a paragraph is about this long).
MIN_CHARS = 400
#: Bump when the block rules change: re-ingesting then rebuilds every document's blocks.
BLOCKS_VERSION = "9"
_CONTROLS = {c: None for c in range(32) if c not in (9, 10, 13)}

BLOCK_COLUMNS = [
    "block_id",
    "doc_id",
    "page",
    "line_start",
    "line_end",
    "section_id",
    "section_title",
    "text",
    "terms",
    "x0",
    "y0",
    "x1",
    "y1",
]


def empty_blocks() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="object") for c in BLOCK_COLUMNS})


def _sec(row) -> str | None:
    return row.section_id if isinstance(row.section_id, str) else None


def _ancestors(sec: str | None, parents: dict) -> list[str]:
    out = []
    while sec and sec not in out and len(out) < 20:
        out.append(sec)
        sec = parents.get(sec)
    return out


def _enclosing(cur: str | None, new: str | None, parents: dict) -> str | None:
    """The section a block of ``cur`` may grow into ``new`` under: ``cur`` when ``new`` is its
    subsection, their common parent when they are siblings; None when they are unrelated."""
    if not cur or not new:
        return None
    if cur in _ancestors(new, parents):
        return cur
    parent = parents.get(cur)
    return parent if parent and parent == parents.get(new) else None


def _tail(cur: list, started: dict) -> bool:
    """``cur`` (one page's lines, one section so far) continues its section: it does not open it."""
    first = _sec(cur[0])
    return (
        first is not None
        and started.get(first) != (cur[0].page, cur[0].line)
        and all(_sec(r) == first for r in cur)
    )


def _emit(
    out: list[dict], doc_id: str, rows: list, titles: dict, context: str, sec: str | None = None
) -> None:
    if not rows:
        return
    # NUL and other C0 controls are extraction debris (a Postgres text field cannot hold NUL)
    # a text grid's cells read whole (the span below still comes from the parser's order)
    text = dehyphenate([str(r.text) for r in reading_order(rows)]).translate(_CONTROLS).strip()
    if not text:
        return
    sec = sec or _sec(rows[0])
    names = dict.fromkeys(titles.get(x, "") for x in [sec, *(_sec(r) for r in rows)] if x)
    title = (titles.get(sec, "") if sec else "").translate(_CONTROLS)
    index_title = " ".join(n for n in names if n).translate(_CONTROLS)
    out.append(
        {
            "block_id": f"{doc_id}:{int(rows[0].page)}:{int(rows[0].line)}",
            "doc_id": doc_id,
            "page": int(rows[0].page),
            "line_start": int(rows[0].line),
            "line_end": int(rows[-1].line),
            "section_id": sec,
            "section_title": title,
            "text": text,
            # the document's title and the section title are indexed with every block: a passage
            # is read in the context of what it belongs to
            "terms": " ".join(terms(f"{context} {index_title} {text}")),
            "x0": float(min(r.x0 for r in rows)),
            "y0": float(min(r.y0 for r in rows)),
            "x1": float(max(r.x1 for r in rows)),
            "y1": float(max(r.y1 for r in rows)),
        }
    )


def make_blocks(tables, max_chars: int = MAX_CHARS, context: str = "") -> pd.DataFrame:
    """Blocks of one parsed document (DocTables), in reading order; ``context`` (the document's
    title and publication id) is indexed with each."""
    lines = tables.line_df
    if lines.empty:
        return empty_blocks()
    lines = lines[~lines["role"].isin(SKIP_ROLES)].sort_values(["page", "line"])
    toc = tables.toc_df
    titles = dict(zip(toc["toc_id"], toc["title"].astype(str), strict=False))
    parents = {
        k: v for k, v in zip(toc["toc_id"], toc["parent_id"], strict=False) if isinstance(v, str)
    } if "parent_id" in toc else {}  # fmt: skip
    out: list[dict] = []
    cur: list = []
    size = 0
    sec = None  # the section the current block belongs to
    started: dict = {}  # section -> (page, line) of its first line
    for r in lines.itertuples(index=False):
        started.setdefault(_sec(r), (r.page, r.line))
        if cur and (r.page != cur[0].page or _sec(r) != _sec(cur[-1])):
            grow = None
            if r.page == cur[0].page and size < MIN_CHARS:
                grow = _enclosing(sec, _sec(r), parents)
                if grow is None and _tail(cur, started):
                    grow = _sec(r)
            if grow is None:
                _emit(out, tables.doc_id, cur, titles, context, sec)
                cur, size = [], 0
            else:
                sec = grow
        if not cur:
            sec = _sec(r)
        if cur and size + len(str(r.text)) > max_chars:
            # break at the last paragraph (text block) change in the second half, else here
            cut = len(cur)
            for i in range(len(cur) - 1, len(cur) // 2, -1):
                if cur[i].block != cur[i - 1].block:
                    cut = i
                    break
            _emit(out, tables.doc_id, cur[:cut], titles, context, sec)
            cur = cur[cut:]
            size = sum(len(str(x.text)) for x in cur)
        cur.append(r)
        size += len(str(r.text)) + 1
    _emit(out, tables.doc_id, cur, titles, context, sec)
    return pd.DataFrame(out, columns=BLOCK_COLUMNS) if out else empty_blocks()


# -- reading order inside a grid (a text table whose cells the line order interleaves) --------

#: Lines whose top-left x lie this close together start the same column (centred cells vary).
COLUMN_GAP = 15.0
#: A row of the grid starts where its first column steps down more than this many line pitches,
ROW_STEP = 1.3
#: or below a gap across every column wider than the columns' usual gap between lines by this
#: share of a line's height.
ROW_GAP = 0.4
#: Two lines are side by side when their vertical extents overlap by this share of the smaller
#: height (cells centred in their row put one column's baselines between the other's).
SIDE_OVERLAP = 0.25
#: In columns of running text (every column's median line at least PROSE_LINE line heights
#: long, the first column's within PROSE_WIDTH of the others' width) a first-column line opens a row at a step
#: down only with another column's line starting within ALIGNED of a line's height of its top.
PROSE_WIDTH = 0.6
PROSE_LINE = 12.0
PROSE_FILL = 0.85
ALIGNED = 0.5
#: A cell of at most this many characters is a mark ("X", a tick, "Y"/"N", a code, a small
#: count): one line in its row.
MARK = 2
_TICKS = frozenset("\u2713\u2714\u2717\u2718")


def _beside(a, b) -> bool:
    """Two lines side by side: their vertical extents overlap (``SIDE_OVERLAP``) and their
    horizontal extents are disjoint."""
    overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
    height = min(a.y1 - a.y0, b.y1 - b.y0)
    return height > 0 and overlap >= SIDE_OVERLAP * height and (a.x1 <= b.x0 or b.x1 <= a.x0)


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2] if values else 0.0


def _filled(widths: list[float]) -> bool:
    """A column of running text: most of its lines (at least three) fill it, within
    ``1 - PROSE_FILL`` of its widest line (a table's cells are ragged, one or two lines each)."""
    return len(widths) >= 3 and 2 * sum(w >= PROSE_FILL * max(widths) for w in widths) > len(widths)


def _mark(text: str) -> bool:
    """A check-mark cell: at most ``MARK`` characters, a letter, digit or tick among them (a
    two-letter code or a small count reads the same; a bullet is not a cell but the opening of
    the item beside it)."""
    t = text.strip()
    return 0 < len(t) <= MARK and any(ch.isalnum() or ch in _TICKS for ch in t)


def _bands(placed: list, first_col_end: float, marked: bool = False) -> list[int]:
    """The grid row of each (column, line), from the lines' boxes read top to bottom: a row
    starts below a horizontal gap no line of any column crosses, wider than a column's usual
    gap between its lines (``ROW_GAP``), when the first column's (lines starting left of
    ``first_col_end``; a merged line starts in it too) first line before the next such gap is
    on no baseline of another column (the rows of a table whose cells are centred: a column's
    first line below the row's top; in a top-aligned grid a gap between two paragraphs of one
    cell opens no row), or where the first column steps
    down more than ``ROW_STEP`` line pitches with no such gap since its previous line (a
    glossary's terms)."""
    gaps, steps, heights, last = [], [], [], {}
    for k, r in sorted(placed, key=lambda p: (p[0], p[1].y0)):
        if k in last:
            gaps.append(r.y0 - last[k].y1)
            steps.append(r.y0 - last[k].y0)
        last[k] = r
        heights.append(r.y1 - r.y0)
    height, pitch = _median(heights), _median(steps)
    wide = max(0.0, _median(gaps)) + ROW_GAP * height
    lines = sorted((r for _, r in placed), key=lambda r: r.y0)
    cut, bottom = [], None
    for r in lines:
        if bottom is not None and gaps and r.y0 - bottom > wide:
            cut.append((bottom + r.y0) / 2)
        bottom = r.y1 if bottom is None else max(bottom, r.y1)
    firsts = [r.y0 for r in lines if r.x0 < first_col_end]
    others = [r.y0 for r in lines if r.x0 >= first_col_end]
    # columns of running text, not a table: every column's lines long (a table's label,
    # subcategory or number column is narrow) and the first about as wide as the rest
    width = defaultdict(list)
    for k, r in placed:
        width[k].append(r.x1 - r.x0)
    w0 = _median([r.x1 - r.x0 for r in lines if r.x0 < first_col_end])
    w1 = _median([r.x1 - r.x0 for r in lines if r.x0 >= first_col_end])
    prose = (
        len(width) > 1
        and all(_median(w) >= PROSE_LINE * height and _filled(w) for w in width.values())
        and PROSE_WIDTH * w1 <= w0 <= w1 / PROSE_WIDTH
    )
    ends = [*cut[1:], float("inf")][: len(cut)]
    starts = []
    for y, end in zip(cut, ends, strict=True):
        first = next((f for f in firsts if y <= f < end), None)
        # a first-column line on a baseline of another column: the row is top-aligned, so its
        # first column marks it (the gap was between two paragraphs of one cell)
        # (two columns of running text have no rows: their paragraph gaps meet by chance)
        if not prose and first is not None and not any(abs(first - o) <= 0.25 * height for o in others):
            starts.append(y)
    for above, y in zip(firsts, firsts[1:], strict=False):
        # a step opens a row only where another column starts beside it (a glossary's term on
        # its definition's first line): in two columns of running text a paragraph break steps
        # down the first column while the other column runs on, and a row there would read
        # the second column's paragraphs into the middle of the first's
        aligned = not prose or any(abs(y - o) <= ALIGNED * height for o in others)
        if pitch > 0 and y - above > ROW_STEP * pitch and aligned and not any(above < s <= y for s in starts):
            starts.append(y - 0.3 * height)
    if not starts and marked:
        # a check-mark matrix (``marked``: a column after the first holds marks only) with no
        # row marked by a gap or a step: its rows are single lines at the first column's pitch,
        # each first-column line a row from midway to the line above (a two-line name centred
        # on its id starts above it); one band would read every label, then every mark
        starts = [(a + b) / 2 for a, b in zip(firsts, firsts[1:], strict=False)]
    return [sum(r.y0 >= y for y in starts) for _, r in placed]


def reading_order(rows: list) -> list:
    """``rows`` (lines of one page with text and x0/y0/x1/y1, in the parser's order) with the lines of
    a grid read cell by cell: row band by row band, each band column by column, each column
    top to bottom. Applied only where the given order interleaves the columns (two or more
    consecutive lines side by side); otherwise, and off the grid, the order is unchanged.
    A line that runs across the gutter (two cells merged by the extraction) is read with the
    last column it reaches, where its tail continues."""
    n = len(rows)
    if n < 4 or sum(_beside(rows[i], rows[i + 1]) for i in range(n - 1)) < 2:
        return rows
    if 2 * sum(r.y1 - r.y0 > r.x1 - r.x0 for r in rows) > n:
        # text running up the page (a rotated table): its boxes' x and y trade places. A page
        # of mostly one-character cells (a check-mark matrix) is taller than wide line by line
        # too and is also left in the parser's order, which reads such a matrix row by row:
        # reading it as a grid (session 15, measured) tore the NIST SCRM and resiliency
        # matrices' ids from their names, their header rows apart
        return rows
    side = [i for i in range(n) if any(_beside(rows[i], rows[j]) for j in range(n) if j != i)]
    lo, hi = side[0], side[-1]
    grid = rows[lo : hi + 1]
    starts: list[list] = []
    for r in sorted((rows[i] for i in side), key=lambda r: r.x0):
        if starts and r.x0 - starts[-1][-1].x0 <= COLUMN_GAP:
            starts[-1].append(r)
        else:
            starts.append([r])
    kept = [c for c in starts if len(c) >= 2] or starts
    cols = [c[0].x0 for c in kept]
    # a check-mark matrix: a column after the first whose every line is a mark (read with the
    # column that reaches it, as any narrow cell, but it tells the rows are single lines)
    marked = any(all(_mark(str(r.text)) for r in c) for c in kept[1:])

    def column(r) -> int:
        reach = [k for k, x in enumerate(cols) if x <= r.x1 - COLUMN_GAP]
        return reach[-1] if reach else 0

    placed = [(column(r), r) for r in grid]
    bands = _bands(placed, (cols[1] if len(cols) > 1 else float("inf")) - COLUMN_GAP, marked)
    order = sorted(range(len(grid)), key=lambda i: (bands[i], placed[i][0], grid[i].y0, i))
    return [*rows[:lo], *(grid[i] for i in order), *rows[hi + 1 :]]
