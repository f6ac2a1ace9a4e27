"""Per-page escalation to the layout model shipped in pymupdf >= 2.0 (``pymupdf.layout``).

:func:`escalation_reasons` decides from cheap signals whether the fast lines
understood the page; :func:`extract_page_lines_layout` re-labels and re-orders
those lines with the model's boxes. The model costs ~0.7-1 s per page on a
CPU, so only pages whose structure the fast path missed are escalated.

API used (pymupdf 2.0, read from the installed package): ``import pymupdf.layout``
installs the ONNX model as ``pymupdf._get_layout``; ``page.get_layout()`` then
stores ``page.layout_information`` = ``[[x0, y0, x1, y1, class_name], ...]`` in
reading order, with class_name one of text, title, picture, table, list-item,
page-header, page-footer, section-header, footnote, caption, formula.
"""

from __future__ import annotations

import math
import os
import re
import threading

#: A caption opens with the label, its whole id, then a separator or the line's end. The id is
#: atomic, so "Table 2-1 lists ..." is prose (not "Table 2" + "-") and "Table 3.1 shows" too.
_CAPTION = re.compile(
    r"^(?P<kind>Table|TABLE|Tab\.|Figure|FIGURE|Fig\.)\s*(?P<id>(?>[A-Z]?\d+(?:[.\-]\d+)*[a-z]?))\s*(?:[:.\-—–]|$)"
)
#: A dot leader, optionally followed by a page label, at the end of the line: an entry of a list
#: of figures/tables (or contents), which names an object without being its caption.
_LEADER = re.compile(r"(?:\.\s?){4,}\s*[\w\-]{0,8}\s*$|…\s*[\w\-]{0,8}\s*$")
#: Layout-model pages per document: max(LAYOUT_BUDGET_MIN, LAYOUT_BUDGET_SHARE x pages), or the
#: page count in ``DOCINTEL_LAYOUT_BUDGET``. Pages over it keep the fast parse and say so in
#: ``page_df.escalation_signals`` ("layout_budget_skipped: ..."). Vector-graphics pages (the
#: least gain: ruled tables the fast path misses, charts) may use only half of it, so a page
#: whose text is unreadable or whose table went unseen later in the document still gets a turn.
LAYOUT_BUDGET_SHARE = 0.10
LAYOUT_BUDGET_MIN = 10
#: Layout class -> line role. ``text`` keeps the fast role (body, list_item, formula ...).
ROLE_OF_CLASS = {
    "table": "table",
    "formula": "formula",
    "caption": "caption",
    "picture": "figure_text",
    "page-header": "header",
    "page-footer": "footer",
    "section-header": "heading",
    "title": "title",
    "footnote": "footnote",
    "list-item": "list_item",
}
#: Vector paths on a page above which unexplained drawings mean a chart or ruled table.
MANY_DRAWINGS = 150
#: Share of unreadable characters (U+FFFD, private use) that marks a broken font encoding.
GARBLED_SHARE = 0.05
_LOCK = threading.Lock()


class _DocState:
    """What escalation remembers across one document's pages: captions seen, pages escalated."""

    def __init__(self, doc) -> None:
        pages = int(getattr(doc, "page_count", 0) or 0)
        env = os.environ.get("DOCINTEL_LAYOUT_BUDGET", "").strip()
        self.budget = (
            int(env) if env.isdigit() else max(LAYOUT_BUDGET_MIN, math.ceil(LAYOUT_BUDGET_SHARE * pages))
        )
        self.captions: dict[tuple[str, str], int] = {}  # (kind, id) -> first page it appears on
        self.escalated: set[int] = set()
        self.vector_only: set[int] = set()


def _state(page) -> _DocState | None:
    """The document's state, kept on the document itself (``page.parent`` is a weak proxy)."""
    doc = getattr(page, "parent", None)
    if doc is None:
        return None
    try:
        state = getattr(doc, "_docintel_escalation", None)
        if state is None:
            state = _DocState(doc)
            doc._docintel_escalation = state
    except (AttributeError, TypeError, ReferenceError):  # no cross-page memory then
        return None
    return state


def escalation_reasons(page, rows: list[dict], page_signals: dict) -> list[str]:
    """Signals that the fast path did not understand this page ([] = keep fast).

    Cheap: uses only the fast lines and the page signals already computed.
    - ``caption_without_structure``: a "Table N" caption but no table rows found,
      or a "Figure N" caption with no image, drawing or figure text on the page. A caption
      is a line opening with the label and its whole id then a separator (not prose that
      cites "Table 2-1"), not on a page of list entries (one of them ends in a dot leader: a
      list of figures or tables), and naming an object not seen on an earlier page (the continuation pages of a multi-page table
      repeat its caption: the table is detected once);
    - ``vector_graphics_without_structure``: many drawings, no table or figure found;
    - ``garbled_text``: many replacement / private-use characters (broken font encoding).
    Pages without a text layer are not escalated: the model reads the text layer, so it
    would add nothing (they are flagged ``image_only`` instead). Over the document's layout
    budget (:data:`LAYOUT_BUDGET_SHARE`) a page is not escalated; its would-be reasons are
    written to ``page_signals["escalation_signals"]`` as ``layout_budget_skipped: ...``.
    """
    reasons: list[str] = []
    if not rows:
        return reasons
    state = _state(page)
    page_no = int(page_signals.get("page") or 0)
    roles = {r["role"] for r in rows}
    n_images = int(page_signals.get("n_images") or 0)
    n_drawings = int(page_signals.get("n_drawings") or 0)
    captions = [
        (r, m)
        for r in rows
        if r["role"] in ("body", "formula", "list_item")
        and not r.get("_rot")
        and (m := _CAPTION.match(r["text"]))
    ]
    if any(_LEADER.search(r["text"]) for r, _ in captions):
        captions = []  # a list of figures or tables: its entries name objects, none is a caption
    for r, m in captions:
        kind = m.group("kind").lower()
        key = ("table" if kind.startswith("tab") else "figure", m.group("id").lower())
        if state is not None:
            first = state.captions.setdefault(key, page_no)
            if first != page_no:
                continue  # a continuation page: the object was met (and escalated if need be) there
        if kind.startswith("tab") and "table" not in roles:
            reasons.append(f"caption_without_structure: {r['text'][:40]}")
            break
        if kind.startswith("fig") and not n_images and n_drawings < 10 and "figure_text" not in roles:
            reasons.append(f"caption_without_structure: {r['text'][:40]}")
            break
    if n_drawings >= MANY_DRAWINGS and not n_images and not roles & {"table", "figure_text"}:
        reasons.append(f"vector_graphics_without_structure: {n_drawings} drawings")
    chars = sum(len(r["text"]) for r in rows)
    bad = int(page_signals.get("_bad_chars") or 0)
    if chars and bad / chars >= GARBLED_SHARE:
        reasons.append(f"garbled_text: {bad / chars:.0%} unreadable characters")
    if reasons and state is not None and page_no not in state.escalated:
        vector_only = all(x.startswith("vector_graphics") for x in reasons)
        full = len(state.escalated) >= state.budget
        if full or (vector_only and len(state.vector_only) >= state.budget // 2):
            page_signals["escalation_signals"] = (
                f"layout_budget_skipped ({state.budget} pages): " + "; ".join(reasons)
            )
            return []
        state.escalated.add(page_no)
        if vector_only:
            state.vector_only.add(page_no)
    return reasons


def _boxes(page) -> list[tuple[float, float, float, float, str]]:
    import pymupdf
    import pymupdf.layout  # noqa: F401  (importing installs the ONNX model into pymupdf)

    if not callable(getattr(pymupdf, "_get_layout", None)):
        pymupdf.layout.activate()
    with _LOCK:  # the model keeps process-global state (pymupdf4llm serialises it too)
        page.get_layout()
    info = page.layout_information or []
    return [(float(b[0]), float(b[1]), float(b[2]), float(b[3]), str(b[4])) for b in info if len(b) >= 5]


def _overlap_share(r: dict, box: tuple) -> float:
    ix = min(r["x1"], box[2]) - max(r["x0"], box[0])
    iy = min(r["y1"], box[3]) - max(r["y0"], box[1])
    if ix <= 0 or iy <= 0:
        return 0.0
    area = max((r["x1"] - r["x0"]) * (r["y1"] - r["y0"]), 0.01)
    return ix * iy / area


def extract_page_lines_layout(
    page,
    page_no: int,
    fast_rows: list[dict],
    *,
    gutters: list[tuple[float, float]] | None = None,
    cuts: list[tuple[float, float, float, float]] | None = None,
) -> tuple[list[dict], dict]:
    """Re-label and re-order the fast lines of one page with pymupdf.layout's boxes.

    Each line joins the layout box that holds most of it; its role follows the
    box class (:data:`ROLE_OF_CLASS`; margin stamps keep ``header``). On a page
    where the fast path found text columns (``gutters``), the column-aware fast
    order stands: the model reads boxes that share a baseline across the gutter
    (two column headings at the top of a page) as one row, putting both headings
    before either column's text. Its pictures and tables that cross a gutter
    still end a band, like the page's images (``cuts``). On a one-column page
    lines are ordered by the model's box order, then by their fast order inside
    a box; a line in no box stays right after the line that preceded it.
    """
    from docintel.parsing import columns
    from docintel.parsing.lines import extract_page_lines

    rows = [dict(r) for r in fast_rows] if fast_rows else extract_page_lines(page, page_no)[0]
    boxes = _boxes(page)
    keyed = []
    last_box = -1
    for fast_pos, r in enumerate(rows):
        best, share = -1, 0.0
        for bi, box in enumerate(boxes):
            s = _overlap_share(r, box)
            if s > share:
                best, share = bi, s
        if share >= 0.5 and not r.get("_margin"):
            cls = boxes[best][4]
            role = ROLE_OF_CLASS.get(cls)
            if role is not None:
                r["role"] = role
            elif r["role"] in ("table", "figure_text", "header", "footer", "page_number"):
                r["role"] = "body"  # the model saw running text where the fast heuristics did not
            r["_layout_class"] = cls
            last_box = best
            keyed.append(((best, fast_pos), r))
        else:
            keyed.append(((last_box if not r.get("_margin") else len(boxes), fast_pos), r))
    if gutters:
        figures = [b[:4] for b in boxes if b[4] in ("picture", "table")]
        ordered = columns.reading_order(rows, gutters, cuts=list(cuts or []) + figures)
    else:
        ordered = [r for _, r in sorted(keyed, key=lambda kr: kr[0])]
    block_ids: dict[int, int] = {}
    for i, r in enumerate(ordered, start=1):
        r["line"] = i
        r["block"] = block_ids.setdefault(r["block"], len(block_ids))
        r["parse_method"] = "layout"
    signals = {
        "n_lines": len(ordered),
        "n_chars": sum(len(r["text"].replace(" ", "")) for r in ordered),
        "n_words": sum(len(r["text"].split()) for r in ordered),
    }
    return ordered, signals
