"""Per-page escalation to the layout model shipped in pymupdf >= 2.0 (``pymupdf.layout``).

:func:`escalation_reasons` decides from cheap signals whether the fast lines
understood the page; :func:`extract_page_lines_layout` re-labels and re-orders
those lines with the model's boxes (loaded by :mod:`docintel.parsing.layout_model`). The
model costs ~0.26 s CPU per page, so only pages whose structure the fast path missed are escalated.

API used (pymupdf 2.0, read from the installed package): ``import pymupdf.layout``
installs the ONNX model as ``pymupdf._get_layout``; ``page.get_layout()`` then
stores ``page.layout_information`` = ``[[x0, y0, x1, y1, class_name], ...]`` in
reading order, with class_name one of text, title, picture, table, list-item,
page-header, page-footer, section-header, footnote, caption, formula.
"""

from __future__ import annotations

import re
import threading

from docintel.parsing.layout_model import (  # noqa: F401  (re-exported: escalate and the tests use them)
    _MODEL_BUILT_HERE,
    _ensure_model,
    _lean_session,
    _one_thread_sessions,
    ensure_model_quietly,
    fresh_model,
    model_forks,
)

#: A caption opens with the label, its whole id, then a separator or the line's end. The id is
#: atomic, so "Table 2-1 lists ..." is prose (not "Table 2" + "-") and "Table 3.1 shows" too; an
#: appendix id ("Table D-2:", "Figure A.1.") is an id like any other.
_CAPTION = re.compile(
    r"^(?P<kind>Table|TABLE|Tab\.|Figure|FIGURE|Fig\.)\s*"
    r"(?P<id>(?>(?:[A-Z][.\-]?)?\d+(?:[.\-]\d+)*[a-z]?))\s*(?:[:.\-—–]|$)"
)
#: A dot leader, optionally followed by a page label, at the end of the line: an entry of a list
#: of figures/tables (or contents), which names an object without being its caption.
_LEADER = re.compile(r"(?:\.\s?){4,}\s*[\w\-]{0,8}\s*$|…\s*[\w\-]{0,8}\s*$")
#: Layout-model pages per document: max(LAYOUT_BUDGET_MIN, LAYOUT_BUDGET_SHARE x pages), or the
#: page count in ``DOCINTEL_LAYOUT_BUDGET``; :mod:`docintel.parsing.escalate` chooses the pages.
#: Set from the cost target (issue 18: escalation adds at most ~2 image-free floor units): a model
#: page costs ~0.27 s CPU, a floor page ~3.5 ms on long NIST SPs, so 2 x 3.5 / 270 = 2.6% of the
#: pages. The minimum keeps a short document's few tables (the eval PDFs have at most one candidate).
LAYOUT_BUDGET_SHARE = 0.025
LAYOUT_BUDGET_MIN = 5
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
#: ... when they spread over this share of the page at least: many paths in a small box are an
#: emblem or a logo (the seal on a title page), with no structure in the text to recover.
DRAWINGS_MIN_SHARE = 0.05
#: A vector-graphics page continues the previous one's (a ruled table over pages) when it comes
#: at most this many pages later and its drawings span the same columns (x-extent overlap share).
CONTINUATION_GAP = 2
CONTINUATION_X_OVERLAP = 0.8
#: Points within which two lines share a left edge (a paragraph's wrapped lines).
SAME_EDGE_PT = 2.0
#: Share of unreadable characters (U+FFFD, private use) that marks a broken font encoding.
GARBLED_SHARE = 0.05
#: A caption's region ends at the last vector path below it when those paths draw at least this
#: many distinct horizontal edges (a ruled table's top, header and bottom rules; a thin path is
#: one edge, a filled box two), at least two of them rules and the lowest path a rule: what follows
#: the table (prose, the next heading) is not what the model would change. Fewer edges, one rule
#: (a shaded header and the rule under it) or a filled box lowest may not close the table: the
#: region then runs to the page bottom.
CLOSED_TABLE_EDGES = 3
_LOCK = threading.Lock()


class _DocState:
    """What escalation remembers across one document's pages: captions and vector runs seen."""

    def __init__(self) -> None:
        self.captions: dict[tuple[str, str], int] = {}  # (kind, id) -> first page it appears on
        # the last vector-graphics candidate: (page, first page of its run, drawings' x-extent)
        self.vector: tuple[int, int, tuple[float, float]] | None = None


def _state(page) -> _DocState | None:
    """The document's state, kept on the document itself (``page.parent`` is a weak proxy)."""
    doc = getattr(page, "parent", None)
    if doc is None:
        return None
    try:
        state = getattr(doc, "_docintel_escalation", None)
        if state is None:
            state = _DocState()
            doc._docintel_escalation = state
    except (AttributeError, TypeError, ReferenceError):  # no cross-page memory then
        return None
    return state


def _continues_sentence(prev: dict, r: dict) -> bool:
    """Whether line ``r`` carries on the sentence of the line before it: same text block, same
    left edge, and the line before ends mid-sentence ("... is depicted in" / "Figure 2-7. This
    DCS ..."), so a label that opens ``r`` is a citation wrapped to the line start, not a caption."""
    if prev.get("block") is None or prev.get("block") != r.get("block"):
        return False
    if abs(float(prev.get("x0", -1e9)) - float(r.get("x0", 1e9))) > SAME_EDGE_PT:
        return False
    end = prev["text"].rstrip()[-1:]
    return end.islower() or end == ","


def _drawings_extent(page, drawings: list | None = None) -> tuple[float, float, float, float] | None:
    """The box around every vector path of the page (``drawings``: the page signals' own list,
    read once by ``signals.page_signals``), or None when it cannot be read."""
    try:
        rects = [d["rect"] for d in (page.get_cdrawings() if drawings is None else drawings)]
    except Exception:  # no page (tests) or a broken content stream: extent unknown
        return None
    if not rects:
        return None
    return (
        min(r[0] for r in rects),
        min(r[1] for r in rects),
        max(r[2] for r in rects),
        max(r[3] for r in rects),
    )


def _below_caption(
    top: float, width: float, height: float, drawings: list | None
) -> tuple[float, float, float, float]:
    """What follows a caption whose table the fast path missed: down to the page bottom, or, when
    the vector paths below it close a ruled table (:data:`CLOSED_TABLE_EDGES`), down to the last
    of them (``drawings``: the page signals' ``get_cdrawings()`` list)."""
    try:
        below = [d["rect"] for d in drawings or () if d["rect"][1] >= top - 1]
        # a rule (a thin path) is one edge; a filled box (a shaded row) its top and its bottom
        rules = {round((r[1] + r[3]) / 2) for r in below if r[3] - r[1] <= 2}
        boxes = [r for r in below if r[3] - r[1] > 2]
        edges = rules | {e for r in boxes for e in (round(r[1]), round(r[3]))}
    except (KeyError, TypeError, IndexError):  # get_drawings() Rects or an unknown shape: no clip
        return (0.0, top, width, height)
    # closed: enough edges, two of them rules, and a rule at the bottom (a shaded header and the
    # rule under it leave the body open below: the region runs on to the page bottom)
    bottom = max((float(r[3]) for r in boxes), default=0.0)
    if len(edges) < CLOSED_TABLE_EDGES or len(rules) < 2 or max(rules) < bottom - 2:
        return (0.0, top, width, height)
    return (0.0, top, width, min(height, max(float(r[3]) for r in below) + 1.0))


def _x_overlap(a: tuple[float, float], b: tuple[float, float]) -> float:
    inter = min(a[1], b[1]) - max(a[0], b[0])
    union = max(a[1], b[1]) - min(a[0], b[0])
    return inter / union if union > 0 and inter > 0 else 0.0


def escalation_reasons(page, rows: list[dict], page_signals: dict) -> list[str]:
    """Signals that the fast path did not understand this page ([] = keep fast).

    Cheap: uses only the fast lines and the page signals already computed.
    - ``caption_without_structure``: a "Table N" caption but no table rows found,
      or a "Figure N" caption with no image, drawing or figure text on the page. A caption
      is a line opening with the label and its whole id then a separator (not prose that
      cites "Table 2-1"), not on a page of list entries (one of them ends in a dot leader: a
      list of figures or tables);
    - ``vector_graphics_without_structure``: many drawings spread over the page (not a logo),
      no table or figure found;
    - ``garbled_text``: many replacement / private-use characters (broken font encoding).
    A multi-page object is escalated once: a page that repeats a caption met on an earlier page,
    or whose vector graphics continue the previous candidate's columns within
    :data:`CONTINUATION_GAP` pages, keeps the fast parse and records
    ``layout_continuation (pN): ...`` in ``page_signals["escalation_signals"]``.
    Pages without a text layer are not escalated: the model reads the text layer, so it
    would add nothing (they are flagged ``image_only`` instead). The document's budget is
    applied later, over all candidates (:func:`docintel.parsing.escalate.choose`), after the
    triage (:func:`docintel.parsing.escalate.triage`) reads the lines inside the regions each
    reason names (below the caption, the drawings' extent, the whole page for garbled text),
    recorded in the private ``page_signals["_escalation_regions"]``.
    """
    reasons: list[str] = []
    if not rows:
        return reasons
    state = _state(page)
    page_no = int(page_signals.get("page") or 0)
    roles = {r["role"] for r in rows}
    n_images = int(page_signals.get("n_images") or 0)
    # the thresholds below were set on get_cdrawings()' paths, which the page stage reads for every
    # page with paths when it escalates (their boxes bound the regions): count those, so the
    # calibration holds; n_drawings (the text page's vector blocks, touching same-colour rectangles
    # merged) stands in only where no paths were read (callers without a page)
    drawn = page_signals.get("_drawings")
    n_drawings = len(drawn) if drawn is not None else int(page_signals.get("n_drawings") or 0)
    continued: list[str] = []
    regions: list[tuple[float, float, float, float]] = []
    width = float(page_signals.get("width") or 1e4)
    height = float(page_signals.get("height") or 1e4)
    first_page = page_no
    captions = [
        (r, m)
        for i, r in enumerate(rows)
        if r["role"] in ("body", "formula", "list_item")
        and not r.get("_rot")
        and (m := _CAPTION.match(r["text"]))
        and not (i and _continues_sentence(rows[i - 1], r))
    ]
    if any(_LEADER.search(r["text"]) for r, _ in captions):
        captions = []  # a list of figures or tables: its entries name objects, none is a caption
    for r, m in captions:
        kind = m.group("kind").lower()
        key = ("table" if kind.startswith("tab") else "figure", m.group("id").lower())
        first = state.captions.setdefault(key, page_no) if state is not None else page_no
        if kind.startswith("tab"):
            missed = "table" not in roles
        else:
            missed = not n_images and n_drawings < 10 and "figure_text" not in roles
        if not missed:
            continue
        reason = f"caption_without_structure: {r['text'][:40]}"
        if first != page_no:  # a continuation page: the object was met (and escalated if need be) there
            continued.append(reason)
            first_page = first
            continue
        reasons.append(reason)
        regions.append(_below_caption(float(r.get("y1", 0.0)), width, height, page_signals.get("_drawings")))
        break
    if n_drawings >= MANY_DRAWINGS and not n_images and not roles & {"table", "figure_text"}:
        extent = _drawings_extent(page, page_signals.get("_drawings"))
        area = float(page_signals.get("width") or 0) * float(page_signals.get("height") or 0)
        share = (extent[2] - extent[0]) * (extent[3] - extent[1]) / area if extent and area else 1.0
        if share >= DRAWINGS_MIN_SHARE:
            reason = f"vector_graphics_without_structure: {n_drawings} drawings"
            prev = state.vector if state is not None else None
            if (
                extent is not None
                and prev is not None
                and 0 < page_no - prev[0] <= CONTINUATION_GAP
                and _x_overlap(prev[2], (extent[0], extent[2])) >= CONTINUATION_X_OVERLAP
            ):
                continued.append(reason)
                first_page = prev[1]
                state.vector = (page_no, prev[1], (extent[0], extent[2]))
            else:
                reasons.append(reason)
                regions.append(tuple(map(float, extent)) if extent else (0.0, 0.0, width, height))
                if state is not None and extent is not None:
                    state.vector = (page_no, page_no, (extent[0], extent[2]))
    chars = sum(len(r["text"]) for r in rows)
    bad = int(page_signals.get("_bad_chars") or 0)
    if chars and bad / chars >= GARBLED_SHARE:
        reasons.append(f"garbled_text: {bad / chars:.0%} unreadable characters")
        regions.append((0.0, 0.0, width, height))
    if reasons:  # where the model would change roles: escalate.expected_gain reads the lines there
        page_signals["_escalation_regions"] = regions
    if continued and not reasons:
        page_signals["escalation_signals"] = f"layout_continuation (p{first_page}): " + "; ".join(continued)
    return reasons


def _boxes(page) -> list[tuple[float, float, float, float, str]]:
    _ensure_model()
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
