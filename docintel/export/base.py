"""What every export writer shares: the document as blocks in reading order, and the writer base.

A *block* is a run of consecutive lines of one page with the same role, text block,
section and object (a paragraph, a caption, a list item), or a section heading (from
``toc_df``), or a registered table whose cells were found (from ``object_registry`` +
``cell_df``, replacing the table's own lines). Writers render blocks; none of them parses,
and none imports the API: they take the :class:`~docintel.schema.document.DocTables`
that ``parse`` returns.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from docintel.schema.document import DocTables
from docintel.schema.tables import LINE_ROLES

#: Page furniture: running heads, footers and page numbers. Markdown and JSONL leave them out;
#: the Docling writer keeps them in Docling's furniture layer.
FURNITURE_ROLES = ("header", "footer", "page_number")
assert set(FURNITURE_ROLES) <= set(LINE_ROLES)

_WS = re.compile(r"\s+")
_NON_WORD = re.compile(r"[\W_]+")


def _norm(text: str) -> str:
    """Letters and digits only, lower-case: '1.' and '1', 'Step 1:Scope' and 'Step 1: Scope.' agree."""
    return _NON_WORD.sub("", str(text or "")).lower()


def _none(v):
    """None for pandas/NumPy missing values, the value otherwise."""
    if v is None or v is pd.NA:
        return None
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


@dataclass
class Block:
    """One unit of the document in reading order; see the module docstring."""

    kind: str  # 'heading' (toc_df), 'table' (with cells), 'table_text', 'heading_text', or the line role
    page: int
    line_start: int
    line_end: int
    text: str
    bbox: tuple[float, float, float, float] | None
    section_id: str | None = None
    object_key: str | None = None
    level: int | None = None  # headings
    number: str | None = None  # headings
    title: str | None = None  # headings
    rows: list[list[str]] = field(default_factory=list)  # tables: the cell grid
    header_rows: int = 0  # tables: leading rows that are header rows
    cell_boxes: list[dict] = field(default_factory=list)  # tables: cell_df rows (row, col, bbox)

    @property
    def furniture(self) -> bool:
        return self.kind in FURNITURE_ROLES


def _line_kind(role) -> str:
    """A block's kind from its lines' role. Lines of a table without cells are 'table_text';
    heading-like lines that are not a section of ``toc_df`` are 'heading_text' (headings come
    from ``toc_df`` only, so every writer shows the same outline)."""
    role = str(_none(role) or "body")
    return {"table": "table_text", "heading": "heading_text"}.get(role, role)


def join_lines(texts: list[str]) -> str:
    """Lines of one paragraph joined by spaces; a line ending in a hyphen joins without one."""
    out = ""
    for t in texts:
        t = t.strip()
        if not t:
            continue
        if not out:
            out = t
        elif out.endswith("-") and len(out) > 1 and out[-2].isalpha():
            out += t
        else:
            out += " " + t
    return out


def _union(boxes: list[tuple]) -> tuple[float, float, float, float] | None:
    boxes = [b for b in boxes if b is not None and all(_none(v) is not None for v in b)]
    if not boxes:
        return None
    return (
        float(min(b[0] for b in boxes)),
        float(min(b[1] for b in boxes)),
        float(max(b[2] for b in boxes)),
        float(max(b[3] for b in boxes)),
    )


def heading_text(number: str | None, title: str) -> str:
    """The heading as printed: '3.2 Attention', or the title alone when unnumbered."""
    title = str(title or "").strip()
    return f"{number} {title}".strip() if number else title


def table_grid(cells: pd.DataFrame) -> tuple[list[list[str]], int]:
    """(rows of cell texts, number of leading header rows) of one table's cell_df rows."""
    if cells.empty:
        return [], 0
    n_rows = int(cells["row"].max()) + 1
    n_cols = int(cells["col"].max()) + 1
    grid = [[""] * n_cols for _ in range(n_rows)]
    header = [True] * n_rows
    seen = [False] * n_rows
    for c in cells.itertuples(index=False):
        r, k = int(c.row), int(c.col)
        grid[r][k] = _WS.sub(" ", str(_none(c.text) or "")).strip()
        seen[r] = True
        header[r] = header[r] and bool(_none(c.is_header))
    rows = [g for g, s in zip(grid, seen, strict=True) if s]
    flags = [h for h, s in zip(header, seen, strict=True) if s]
    n_header = 0
    for h in flags:
        if not h:
            break
        n_header += 1
    return rows, n_header


def _heading_starts(toc: pd.DataFrame) -> dict[tuple[int, int], list[dict]]:
    out: dict[tuple[int, int], list[dict]] = {}
    for t in toc.itertuples(index=False):
        page, line = _none(t.page_start), _none(t.line_start)
        if page is None:
            continue
        key = (int(page), int(line) if line is not None else 1)
        out.setdefault(key, []).append(t._asdict())
    return out


def _heading_block(t: dict, page: int, line: int) -> Block:
    number = _none(t.get("number"))
    title = str(_none(t.get("title")) or "")
    return Block(
        kind="heading",
        page=page,
        line_start=line,
        line_end=line,
        text=heading_text(number, title),
        bbox=None,
        section_id=_none(t.get("toc_id")),
        level=int(_none(t.get("level")) or 1),
        number=number,
        title=title,
    )


def _consume_heading(head: Block, rows: list, i: int) -> tuple[int, str]:
    """Lines ``rows[i:]`` that print the heading: (index after them, rest of the last line).

    A heading line is taken when it holds the heading's words ('1.1' then 'Overview ...',
    'Appendix A: Framework Core'); the heading's text becomes the lines as printed. A
    run-in heading ('Residual Dropout We apply ...') leaves the rest of its line as body text.
    """
    want = _norm(head.text)
    title = _norm(head.title)
    got, j, rest, boxes, printed = "", i, "", [], []
    while j < len(rows) and len(got) < len(want):
        r = rows[j]
        if r.page != head.page or (j > i and r.role not in ("heading", "title")):
            break
        t = _norm(r.text)
        if j == i and not (
            (t and want.startswith(t)) or t.startswith(want[:8]) or (title and title[:8] in t)
        ):
            break  # the line at the toc position is not the heading (a toc row placed at the page top)
        got += t
        boxes.append((r.x0, r.y0, r.x1, r.y1))
        printed.append(str(r.text).strip())
        j += 1
        if len(got) > len(want) and title and title in got and not got.endswith(title):
            # run-in heading: what follows the title on the line is body text
            words = printed[-1].split()
            for n in range(1, len(words) + 1):
                if _norm(" ".join(words[:n])).endswith(title[-12:]):
                    printed[-1], rest = " ".join(words[:n]), " ".join(words[n:])
                    break
            break
    if j > i:
        head.line_end = int(rows[j - 1].line)
        head.bbox = _union(boxes)
        head.text = " ".join(p for p in printed if p) or head.text
    return j, rest


def document_blocks(tables: DocTables, *, furniture: bool = False) -> list[Block]:
    """The document as blocks in reading order (page, then line), headings from ``toc_df``.

    ``furniture=False`` leaves out running heads, footers and page numbers.
    """
    lines = tables.line_df.sort_values(["page", "line"], kind="stable")
    if not furniture:
        lines = lines[~lines["role"].isin(FURNITURE_ROLES)]
    rows = list(lines.itertuples(index=False))
    heads = _heading_starts(tables.toc_df)
    pending = sorted(heads)  # heading positions not yet placed
    cells = tables.cell_df
    table_keys = set(cells["object_key"].dropna()) if not cells.empty else set()
    registry = {r.object_key: r for r in tables.object_registry.itertuples(index=False)}
    done_tables: set[str] = set()
    # line span of each table's own lines (not its caption) on its first page
    spans: dict[str, tuple[int, int, int]] = {}
    for r in rows:
        k = _none(r.object_key)
        if k in table_keys and r.role != "caption":
            p0, a, b = spans.get(k, (int(r.page), int(r.line), int(r.line)))
            if int(r.page) == p0:
                spans[k] = (p0, min(a, int(r.line)), max(b, int(r.line)))
    out: list[Block] = []
    cur: Block | None = None
    cur_sig = None

    def flush() -> None:
        nonlocal cur, cur_sig
        if cur is not None:
            cur.text = join_lines(cur.text.split("\n"))
            out.append(cur)
        cur, cur_sig = None, None

    def table_block(key: str) -> Block:
        reg = registry.get(key)
        tcells = cells[cells["object_key"] == key].sort_values(["row", "col"])
        grid, n_header = table_grid(tcells)
        bbox = _union([(reg.x0, reg.y0, reg.x1, reg.y1)]) if reg is not None else None
        page = int(_none(reg.page) or tcells["page"].min()) if reg is not None else int(tcells["page"].min())
        line_start = int(_none(getattr(reg, "line_start", None)) or 1)
        line_end = int(_none(getattr(reg, "line_end", None)) or line_start)
        if key in spans:
            page, line_start, line_end = spans[key]
        return Block(
            kind="table",
            page=page,
            line_start=line_start,
            line_end=line_end,
            text="\n".join(" | ".join(r) for r in grid),
            bbox=bbox,
            object_key=key,
            rows=grid,
            header_rows=n_header,
            cell_boxes=tcells[["page", "row", "col", "x0", "y0", "x1", "y1", "is_header"]].to_dict("records"),
        )

    i = 0
    while i < len(rows):
        r = rows[i]
        pos = (int(r.page), int(r.line))
        while pending and pending[0] <= pos and i < len(rows):  # headings at or before this line
            hp = pending.pop(0)
            for t in heads[hp]:
                flush()
                # a heading whose own line is gone (furniture, another page) sits before this line
                head = _heading_block(t, hp[0], pos[1] if hp[0] == pos[0] else hp[1])
                j, rest = _consume_heading(head, rows, i)
                out.append(head)
                if j > i:
                    i = j
                    if rest:  # a run-in heading's paragraph goes on with the next lines
                        last = rows[j - 1]
                        sec = _none(last.section_id)
                        cur = Block("body", head.page, head.line_end, head.line_end, rest, head.bbox, sec)
                        cur_sig = (head.page, _none(last.block), "body", sec, _none(last.object_key))
                    if i >= len(rows):
                        break
                    r = rows[i]
                    pos = (int(r.page), int(r.line))
        if i >= len(rows):
            break
        key = _none(r.object_key)
        if key in table_keys and r.role != "caption":
            flush()
            if key not in done_tables:
                out.append(table_block(key))
                done_tables.add(key)
            i += 1
            continue
        sig = (int(r.page), _none(r.block), r.role, _none(r.section_id), key)
        if cur is not None and sig == cur_sig and int(r.line) == cur.line_end + 1:
            cur.text += "\n" + str(r.text)
            cur.line_end = int(r.line)
            cur.bbox = _union([cur.bbox, (r.x0, r.y0, r.x1, r.y1)])
        else:
            flush()
            cur = Block(
                kind=_line_kind(r.role),
                page=int(r.page),
                line_start=int(r.line),
                line_end=int(r.line),
                text=str(r.text),
                bbox=_union([(r.x0, r.y0, r.x1, r.y1)]),
                section_id=_none(r.section_id),
                object_key=key,
            )
            cur_sig = sig
        i += 1
    flush()
    for hp in pending:  # headings after the last line
        out.extend(_heading_block(t, *hp) for t in heads[hp])
    _place_lonely_tables(out, table_keys - done_tables, table_block)
    return out


def _place_lonely_tables(out: list[Block], keys: set[str], make) -> None:
    """Tables whose cells were found but whose lines are all captions: right after the caption."""
    for key in sorted(keys):
        block = make(key)
        at = max((n for n, b in enumerate(out) if b.object_key == key), default=None)
        if at is None:
            at = next(
                (n - 1 for n, b in enumerate(out) if (b.page, b.line_start) > (block.page, block.line_start)),
                len(out) - 1,
            )
        out.insert(at + 1, block)


def section_titles(tables: DocTables) -> dict[str, str]:
    """toc_id -> the heading as printed, for writers that label blocks with their section."""
    return {
        str(t.toc_id): heading_text(_none(t.number), _none(t.title) or "")
        for t in tables.toc_df.itertuples(index=False)
    }


class Writer:
    """Base of the export writers: a name, a file suffix, and ``render(tables) -> str``."""

    name: str = ""
    suffix: str = ""
    #: the optional extra the writer needs, named in the error when it is missing
    extra: str | None = None

    def render(self, tables: DocTables) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def write(self, tables: DocTables, path: str | Path) -> Path:
        """Render and write to ``path`` (UTF-8); returns the path."""
        p = Path(path)
        p.write_text(self.render(tables), encoding="utf-8")
        return p
