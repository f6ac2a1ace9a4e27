"""DoclingDocument -> toc_df, object_registry and cell_df rows (after the lines are mapped).

Docling's layout model labels headings but (in PDF exports) gives every one
level 1, so levels come from the printed numbering: ``5.1`` is level 2, a
``(1)`` under an unnumbered heading is one level below it. Tables, captioned
pictures and numbered formulas become registry rows; TableFormer's cells become
cell_df rows.
"""

from __future__ import annotations

import re

from docintel.parsing.docling_map import Entry, top_left_box

_FURNITURE = ("header", "footer", "page_number")
_DOTTED = re.compile(
    r"^(?:(?i:chapter|section|part|appendix|annex)\s+)?"
    r"((?:\d{1,3}|[A-Z](?=[.\s]*\d|\.))(?:\.\d{1,3})*)\.?\s+(\S.*)$"
)
_PREFIXED = re.compile(r"^(?i:appendix|annex)\s+([A-Z])\b[.:]?\s*(.*)$")
_PAREN = re.compile(r"^\(([0-9]{1,3}|[a-zA-Z]{1,4})\)\s*(\S.*)$")
_HALF_PAREN = re.compile(r"^([0-9]{1,3}|[a-z])\)\s+(\S.*)$")
_ROMAN_HEAD = re.compile(r"^([IVXL]{1,6})\.\s+(\S.*)$")
_ONLY_NUMBER = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*|[A-Z])\.?$")

_TABLE_WORDS = r"table|tab\.|tabelle|tableau|tabla|tabela|tabel|表|표"
_FIGURE_WORDS = r"figure|fig\.|figura|abbildung|abb\.|chart|图|圖|그림"
_NUM = r"([A-Z]?\d+(?:[.\-–]\d+)*[a-z]?|[A-Z](?:[.\-–]\d+)*|[IVXL]{1,6})(?![\w])"
_LABELS = {
    "table": re.compile(rf"^\W{{0,2}}((?i:{_TABLE_WORDS})\s*{_NUM})"),
    "figure": re.compile(rf"^\W{{0,2}}((?i:{_FIGURE_WORDS})\s*{_NUM})"),
}
_EQ_NUMBER = re.compile(r"\((\d{1,3}(?:\.\d{1,3})*[a-z]?)\)\s*$")


def parse_heading(text: str) -> tuple[str | None, str, str]:
    """(number, title, numbering style) of a heading's text; style 'none' when unnumbered."""
    t = " ".join(text.split())
    for rx, style in (
        (_PREFIXED, "dotted"),
        (_DOTTED, "dotted"),
        (_PAREN, "paren"),
        (_HALF_PAREN, "half_paren"),
        (_ROMAN_HEAD, "roman"),
    ):
        m = rx.match(t)
        if m and m.group(2).strip():
            number = m.group(1).rstrip(".")
            if style == "paren":
                number = f"({number})"
                style += "_digit" if number[1].isdigit() else "_alpha"
            return number, m.group(2).strip(), style
    return None, t, "none"


def _level(number: str | None, style: str, size_level: int, stack: list[tuple[str, int]]) -> int:
    """Heading level from its numbering; ``stack`` holds (style, level) of the open headings.

    Unnumbered headings get ``size_level`` (from Docling's level or the font size).
    """
    if style == "dotted":
        level = number.count(".") + 1
    elif style == "none":
        level = size_level
    else:
        same = [i for i, (s, _) in enumerate(stack) if s == style]
        # a style already open keeps its level; a new style nests under the innermost heading
        level = stack[same[-1]][1] if same else (stack[-1][1] + 1 if stack else 1)
    while stack and stack[-1][1] >= level:
        stack.pop()
    stack.append((style, level))
    return level


def _size(hrows: list[dict]) -> float | None:
    sizes = sorted(float(r["size"]) for r in hrows if r.get("size") is not None)
    return sizes[len(sizes) // 2] if sizes else None


def _size_levels(parsed: list[tuple]) -> dict[int, int]:
    """Level of each unnumbered heading (by index) when Docling gives no hierarchy.

    Docling's PDF exports give every section_header level 1. When the document
    numbers some headings, an unnumbered heading takes the level of the numbered
    headings of the nearest font size (one deeper when it is smaller than all of
    them); otherwise distinct heading sizes rank the levels, largest first.
    """
    if any(int(getattr(e.item, "level", 1) or 1) > 1 for e, *_ in parsed):
        return {i: int(getattr(e.item, "level", 1) or 1) for i, (e, *_) in enumerate(parsed)}
    numbered: dict[int, list[float]] = {}
    stack: list[tuple[str, int]] = []
    for _e, number, _, style, hrows in parsed:
        if style != "none":
            size = _size(hrows)
            lvl = _level(number, style, 1, stack)
            if size is not None:
                numbered.setdefault(lvl, []).append(size)
    typical = {lvl: sorted(v)[len(v) // 2] for lvl, v in numbered.items()}
    ranks = sorted({round(_size(h) * 2) / 2 for *_, h in parsed if _size(h) is not None}, reverse=True)
    out: dict[int, int] = {}
    for i, (_, _, _, style, hrows) in enumerate(parsed):
        size = _size(hrows)
        if style != "none" or size is None:
            out[i] = 1
        elif typical:
            if size < min(typical.values()) - 0.5:
                out[i] = max(typical) + 1
            else:
                out[i] = min(typical, key=lambda lvl: (abs(typical[lvl] - size), lvl))
        else:
            out[i] = ranks.index(round(size * 2) / 2) + 1
    return out


def build_toc(entries: list[Entry], rows: list[dict], doc_id: str) -> list[dict]:
    """toc_df rows from Docling's section headers, numbered and levelled from their text.

    A header that is only a number ('1') followed by another header is the
    chapter number of that header (Docling often splits them). When Docling's
    text has no number but the PDF's line order does ('1' above 'Intro'), the
    PDF's is used. A number used by more than one heading is ambiguous, so those
    headings get synthetic ids.
    """
    heads = [e for e in entries if e.label == "section_header" and e.rows]
    merged: list[tuple[Entry, str, list[dict]]] = []
    pending: tuple[str, list[dict]] | None = None
    for e in heads:
        text = " ".join((getattr(e.item, "text", "") or "").split())
        if _ONLY_NUMBER.match(text):
            pending = (text.rstrip("."), e.rows)
            continue
        if pending and pending[1][0]["page"] == e.rows[0]["page"]:
            merged.append((e, f"{pending[0]} {text}", pending[1] + e.rows))
        else:
            merged.append((e, text, e.rows))
        pending = None
    parsed = []
    for e, text, hrows in merged:
        number, title, style = parse_heading(text)
        if number is None:
            alt = parse_heading(" ".join(r["text"] for r in hrows))
            number, title, style = alt if alt[0] is not None else (number, title, style)
        parsed.append((e, number, title, style, hrows))
    counts: dict[str, int] = {}
    for _, number, _, _, _ in parsed:
        if number:
            counts[number] = counts.get(number, 0) + 1
    size_levels = _size_levels(parsed)
    order = {(r["page"], r["line"]): i for i, r in enumerate(rows)}
    toc: list[dict] = []
    stack: list[tuple[str, int]] = []
    for i, (_e, number, title, style, hrows) in enumerate(parsed, start=1):
        level = _level(number, style, size_levels[i - 1], stack)
        toc_id = number if number and counts[number] == 1 else f"s{i}"
        first = min(hrows, key=lambda r: order[(r["page"], r["line"])])
        toc.append(
            {
                "doc_id": doc_id,
                "toc_id": toc_id,
                "number": number,
                "title": title,
                "level": level,
                "page_start": first["page"],
                "line_start": first["line"],
                "source": "docling",
                "_pos": order[(first["page"], first["line"])],
                "_style": style,
            }
        )
    _fill_parents_and_ends(toc, rows)
    return toc


def _fill_parents_and_ends(toc: list[dict], rows: list[dict]) -> None:
    """parent_id (by number prefix for dotted numbers, else the last shallower heading) and section ends."""
    body = [i for i, r in enumerate(rows) if r["role"] not in _FURNITURE]
    for k, t in enumerate(toc):
        before = toc[:k]
        if t.pop("_style") == "dotted" and "." in (t["number"] or ""):
            parts = t["number"].split(".")
            prefixes = {".".join(parts[:n]) for n in range(1, len(parts))}
            t["parent_id"] = next((p["toc_id"] for p in reversed(before) if p["number"] in prefixes), None)
        else:
            t["parent_id"] = next((p["toc_id"] for p in reversed(before) if p["level"] < t["level"]), None)
        nxt = next((n["_pos"] for n in toc[k + 1 :] if n["level"] <= t["level"]), len(rows))
        last = max((i for i in body if t["_pos"] <= i < nxt), default=t["_pos"])
        t["page_end"], t["line_end"] = rows[last]["page"], rows[last]["line"]


def assign_sections(rows: list[dict], toc: list[dict]) -> None:
    """section_id of each non-furniture line: the last heading at or before it in reading order."""
    starts = {t["_pos"]: t["toc_id"] for t in toc}
    current = None
    for i, r in enumerate(rows):
        current = starts.get(i, current)
        r["section_id"] = None if r["role"] in _FURNITURE else current


def parse_label(caption: str, object_type: str) -> tuple[str, str] | None:
    """('Table 3', '3') when the caption opens with the object's label, else None."""
    rx = _LABELS.get(object_type)
    m = rx.match(caption.strip()) if rx else None
    return (m.group(1).strip(), m.group(2)) if m else None


def _union(boxes: list[tuple[float, float, float, float]]) -> tuple[float, ...]:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def build_objects(ddoc, entries: list[Entry], doc_id: str) -> tuple[list[dict], list[dict]]:
    """(object_registry rows, cell_df rows); sets ``object_key`` on the member lines.

    A table whose label repeats an earlier table's ('Table 2' on the next page)
    is its continuation: its cells are appended below and page_end extended.
    """
    by_ref = {e.item.self_ref: e for e in entries}
    heights = {p.page_no: float(p.size.height) for p in ddoc.pages.values()}
    registry: dict[str, dict] = {}
    cells: list[dict] = []
    unnumbered = {"table": 0, "figure": 0}
    for e in entries:
        if e.label in ("table", "picture"):
            otype = "table" if e.label == "table" else "figure"
            caps = [by_ref[c.cref] for c in e.item.captions if c.cref in by_ref]
            if otype == "figure" and not caps:
                continue  # an uncaptioned picture (logo, decoration) is not a numbered figure
            caption = " ".join(" ".join((c.item.text or "").split()) for c in caps) or None
            lab = parse_label(caption, otype) if caption else None
            if lab is None:
                unnumbered[otype] += 1
                lab = (None, f"u{unnumbered[otype]}")
            key = f"{otype}:{lab[1]}"
            members = [e, *caps, *(x for x in entries if x.parent_ref == e.item.self_ref and x not in caps)]
            if key in registry and otype == "table":
                _continue_table(registry[key], e, cells, heights, doc_id)
            else:
                registry[key] = _object_row(doc_id, key, otype, lab, caption, e, caps, members)
                if otype == "table":
                    cells.extend(_cells(e, key, heights, doc_id, row_offset=0))
            for m in members:
                for r in m.rows:
                    r["object_key"] = key
        elif e.label == "formula" and e.rows:
            text = " ".join(r["text"] for r in e.rows)
            m = _EQ_NUMBER.search(text)
            if m and f"equation:{m.group(1)}" not in registry:
                key = f"equation:{m.group(1)}"
                registry[key] = _object_row(
                    doc_id, key, "equation", (f"({m.group(1)})", m.group(1)), text, e, [], [e]
                )
                for r in e.rows:
                    r["object_key"] = key
    return list(registry.values()), cells


def _object_row(doc_id, key, otype, lab, caption, e: Entry, caps: list[Entry], members: list[Entry]) -> dict:
    head = [r for c in caps for r in c.rows] or e.rows
    allrows = [r for m in members for r in m.rows]
    page = head[0]["page"] if head else (e.item.prov[0].page_no if e.item.prov else None)
    page_end = max((r["page"] for r in allrows), default=page)
    boxes = [(r["x0"], r["y0"], r["x1"], r["y1"]) for r in allrows if r["page"] == page]
    box = _union(boxes) if boxes else (None, None, None, None)
    data = getattr(e.item, "data", None)
    return {
        "doc_id": doc_id,
        "object_key": key,
        "object_type": otype,
        "object_id": lab[1],
        "label": lab[0],
        "caption": caption,
        "page": page,
        "line_start": min((r["line"] for r in head if r["page"] == page), default=None),
        "line_end": max((r["line"] for r in allrows if r["page"] == page_end), default=None),
        "page_end": page_end,
        "x0": box[0],
        "y0": box[1],
        "x1": box[2],
        "y1": box[3],
        "n_rows": data.num_rows if data is not None else None,
        "n_cols": data.num_cols if data is not None else None,
        "source": "docling",
    }


def _continue_table(row: dict, e: Entry, cells: list[dict], heights, doc_id: str) -> None:
    offset = int(row["n_rows"] or 0)
    cells.extend(_cells(e, row["object_key"], heights, doc_id, row_offset=offset))
    row["n_rows"] = offset + e.item.data.num_rows
    row["n_cols"] = max(int(row["n_cols"] or 0), e.item.data.num_cols)
    pages = [r["page"] for r in e.rows] or [p.page_no for p in e.item.prov]
    if pages and max(pages) >= int(row["page_end"] or 0):
        row["page_end"] = max(pages)
        row["line_end"] = (
            max(r["line"] for r in e.rows if r["page"] == max(pages)) if e.rows else row["line_end"]
        )


def _cells(e: Entry, key: str, heights: dict[int, float], doc_id: str, *, row_offset: int) -> list[dict]:
    """cell_df rows of one TableItem: each cell once, at its top-left grid position."""
    data = e.item.data
    page = e.item.prov[0].page_no if e.item.prov else None
    grid = data.grid
    labels: dict[int, str | None] = {}
    for i, grow in enumerate(grid):
        heads = [c.text.strip() for c in grow if c.row_header and c.text.strip()]
        texts = [c.text.strip() for c in grow if c.text and c.text.strip()]
        labels[i] = (heads or texts or [None])[0]
    out = []
    for c in sorted(data.table_cells, key=lambda c: (c.start_row_offset_idx, c.start_col_offset_idx)):
        box = top_left_box(c.bbox, heights.get(page, 0.0)) if c.bbox is not None and page else (None,) * 4
        out.append(
            {
                "doc_id": doc_id,
                "object_key": key,
                "page": page,
                "row": c.start_row_offset_idx + row_offset,
                "col": c.start_col_offset_idx,
                "text": c.text.strip(),
                "is_header": bool(c.column_header),
                "row_label": labels.get(c.start_row_offset_idx),
                "x0": box[0],
                "y0": box[1],
                "x1": box[2],
                "y1": box[3],
            }
        )
    return out
