"""Tables without a numbered caption: statistics, schedules, rate tables, ruled grids.

The fast line pass (``lines._mark_tables``) gives role ``table`` to regions of 3+ rows with
3+ separate cells. Regions that no captioned table claimed are read here with the same cell
reader as captioned tables (``tables_cells.table_cells``: the ruled grid, else word
clustering into rows and columns) and kept only when the cells look like a table, not like
prose set in columns, an author list or a form:

- at least ``MIN_ROWS`` rows and 2 columns, and at most ``MAX_COLS`` columns;
- short cells (``MAX_WORDS_PER_CELL`` words on average): prose columns have long lines;
- most of the grid filled (``MIN_FILL``): misaligned text leaves holes;
- numbers in the body (``MIN_NUMERIC`` of the filled cells, not counting a column that only
  counts upwards: printed line numbers, item numbers), unless rules draw the grid;
- no dot leaders (a contents page set in columns);
- no form fields (PDF widgets) in the region: a form's boxes are not a table.

Each kept table is a registry row ``table:u<n>`` (no label, ``source`` ``table_detection``)
with its cells in ``cell_df``; a short title line set just above it (bold, or in capitals)
becomes its caption. Lines inside get role ``table`` and the table's ``object_key``.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from docintel.parsing import tables_cells

#: Rows a table needs (header included). Set by hand: 2-row "tables" are mostly label/value pairs.
MIN_ROWS = 3
#: More columns than this is clustering noise (the widest statistics table seen has 26).
MAX_COLS = 40
#: Average words per filled cell above this is prose in columns. Set by hand on the robust corpus.
MAX_WORDS_PER_CELL = 6.0
#: Share of the grid's cells that must hold text.
MIN_FILL = 0.45
#: Share of filled body cells that must be numeric when no rules draw the grid.
MIN_NUMERIC = 0.3
#: Fewer drawings than this on a page cannot make a ruled grid (a 2x2 grid needs 6 rules).
RULED_MIN_DRAWINGS = 4
#: A caption-like title sits at most this many line heights above the table.
TITLE_GAP_LINES = 2.5


#: The attribute of a pymupdf Document holding its pages' memos (page index -> dict).
_DOC_MEMO = "_docintel_page_memo"


def page_memo(page) -> dict:
    """The memo dict shared by every :class:`CachedPage` of one page of one open document.

    The text layer and drawings of a page do not change while a document is parsed, so the
    caption reorder, the captioned-table and figure readers and the uncaptioned-table pass
    read them once between them (they each wrap ``doc[n]`` anew). A page without a parent
    document (a test double) gets a memo of its own.
    """
    doc, number = getattr(page, "parent", None), getattr(page, "number", None)
    store = getattr(doc, "__dict__", None) if number is not None else None
    if store is None:
        return {}
    return store.setdefault(_DOC_MEMO, {}).setdefault(number, {})


class CachedPage:
    """The page methods the cell readers call, each computed once per page (and per document)."""

    def __init__(self, page) -> None:
        self._page = page
        self.rect = page.rect
        self._memo: dict = page_memo(page)

    def get_drawings(self):
        if "d" not in self._memo:
            self._memo["d"] = self._page.get_drawings()
        return self._memo["d"]

    def get_cdrawings(self):
        """The drawings as plain tuples (no Rect / Point objects): what the rule readers need."""
        if "cd" not in self._memo:
            self._memo["cd"] = self._page.get_cdrawings()
        return self._memo["cd"]

    def get_image_info(self):
        """``page.get_image_info()`` (no hashes, no xrefs), read once."""
        if "img" not in self._memo:
            self._memo["img"] = self._page.get_image_info()
        return self._memo["img"]

    def get_text(self, kind: str = "text", **kw):
        if kw:
            return self._page.get_text(kind, **kw)
        if kind not in self._memo:
            self._memo[kind] = self._page.get_text(kind)
        return self._memo[kind]


def _regions(pl: pd.DataFrame) -> list[tuple[tuple[float, float, float, float], list[str], int]]:
    """(box, line texts, rows) of the page's unclaimed ``table`` lines, split where a vertical gap opens."""
    tl = pl[(pl["role"] == "table").to_numpy() & pl["object_key"].isna().to_numpy()]
    return _regions_of(list(zip(tl.x0, tl.y0, tl.x1, tl.y1, tl.text, strict=True)))


def _regions_of(boxes: list[tuple]) -> list[tuple[tuple[float, float, float, float], list[str], int]]:
    """:func:`_regions` from the unclaimed table lines' (x0, y0, x1, y1, text), in page order."""
    out: list[list] = []
    for x0, y0, x1, y1, t in sorted(boxes, key=lambda b: b[1]):
        h = max(y1 - y0, 1.0)
        if out and y0 - out[-1][0][3] <= 2.5 * h:
            box, texts, last = out[-1][0], out[-1][1], out[-1][3]
            box[0], box[1], box[2], box[3] = (
                min(box[0], x0),
                min(box[1], y0),
                max(box[2], x1),
                max(box[3], y1),
            )
            texts.append(str(t))
            if y0 > last + 0.5 * h:  # a new baseline
                out[-1][2] += 1
                out[-1][3] = y0
        else:
            out.append([[x0, y0, x1, y1], [str(t)], 1, y0])
    return [(tuple(b), texts, rows) for b, texts, rows, _ in out]


def _worth_reading(texts: list[str], rows: int, drawings: int) -> bool:
    """Cheap checks on the region's lines before its cells are read (most regions fail them)."""
    if rows < MIN_ROWS or not texts:
        return False
    if sum(len(t.split()) for t in texts) / len(texts) > MAX_WORDS_PER_CELL:
        return False  # prose in columns: a cell holds at least the words of its lines
    numeric = sum(1 for t in texts if tables_cells.is_numeric(t))
    # without rules on the page the cells can only pass by their numbers
    return drawings >= RULED_MIN_DRAWINGS or numeric >= 0.5 * MIN_NUMERIC * len(texts)


def looks_like_table(cells: list[dict], *, ruled: bool) -> bool:
    """The checks of the module doc on one candidate's cells."""
    if not cells:
        return False
    n_rows = max(c["row"] for c in cells) + 1
    n_cols = max(c["col"] for c in cells) + 1
    if n_rows < MIN_ROWS or not 2 <= n_cols <= MAX_COLS:
        return False
    filled = [c for c in cells if str(c["text"]).strip()]
    if len(filled) < MIN_FILL * n_rows * n_cols:
        return False
    words = sum(len(str(c["text"]).split()) for c in filled) / len(filled)
    if words > MAX_WORDS_PER_CELL:
        return False
    if sum(1 for c in filled if _LEADER.match(str(c["text"]))) > 0.2 * len(filled):
        return False  # dot leaders: a contents page set in columns
    body = [c for c in filled if not c["is_header"]]
    counters = _counter_columns(body)
    numeric = sum(1 for c in body if c["col"] not in counters and tables_cells.is_numeric(str(c["text"])))
    return ruled or (bool(body) and numeric >= MIN_NUMERIC * len(body))


_LEADER = re.compile(r"^[.\u2026\s]+$")


def _counter_columns(body: list[dict]) -> set[int]:
    """Columns whose numbers only count upwards (printed line numbers, item numbers): no statistic."""
    by_col: dict[int, list[str]] = {}
    for c in sorted(body, key=lambda c: c["row"]):
        by_col.setdefault(c["col"], []).append(str(c["text"]).strip())
    out = set()
    for col, texts in by_col.items():
        vals = [int(t) for t in texts if t.isdigit()]  # a header word above the numbers is allowed
        if (
            len(vals) >= 3
            and len(vals) >= 0.8 * len(texts)
            and all(b > a for a, b in zip(vals, vals[1:], strict=False))
        ):
            out.add(col)
    return out


_YEAR = re.compile(r"^(?:FY\s?)?(1[89]|20)[0-9]{2}(?:[-/][0-9]{2,4})?$")


def mark_header_row(cells: list[dict]) -> None:
    """Row 0 is the header when the reader found none and it labels the numeric columns.

    Without rules the reader takes the rows before the first numeric row as the header, so
    "State | 2019 | 2020" (years over the columns) reads as data. Row 0 heads the table when,
    in every column that is numeric down the body, it holds a word or a year.
    """
    if not cells or any(c["is_header"] for c in cells):
        return
    rows: dict[int, dict[int, str]] = {}
    for c in cells:
        rows.setdefault(c["row"], {})[c["col"]] = str(c["text"]).strip()
    body = [r for k, r in rows.items() if k > 0]
    if len(body) < 2:
        return
    numeric_cols = [
        col
        for col in rows.get(0, {})
        if sum(tables_cells.is_numeric(r.get(col, "")) for r in body) >= 0.6 * len(body)
    ]
    head = rows.get(0, {})
    labels = [head.get(col, "") for col in numeric_cols]
    if (
        numeric_cols
        and any(labels)
        and all(not t or _YEAR.match(t) or not tables_cells.is_numeric(t) for t in labels)
    ):
        for c in cells:
            if c["row"] == 0:
                c["is_header"] = True


def _widget_boxes(page) -> list[tuple]:
    try:
        return [tuple(w.rect) for w in page.widgets()]
    except Exception:  # a broken AcroForm is no reason to lose the table pass
        return []


def _overlaps(a: tuple, b: tuple) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


#: Table rows this close to a captioned table or figure belong to it.
CAPTIONED_GAP_LINES = 2.0


def _beside(box: tuple, boxes: list[tuple]) -> bool:
    h = CAPTIONED_GAP_LINES * 12.0  # points: two lines of table text
    grown = (box[0], box[1] - h, box[2], box[3] + h)
    return any(_overlaps(grown, b) for b in boxes)


def _title_above(pl: pd.DataFrame, bb: tuple):
    """A short bold or capitalised line just above the table (its unnumbered caption), else None."""
    ok = (
        (pl.y1.to_numpy() <= bb[1] + 1)
        & (pl.y1.to_numpy() >= bb[1] - 60)
        & (pl.x1.to_numpy() > bb[0])
        & (pl.x0.to_numpy() < bb[2])
        & pl["object_key"].isna().to_numpy()
        & ~pl["role"].isin(["header", "footer", "page_number", "table"]).to_numpy()
    )
    if not ok.any():
        return None
    above = pl[ok]
    r = above.loc[above.y1.idxmax()]
    text = str(r.text).strip()
    h = max(r.y1 - r.y0, 1.0)
    letters = [ch for ch in text if ch.isalpha()]
    capitals = bool(letters) and sum(ch.isupper() for ch in letters) >= 0.8 * len(letters)
    styled = bool(r.bold) or capitals or r.role == "heading"
    if bb[1] - r.y1 > TITLE_GAP_LINES * h or not styled or len(text.split()) > 15 or text.endswith("."):
        return None
    return r


def _claimed_boxes(registry: list[dict]) -> dict[int, list[tuple]]:
    out: dict[int, list[tuple]] = {}
    for r in registry:
        if r.get("object_type") in ("table", "figure") and r.get("x0") is not None:
            out.setdefault(int(r["page"]), []).append((r["x0"], r["y0"], r["x1"], r["y1"]))
    return out


def uncaptioned_tables(
    doc,
    line_df: pd.DataFrame,
    seen: set[str],
    doc_id: str,
    drawings: dict | None = None,
    registry: list[dict] | None = None,
) -> tuple[list[dict], list[dict]]:
    """Registry rows and cells of the tables found without a caption (see module doc).

    ``line_df`` is updated in place (role and object_key of the table's lines); ``seen``
    gets the new keys. ``drawings``: page -> number of vector drawings (page_df.n_drawings).
    ``registry``: the captioned objects so far; rows left over beside a captioned table or
    figure (within ``CAPTIONED_GAP_LINES`` line heights) are its own, not another table.
    """
    claimed = _claimed_boxes(registry or [])
    reg: list[dict] = []
    cells: list[dict] = []
    free = np.flatnonzero((line_df["role"] == "table").to_numpy() & line_df["object_key"].isna().to_numpy())
    # the unclaimed table lines' boxes and texts as Python values once; a page's frame and pymupdf
    # page only once one of its regions is worth reading (a table found marks only its own page)
    cols = [line_df[c].to_numpy()[free].tolist() for c in ("x0", "y0", "x1", "y1")]
    boxes = list(zip(*cols, line_df["text"].iloc[free].tolist(), strict=True))
    pages_of = line_df["page"].to_numpy()[free].tolist()
    on_page: dict = {}
    for b, p in zip(boxes, pages_of, strict=True):
        on_page.setdefault(p, []).append(b)
    by_page = line_df.groupby("page").indices
    n = 0
    for page_no in sorted(on_page):
        pos = by_page[page_no]
        pl = page = None
        widgets = None
        n_draw = int((drawings or {}).get(page_no, RULED_MIN_DRAWINGS) or 0)
        for box, texts, rows in _regions_of(on_page[page_no]):
            if not _worth_reading(texts, rows, n_draw) or _beside(box, claimed.get(int(page_no), [])):
                continue
            if page is None:
                page = CachedPage(doc[int(page_no) - 1])
            clip = (box[0] - 2, box[1] - 2, box[2] + 2, box[3] + 2)
            tc, tb, ruled = tables_cells.read_table(page, clip, near_top=True)
            if not looks_like_table(tc, ruled=ruled):
                continue
            mark_header_row(tc)
            if widgets is None:
                widgets = _widget_boxes(page._page)
            bb = (min(clip[0], tb[0]), min(clip[1], tb[1]), max(clip[2], tb[2]), max(clip[3], tb[3]))
            if any(_overlaps(bb, w) for w in widgets):
                continue
            if pl is None:  # the page's lines only once a table is read on it
                pl = line_df.iloc[pos]
            inside = (
                (pl.y0.to_numpy() >= bb[1] - 1)
                & (pl.y1.to_numpy() <= bb[3] + 1)
                & (pl.x0.to_numpy() >= bb[0] - 1)
                & (pl.x1.to_numpy() <= bb[2] + 1)
                & pl["object_key"].isna().to_numpy()
                & ~pl["role"].isin(["header", "footer", "page_number", "title"]).to_numpy()
            )
            if not inside.any():
                continue
            while f"table:u{n + 1}" in seen:
                n += 1
            n += 1
            key = f"table:u{n}"
            seen.add(key)
            idx = pl.index[inside]
            line_df.loc[idx, "role"] = "table"
            line_df.loc[idx, "object_key"] = key
            pl = line_df.iloc[pos]
            mine = pl.loc[idx]
            title = _title_above(pl, bb)
            first = title if title is not None else mine.loc[mine.line.idxmin()]
            reg.append(
                {
                    "object_key": key,
                    "object_type": "table",
                    "object_id": f"u{n}",
                    "label": None,
                    "caption": None if title is None else str(title.text).strip(),
                    "page": int(page_no),
                    "line_start": int(first.line),
                    "line_end": int(mine.line.max()),
                    "page_end": int(page_no),
                    "x0": bb[0],
                    "y0": bb[1] if title is None else min(bb[1], float(title.y0)),
                    "x1": bb[2],
                    "y1": bb[3],
                    "n_rows": max(c["row"] for c in tc) + 1,
                    "n_cols": max(c["col"] for c in tc) + 1,
                    "source": "table_detection",
                }
            )
            cells += [{**c, "doc_id": doc_id, "object_key": key, "page": int(page_no)} for c in tc]
    return reg, cells


#: A table's first or last row lies within this many caption line heights of its caption.
CAPTION_GAP_LINES = 2.0


def caption_side(pl: pd.DataFrame, cap: tuple, size: float) -> str | None:
    """'above' or 'below' when table rows (role ``table``, unclaimed) adjoin the caption on one side only.

    Read before the caption's table is cut out: papers put table captions above or below
    the table, and the side the aligned rows are on says which.
    """
    gap = CAPTION_GAP_LINES * max(size, 6.0)
    free = (pl["role"] == "table").to_numpy() & pl["object_key"].isna().to_numpy()
    over = (pl.x1.to_numpy() > cap[0]) & (pl.x0.to_numpy() < cap[2])
    y0, y1 = pl.y0.to_numpy(), pl.y1.to_numpy()
    below = bool((free & over & (y0 >= cap[3] - 1) & (y0 <= cap[3] + gap)).any())
    above = bool((free & over & (y1 <= cap[1] + 1) & (y1 >= cap[1] - gap)).any())
    if above == below:
        return None
    return "above" if above else "below"
