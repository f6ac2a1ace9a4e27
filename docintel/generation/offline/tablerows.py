"""Present a pulled-in table passage (caption, header, selected rows) as 'column: value' pairs.

The resolver hands generation a table passage that already holds the caption, a header line
and the selected row(s) (e.g. row (E)). When the header's cells and a row's cells line up,
the row is shown as pairs; otherwise the row is shown verbatim with the header beside it,
because a guessed alignment would put numbers under the wrong column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docintel.generation.text import join_lines, nfkc
from docintel.schema.evidence import EvidenceLine, Passage

_CAPTION = re.compile(r"^\s*(?:Table|TABLE)\s+[A-Z]?\d+(?:[.-]\d+)*\s*[:.]")
_ROW_LABEL = re.compile(r"^\s*\(([A-Za-z0-9]{1,3})\)")
_SELECTOR = re.compile(
    r"\b(?:rows?|lines?)\s+((?:\(?[A-Za-z0-9]{1,3}\)?(?:\s*(?:,|and|through|to)\s*)?)+)", re.I
)
_LAST = re.compile(r"\b(?:bottom|last)\s+(?:line|row)", re.I)
_FIRST = re.compile(r"\b(?:top|first)\s+(?:line|row)", re.I)


@dataclass
class TableView:
    text: str  # what goes into the answer
    row_lines: list[EvidenceLine]
    header_line: EvidenceLine | None
    caption_line: EvidenceLine | None
    aligned: bool


def is_table_passage(p: Passage) -> bool:
    """A pulled-in passage is a table when its lines say so (role 'table') or its note or
    reference names a table row selection."""
    if any(ln.role == "table" for ln in p.lines):
        return True
    hint = f"{p.note} {p.reference_text or ''}".lower()
    return "table" in hint and any(w in hint for w in ("row", "line", "selection", "column"))


def _selectors(p: Passage) -> tuple[list[str], str]:
    """Row labels named by the reference ('row (E)' -> ['E']) and a positional hint."""
    hint = f"{p.reference_text or ''} {p.note}"
    labels: list[str] = []
    for m in _SELECTOR.finditer(hint):
        labels += re.findall(r"\(?([A-Za-z0-9]{1,3})\)?", m.group(1))
    labels = [x for x in labels if x.lower() not in ("and", "to", "thr", "through")]
    pos = "last" if _LAST.search(hint) else "first" if _FIRST.search(hint) else ""
    return labels, pos


def split_cells(text: str) -> list[str]:
    """Cells of a table line: on ' | ' or tabs or runs of 2+ spaces, else on single spaces."""
    raw = nfkc(text)
    if " | " in raw:
        # 'cell | cell | ...' rows rendered from cell_df keep their empty cells (the first
        # header cell is often empty), so the values stay under their column names
        return [c.strip() for c in raw.split(" | ")]
    t = raw.strip().strip("|").strip()
    for sep in (r"\s*\|\s*", r"\t+", r"\s{2,}"):
        parts = [c for c in re.split(sep, t) if c.strip()]
        if len(parts) > 1:
            return [c.strip() for c in parts]
    return t.split()


def _row_extent(lines: list[EvidenceLine], i: int) -> int:
    """Index of the row's last line: one line when it already holds several cells, else the
    following short lines (one cell per line, as PDF extraction often yields) up to the next
    row label."""
    if len(split_cells(lines[i].text)) > 2:
        return i
    j = i
    while j + 1 < len(lines) and j - i < 16:
        nxt = nfkc(lines[j + 1].text).strip()
        if len(nxt) > 45 or _ROW_LABEL.match(nxt) or _CAPTION.match(nxt):
            break
        j += 1
    return j


def view_table(p: Passage) -> TableView | None:
    """Caption, header and the selected row(s) of a table passage, rendered for the answer;
    None when no row is selected and the passage is too long to show whole."""
    lines = [ln for ln in p.lines if nfkc(ln.text).strip()]
    captions = [ln for ln in lines if ln.role == "caption" or _CAPTION.match(nfkc(ln.text))]
    caption = captions[0] if captions else None
    body = [ln for ln in lines if ln not in captions]
    labels, pos = _selectors(p)
    rows: list[tuple[int, int]] = []
    for i, ln in enumerate(body):
        m = _ROW_LABEL.match(nfkc(ln.text))
        if m and m.group(1) in labels:
            rows.append((i, _row_extent(body, i)))
    if not rows and body:
        if pos == "last":
            rows = [(len(body) - 1, len(body) - 1)]
        elif pos == "first" and len(body) > 1:
            rows = [(1, 1)]
        elif len(body) <= 12:
            rows = [(1 if len(body) > 1 else 0, len(body) - 1)]
        else:
            return None
    header = body[0] if body and rows and rows[0][0] > 0 else None
    head_cells = split_cells(header.text) if header else []
    parts: list[str] = []
    aligned = False
    row_lines: list[EvidenceLine] = []
    for a, b in rows:
        seg = body[a : b + 1]
        row_lines += seg
        cells = split_cells(seg[0].text) if a == b else [nfkc(x.text).strip() for x in seg]
        if head_cells and len(cells) == len(head_cells):
            pairs = [(h, c) for h, c in zip(head_cells, cells, strict=True) if c]
            parts.append(", ".join(f"{h}: {c}" if h else c for h, c in pairs))
            aligned = True
        elif head_cells and len(cells) == len(head_cells) + 1:
            pairs = ", ".join(f"{h}: {c}" for h, c in zip(head_cells, cells[1:], strict=True))
            parts.append(f"{cells[0]}: {pairs}")
            aligned = True
        else:
            parts.append(join_lines(x.text for x in seg))
    text = "; ".join(parts)
    if header is not None and not aligned:
        text += f" (columns: {join_lines([header.text])})"
    return TableView(text, row_lines, header, caption, aligned)


#: Table lines above a caption a window seeded on it may reach back over, at most.
TABLE_ROWS = 40
_TABLE_ROLES = frozenset({"table"})


#: Words a full line of prose holds: a table line of fewer words (a one-cell line "22.85") counts
#: as that share of a line against the window's line budget.
LINE_WORDS = 10


def line_cost(text: str) -> float:
    """What a line spends of a window's line budget: one line of prose, a share for a short cell."""
    return min(1.0, max(1, len(text.split())) / LINE_WORDS)


def rows_above_caption(
    rows: list, seed: int, start: int, end: int | None = None, budget: float | None = None
) -> int:
    """A window seeded on a caption that sits under its table's rows ("Table 3. Error rates ..."
    below the rows, the papers' style) starts at the first of those rows the question's words or
    numbers hit ("ResNet-34 ... ResNet-152"), not the scorer's ``BACK`` lines up at whichever row
    that is: the rows the question compares are the answer. ``rows`` are the scorer's
    ``ScoredLine`` list of one passage; the table runs back to the previous caption, heading or
    body line, at most :data:`TABLE_ROWS` lines. Rows that open under a caption of their own,
    itself under prose (the caption-above style of most standards), are that caption's table:
    the caption under them heads the next table and does not reach back. The reach-back stays
    within ``budget`` (the window's remaining line budget; ``end`` is its last index) counted by
    :func:`line_cost`: ResNet's Table 3 rows are 21 one-cell lines, a few lines' worth of words;
    when the budget cannot reach the hit row, the window does not reach back at all. Returns the window's new first index."""
    if rows[seed].ln.role != "caption" or seed == 0 or rows[seed - 1].ln.role not in _TABLE_ROLES:
        return start
    first = seed - 1
    while first > 0 and rows[first - 1].ln.role in _TABLE_ROLES:
        first -= 1
    if first > 0 and rows[first - 1].ln.role == "caption":  # the rows have a caption above them
        top = first - 1
        while top > 0 and rows[top - 1].ln.role == "caption":
            top -= 1
        if top == 0 or rows[top - 1].ln.role not in _TABLE_ROLES:  # it opens them: caption above
            return start
    first = max(first, seed - TABLE_ROWS + 1)
    hit = next((i for i in range(first, seed) if rows[i].hits), None)
    if hit is None or hit >= start:
        return start
    if budget is None or end is None:
        return hit
    spent = sum(line_cost(rows[k].ln.text) for k in range(start, end + 1))
    reach = sum(line_cost(rows[k].ln.text) for k in range(hit, start))
    # all or nothing: a reach-back stopped short of the hit row would spend the window on rows
    # the question did not hit
    return hit if spent + reach <= budget else start


def rows_below_caption(rows: list, start: int, end: int, budget: float) -> int:
    """A window that ends on a caption whose table's rows follow it (the caption-above style of
    most standards and papers: "Table 1: Maximum path lengths ... for different layer types."
    then "Layer Type | ... | Maximum Path Length", "Self-Attention | ... | O(1)") reads on through
    the rows down to the last one the question's words or numbers hit: the caption names the
    table, a row holds the value asked for. A caption under rows (the papers' style,
    :func:`rows_above_caption`) is not read on: the rows after it are the next table's. All or
    nothing within ``budget`` (the window's remaining line budget, counted by :func:`line_cost`),
    at most :data:`TABLE_ROWS` rows; no hit row past the header, no read-on. ``rows`` are one
    passage's ``ScoredLine`` list; returns the window's new last index."""
    if rows[end].ln.role != "caption" or end + 1 >= len(rows) or rows[end + 1].ln.role not in _TABLE_ROLES:
        return end
    top = end
    while top > 0 and rows[top - 1].ln.role == "caption":
        top -= 1
    if top > 0 and rows[top - 1].ln.role in _TABLE_ROLES:
        return end  # rows above the caption are its table (caption below): the rows after it are the next table's
    last = end + 1
    while last + 1 < len(rows) and last + 1 - end <= TABLE_ROWS and rows[last + 1].ln.role in _TABLE_ROLES:
        last += 1
    hit = next((i for i in range(last, end + 1, -1) if rows[i].hits), None)  # past the header row
    if hit is None:
        return end
    spent = sum(line_cost(rows[k].ln.text) for k in range(start, end + 1))
    reach = sum(line_cost(rows[k].ln.text) for k in range(end + 1, hit + 1))
    return hit if spent + reach <= budget else end
