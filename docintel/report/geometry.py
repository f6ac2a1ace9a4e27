"""Geometry for the report: line boxes from ``line_df``, passage blocks, label placement.

Rectangles are ``(x0, y0, x1, y1)`` tuples in PDF points, top-left origin, in the
unrotated page space PyMuPDF extracts text in (``line_df``'s coordinates).
"""

from __future__ import annotations

from docintel.schema.document import DocTables

Rect = tuple[float, float, float, float]


def line_rects(
    tables: DocTables, page: int, line_start: int, line_end: int, *, whole_rows: bool = False
) -> list[Rect]:
    """The bboxes of lines ``line_start..line_end`` on ``page``, in reading order.

    With ``whole_rows``, a cited table line brings the rest of its row: ``line_df`` holds a
    table cell per line, so "row (E)" cited by its label cell would otherwise light up only
    "(E)" and not the numbers beside it. A row is the lines of the same object whose
    vertical centre lies within the cited line's height."""
    df = tables.line_df
    on_page = df[df["page"] == page]
    sel = on_page[(on_page["line"] >= line_start) & (on_page["line"] <= line_end)]
    if whole_rows and "object_key" in df and "role" in df:
        cells = sel[(sel["role"] == "table") & sel["object_key"].notna()]
        if len(cells):
            centre = (on_page["y0"] + on_page["y1"]) / 2
            extra = on_page.index.isin(sel.index)
            for r in cells.itertuples():
                extra |= (on_page["object_key"] == r.object_key) & centre.between(r.y0, r.y1)
            sel = on_page[extra]
    sel = sel.sort_values("line")
    out: list[Rect] = []
    for r in sel.itertuples():
        box = (float(r.x0), float(r.y0), float(r.x1), float(r.y1))
        if box[2] > box[0] and box[3] > box[1]:
            out.append(box)
    return out


def merge_rects(rects: list[Rect], gap: float = 2.5) -> list[Rect]:
    """Merge line boxes (in reading order) into blocks for outlining a passage.

    A line joins the current block when it starts below the block's top and within
    ``gap`` line-heights of its bottom; a jump back up (the next column) or over a
    figure starts a new block, so a passage spanning two columns is two boxes, not
    one box over the whole page."""
    blocks: list[list[float]] = []
    prev_top = 0.0
    for x0, y0, x1, y1 in rects:
        if blocks:
            b = blocks[-1]
            height = max(y1 - y0, 1.0)
            if y0 >= prev_top - 0.5 * height and y0 - b[3] <= gap * height:
                b[:] = [min(b[0], x0), min(b[1], y0), max(b[2], x1), max(b[3], y1)]
                prev_top = y0
                continue
        blocks.append([x0, y0, x1, y1])
        prev_top = y0
    return [tuple(b) for b in blocks]  # type: ignore[misc]


def place_label(box: Rect, width: float, height: float, taken: list[Rect], page_width: float) -> Rect:
    """Where a short label goes beside a box: in the left margin if there is room, else to the
    right, stepping outwards past labels already placed (``taken``, updated) so that two
    citations of the same line stay readable."""
    x0, y0, x1, _ = box
    step = width + 2
    xs = [x0 - step * (k + 1) for k in range(6) if x0 - step * (k + 1) >= 1]
    xs += [x1 + 2 + step * k for k in range(6) if x1 + 2 + step * k + width <= page_width - 1]
    candidates = [(x, y0, x + width, y0 + height) for x in xs] or [
        (max(x0 - step, 0.0), y0, x0 - 2, y0 + height)
    ]

    def free(r: Rect) -> bool:
        # A point of overlap is allowed: labels of consecutive lines may touch.
        return all(
            min(r[2], t[2]) <= max(r[0], t[0]) + 1 or min(r[3], t[3]) <= max(r[1], t[1]) + 1 for t in taken
        )

    chosen = next((r for r in candidates if free(r)), candidates[0])
    taken.append(chosen)
    return chosen
