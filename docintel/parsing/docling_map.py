"""DoclingDocument -> line rows: Docling's items and reading order, on the PDF's physical lines.

Docling items are paragraphs and blocks, not lines. docintel cites page *and line*
and highlights line boxes, so each text item is split onto the PDF's own lines:
the PyMuPDF spans whose centre falls inside the item's box (and that no earlier
item claimed) are grouped by their PyMuPDF line. That keeps Docling's
segmentation, labels and reading order, while the line numbers, boxes and fonts
match what the PyMuPDF parser cites for the same page. When the spans do not
account for the item's text (an OCR'd page, a box that missed its text), the item
becomes one row with Docling's own text and box instead: nothing is dropped.

Tables become one row per table row (cell texts joined with `` | ``), from
TableFormer's cells; their PDF spans are claimed so no other item takes them.
"""

from __future__ import annotations

import re
import unicodedata
import warnings
from collections import Counter
from dataclasses import dataclass, field

#: Docling item label -> line_df role.
ROLE_BY_LABEL = {
    "title": "title",
    "section_header": "heading",
    "caption": "caption",
    "footnote": "footnote",
    "page_header": "header",
    "page_footer": "footer",
    "formula": "formula",
    "list_item": "list_item",
    "table": "table",
    "document_index": "toc_entry",
    "text": "body",
    "paragraph": "body",
    "code": "body",
    "reference": "body",
}
#: Span/text agreement below (or above) which an item keeps Docling's text as one row.
MIN_COVERAGE, MAX_COVERAGE = 0.6, 1.6
_TOL = 2.0  # points: Docling boxes hug the glyphs, PyMuPDF span boxes include the line height
_WS = re.compile(r"\s+")
_ROMAN = r"(?=[ivxlc])(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})"
_PAGE_LABEL = re.compile(rf"^(?:page\s+)?(\d{{1,4}}(?:[-–.]\d{{1,4}})?|{_ROMAN})(?:\s+of\s+\d+)?$", re.I)
_EDGE_NUMBER = re.compile(r"^(\d{1,4})\s+\D.{3,}$|^.{3,}\D\s+(\d{1,4})$")


def norm_text(text: str) -> str:
    """Whitespace-free, lower-case text, for comparing two extractions of the same words."""
    return _WS.sub("", text or "").lower()


@dataclass
class Entry:
    """One Docling item in reading order, with the object it belongs to."""

    item: object
    label: str
    parent_ref: str | None = None  # self_ref of the table/picture this item belongs to
    rows: list[dict] = field(default_factory=list)


def ordered_entries(ddoc) -> list[Entry]:
    """Docling's items in its reading order (body and furniture layers, pictures traversed).

    Captions sitting above their table/figure are moved before it, so the line
    order follows the page; other children (figure text, footnotes) follow it.
    """
    from docling_core.types.doc import ContentLayer, DocItem

    layers = {ContentLayer.BODY, ContentLayer.FURNITURE}
    out: list[Entry] = []
    seen: set[str] = set()
    with warnings.catch_warnings():
        # docling-core 2.x deprecates the furniture root; exports before schema 1.1 keep headers there.
        warnings.simplefilter("ignore", DeprecationWarning)
        roots = [ddoc.body, ddoc.furniture]
    for root in roots:
        for item, _level in ddoc.iterate_items(
            root=root, with_groups=False, traverse_pictures=True, included_content_layers=layers
        ):
            if not isinstance(item, DocItem) or item.self_ref in seen:
                continue
            seen.add(item.self_ref)
            parent = item.parent.cref if item.parent is not None else None
            out.append(Entry(item=item, label=str(item.label), parent_ref=parent))
    return _captions_first(out)


def _top(item) -> float | None:
    if not item.prov:
        return None
    b = item.prov[0].bbox
    return b.t if str(b.coord_origin.value) == "TOPLEFT" else -b.t


def _captions_first(entries: list[Entry]) -> list[Entry]:
    index = {e.item.self_ref: i for i, e in enumerate(entries)}
    moved: dict[int, list[Entry]] = {}
    skip: set[int] = set()
    for i, e in enumerate(entries):
        caps = {c.cref for c in getattr(e.item, "captions", []) or []}
        for ref in caps:
            j = index.get(ref)
            if j is None or j < i:
                continue
            cap = entries[j]
            same_page = cap.item.prov and e.item.prov and cap.item.prov[0].page_no == e.item.prov[0].page_no
            ct, ot = _top(cap.item), _top(e.item)
            if same_page and ct is not None and ot is not None and ct < ot:
                moved.setdefault(i, []).append(cap)
                skip.add(j)
    out: list[Entry] = []
    for i, e in enumerate(entries):
        if i in skip:
            continue
        out.extend(moved.get(i, []))
        out.append(e)
    return out


class PageText:
    """The PyMuPDF spans of one page, each claimable by one Docling item."""

    def __init__(self, page) -> None:
        import pymupdf

        flags = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES
        d = page.get_text("dict", flags=flags)
        self.spans: list[dict] = []
        for b, block in enumerate(d["blocks"]):
            for n, line in enumerate(block.get("lines", [])):
                for s in line["spans"]:
                    if not s["text"].strip():
                        continue
                    x0, y0, x1, y1 = s["bbox"]
                    self.spans.append(
                        {
                            "text": s["text"],
                            "bbox": (x0, y0, x1, y1),
                            "cx": (x0 + x1) / 2,
                            "cy": (y0 + y1) / 2,
                            "font": s["font"],
                            "size": s["size"],
                            "flags": s["flags"],
                            "line": (b, n),
                        }
                    )
        self.claimed = [False] * len(self.spans)
        self.n_chars = sum(len(s["text"].replace(" ", "")) for s in self.spans)

    def take(self, box: tuple[float, float, float, float]) -> list[int]:
        """Claim and return the unclaimed spans whose centre is inside ``box``."""
        x0, y0, x1, y1 = box[0] - _TOL, box[1] - _TOL, box[2] + _TOL, box[3] + _TOL
        got = [
            i
            for i, s in enumerate(self.spans)
            if not self.claimed[i] and x0 <= s["cx"] <= x1 and y0 <= s["cy"] <= y1
        ]
        for i in got:
            self.claimed[i] = True
        return got

    def release(self, idx: list[int]) -> None:
        for i in idx:
            self.claimed[i] = False

    def lines_of(self, idx: list[int]) -> list[dict]:
        """Group claimed spans by their PyMuPDF line; rows in top-to-bottom, left-to-right order."""
        groups: dict[tuple, list[dict]] = {}
        for i in idx:
            groups.setdefault(self.spans[i]["line"], []).append(self.spans[i])
        rows = []
        for spans in groups.values():
            weights: Counter = Counter()
            for s in spans:
                weights[(s["font"], round(s["size"], 1), s["flags"])] += len(s["text"].strip())
            (font, size, flags), _ = weights.most_common(1)[0]
            rows.append(
                {
                    "text": "".join(s["text"] for s in spans).strip(),
                    "x0": min(s["bbox"][0] for s in spans),
                    "y0": min(s["bbox"][1] for s in spans),
                    "x1": max(s["bbox"][2] for s in spans),
                    "y1": max(s["bbox"][3] for s in spans),
                    "font": font,
                    "size": float(size),
                    "bold": bool(flags & 16) or "bold" in font.lower(),
                    "italic": bool(flags & 2) or "italic" in font.lower(),
                }
            )
        rows.sort(key=lambda r: (round((r["y0"] + r["y1"]) / 2 / 3), r["x0"]))
        return rows


def top_left_box(bbox, page_height: float) -> tuple[float, float, float, float]:
    """A Docling BoundingBox as (x0, y0, x1, y1) with PyMuPDF's top-left origin."""
    b = bbox.to_top_left_origin(page_height)
    return (float(b.l), float(min(b.t, b.b)), float(b.r), float(max(b.t, b.b)))


def _key(text: str) -> str:
    return norm_text(unicodedata.normalize("NFKC", text))


def split_like(text: str, parts: list[str]) -> list[str] | None:
    """Cut Docling's ``text`` into the PDF lines ``parts`` when both hold the same characters.

    Docling's spacing is often better than the PDF's (TeX fonts without space
    glyphs), so its text is kept whenever it lines up character for character
    (ignoring whitespace, case and ligatures); None when it does not.
    """
    lengths = [len(_key(p)) for p in parts]
    if _key(text) != "".join(_key(p) for p in parts):
        return None
    out, cur, n, i, target = [], [], 0, 0, lengths[0]
    for ch in text:
        if n >= target and i < len(parts) - 1 and _key(ch):
            out.append("".join(cur).strip())
            cur, i = [], i + 1
            target += lengths[i]
        cur.append(ch)
        n += len(_key(ch))
    out.append("".join(cur).strip())
    return out if len(out) == len(parts) and all(out) else None


def _item_text_rows(entry: Entry, prov, page: PageText, box, text: str) -> list[dict]:
    idx = page.take(box)
    rows = page.lines_of(idx) if idx else []
    want, got = len(norm_text(text)), sum(len(norm_text(r["text"])) for r in rows)
    if want and (not rows or not MIN_COVERAGE <= got / want <= MAX_COVERAGE):
        # The PDF's spans do not carry this item's text: keep Docling's text as one row.
        page.release(idx)
        return (
            [{"text": text, "x0": box[0], "y0": box[1], "x1": box[2], "y1": box[3]}] if text.strip() else []
        )
    pieces = split_like(text, [r["text"] for r in rows]) if want else None
    for r, piece in zip(rows, pieces or [], strict=False):
        r["text"] = piece
    return rows


def _table_rows(item, page_no: int, page_h: float, box) -> list[dict]:
    """One row per table row: its cells' texts joined with `` | ``, boxed by the cells."""
    by_row: dict[int, list] = {}
    for c in item.data.table_cells:
        by_row.setdefault(c.start_row_offset_idx, []).append(c)
    rows = []
    for r in sorted(by_row):
        cells = sorted(by_row[r], key=lambda c: c.start_col_offset_idx)
        texts = [c.text.strip() for c in cells if c.text and c.text.strip()]
        if not texts:
            continue
        boxes = [top_left_box(c.bbox, page_h) for c in cells if c.bbox is not None]
        bx = (
            (
                min(b[0] for b in boxes),
                min(b[1] for b in boxes),
                max(b[2] for b in boxes),
                max(b[3] for b in boxes),
            )
            if boxes
            else box
        )
        rows.append({"text": " | ".join(texts), "x0": bx[0], "y0": bx[1], "x1": bx[2], "y1": bx[3]})
    return rows


def build_lines(ddoc, doc, entries: list[Entry]) -> tuple[list[dict], dict[int, PageText]]:
    """Line rows for every entry, in Docling's reading order, numbered per page.

    Each row carries the line_df columns except doc_id/section_id/object_key,
    plus ``_ref`` (the Docling item's self_ref) for the object mapping.
    """
    heights = {p.page_no: float(p.size.height) for p in ddoc.pages.values()}
    pages: dict[int, PageText] = {}
    rows: list[dict] = []
    block_no: Counter = Counter()
    for e in entries:
        item = e.item
        text = getattr(item, "text", "") or ""
        for prov in item.prov:
            p = prov.page_no
            if p not in heights or not 1 <= p <= doc.page_count:
                continue
            if p not in pages:
                pages[p] = PageText(doc[p - 1])
            box = top_left_box(prov.bbox, heights[p])
            if e.label == "table" or e.label == "document_index":
                pages[p].take(box)
                part = _table_rows(item, p, heights[p], box) if hasattr(item, "data") else []
            elif e.label == "picture":
                part = []
            else:
                seg = text
                cs = prov.charspan
                if len(item.prov) > 1 and cs and cs[1] > cs[0]:
                    seg = text[cs[0] : cs[1]]
                part = _item_text_rows(e, prov, pages[p], box, seg)
            role = ROLE_BY_LABEL.get(e.label, "body")
            if e.parent_ref and e.parent_ref.startswith("#/pictures/") and e.label != "caption":
                role = "figure_text"
            for r in part:
                r.update(page=p, block=block_no[p], role=role, parse_method="docling", _ref=item.self_ref)
                r.setdefault("font", None)
                r.setdefault("size", None)
                r.setdefault("bold", None)
                r.setdefault("italic", None)
            if part:
                block_no[p] += 1
            e.rows.extend(part)
            rows.extend(part)
    rows.sort(key=lambda r: r["page"])  # stable: keeps reading order within each page
    counter: Counter = Counter()
    for r in rows:
        counter[r["page"]] += 1
        r["line"] = counter[r["page"]]
    return rows, pages


def assign_columns(rows: list[dict], widths: dict[int, float]) -> None:
    """0/1 for lines in the left/right half of a two-column page, -1 for full-width lines there."""
    by_page: dict[int, list[dict]] = {}
    for r in rows:
        by_page.setdefault(r["page"], []).append(r)
    for p, rs in by_page.items():
        mid = widths.get(p, 612.0) / 2
        body = [r for r in rs if r["role"] in ("body", "list_item", "heading")]
        left = sum(1 for r in body if r["x1"] <= mid + _TOL)
        right = sum(1 for r in body if r["x0"] >= mid - _TOL)
        two = left >= 3 and right >= 3
        for r in rs:
            if not two or r["x1"] <= mid + _TOL:
                r["column"] = 0
            elif r["x0"] >= mid - _TOL:
                r["column"] = 1
            else:
                r["column"] = -1


def page_label(rows: list[dict]) -> str | None:
    """The printed page number among a page's header/footer lines, or None.

    A furniture line that is only a number ('12', 'iii', '7-45', 'Page 3 of 9')
    wins over a number at the edge of a running title ('Chapter 3. Controls 19').
    """
    furniture = [r for r in rows if r["role"] in ("header", "footer", "page_number")]
    for r in furniture:
        m = _PAGE_LABEL.match(r["text"].strip())
        if m:
            r["role"] = "page_number"
            return m.group(1)
    for r in furniture:
        m = _EDGE_NUMBER.match(r["text"].strip())
        if m:
            return m.group(1) or m.group(2)
    return None
