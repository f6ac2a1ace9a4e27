"""cross_ref_df: free rows at parse time, and the regex extractor the loop calls on demand.

Parse time costs nothing extra: native PDF links (internal GOTO links with
their target page, URI links to the outside), one ``toc_anchor`` row per
section and one ``object_registry`` row per registered object. In-prose
references ("see Section 4.2", "Table 3 row (E)") come from
:func:`extract_references`, run by the loop on the few lines it needs (or on
everything with ``--eager-refs``). The patterns are data in
:mod:`docintel.parsing.refpatterns`.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from docintel.parsing import linecols
from docintel.parsing.refpatterns import PATTERNS, classify_reference, find_references, references_on_lines
from docintel.parsing.signals import native_links
from docintel.schema.tables import CROSS_REF_DF

__all__ = ["PATTERNS", "classify_reference", "extract_references", "parse_time_refs"]

_LINK_GOTO, _LINK_URI, _LINK_NAMED, _LINK_GOTOR = 1, 2, 4, 5


class _FrameLines:
    """The columns every page's :class:`_PageLines` take their rows from, read once per document."""

    def __init__(self, lines: pd.DataFrame) -> None:
        self.box = lines[["x0", "y0", "x1", "y1"]].to_numpy(dtype=float)
        self.line = lines["line"].tolist()
        self.text = linecols.tolist(lines["text"])


class _PageLines:
    """One page's lines as plain arrays (built once per page, not once per link)."""

    def __init__(self, cols: _FrameLines, pos: np.ndarray) -> None:
        self.box = cols.box[pos]
        ks = pos.tolist()  # (a list's items by Python ints: numpy ints index it slowly)
        self.line = [cols.line[k] for k in ks]
        self.text = [cols.text[k] for k in ks]
        self.y0 = self.box[:, 1]

    def __len__(self) -> int:
        return len(self.line)


def _argsort_like_pandas(v: np.ndarray) -> np.ndarray:
    """Positions of ``v`` in ascending order exactly as ``DataFrame.sort_values`` orders them."""
    idx = np.arange(len(v))
    nan = np.isnan(v)
    return np.concatenate([idx[~nan][v[~nan].argsort(kind="quicksort")], idx[nan]])


def _box(rect) -> tuple:
    """``tuple(rect)``: a pymupdf Rect's four coordinates read as attributes (its ``__getitem__``
    indexes that very tuple, and ``tuple()`` calls it five times), any other sequence as is."""
    x0 = getattr(rect, "x0", None)
    return tuple(rect) if x0 is None else (x0, rect.y0, rect.x1, rect.y1)


def _lines_at(lines: _PageLines | None, rects: list) -> list[int | None]:
    """Per rectangle, the position of the line with the largest overlap with it (None when no line
    overlaps it; lines of one page): one (rectangles x lines) overlap matrix for the page."""
    if lines is None or not len(lines):
        return [None] * len(rects)
    box = lines.box
    r = np.array(rects, dtype=float).reshape(-1, 4)
    ox = (np.minimum(box[None, :, 2], r[:, 2:3]) - np.maximum(box[None, :, 0], r[:, 0:1])).clip(min=0)
    oy = (np.minimum(box[None, :, 3], r[:, 3:4]) - np.maximum(box[None, :, 1], r[:, 1:2])).clip(min=0)
    area = ox * oy
    best = area.argmax(axis=1).tolist()
    return [None if m <= 0 else b for m, b in zip(area.max(axis=1).tolist(), best, strict=True)]


def _target_line(lines: _PageLines | None, y: float | None) -> int | None:
    """The first line (by top edge) that ends below ``y``, else the page's lowest line."""
    if lines is None or not len(lines) or y is None:
        return None
    below = np.flatnonzero(lines.box[:, 3] >= y - 2)
    if len(below):
        top = lines.y0[below]
        k = int(np.argmin(top))
        # a single lowest top edge without NaN is first in any order; ties and NaN keep pandas' order
        if np.isnan(top[k]) or int(np.count_nonzero(top == top[k])) > 1:
            k = int(_argsort_like_pandas(top)[0])
        return int(lines.line[below[k]])
    return int(lines.line[_argsort_like_pandas(lines.y0)[-1]])


def _classify_link(anchor: str, line_text: str, target_page: int | None, bib_pages: set[int]):
    """Type of an internal link from its anchor and the words just before it on its line.

    LaTeX links often cover only a number ("35," of "[35, 2, 5]", "1" of "Figure 1"):
    a number pointing into the bibliography is a citation; otherwise the words
    just before the anchor on its line say what the number is.
    """
    a = anchor.strip("[](),.;: ")
    if re.fullmatch(r"[0-9]{1,4}", a) and target_page in bib_pages:
        return "bib", a, None
    ref_type, target, sub = classify_reference(anchor)
    if ref_type != "unknown":
        return ref_type, target, sub
    pos = line_text.find(anchor) if anchor else -1
    lo = max(0, pos - 20)
    window = line_text[lo : pos + len(anchor) + 1] if pos >= 0 else anchor
    # (a window that is the anchor itself, a whole linked line, holds no reference: classify_reference
    # read that very text and found none)
    if pos >= 0 and window != anchor:
        for r in find_references(window):
            if (
                r["start"] <= pos - lo + len(anchor)
                and r["end"] >= pos - lo
                and (not a or r["ref_target"] == a)
            ):
                return r["ref_type"], r["ref_target"], r["sub_selector"]
    if re.fullmatch(r"[0-9]+(?:\.[0-9]+)+", a):
        return "section", a, None
    return "unknown", a or None, None


def page_links(
    page, links: list[dict] | None = None, *, textpage=None, words: list | None = None
) -> list[tuple[dict, str]]:
    """The page's native links (:func:`signals.native_links`, or ``links`` when the caller has them), each with
    its anchor text: the words whose centres lie under the link rectangle (``get_textbox`` is
    ~100x slower). ``textpage``: read the words from it (the page stage's own text page);
    ``words``: that text page's ``get_text("words")`` when the caller already read it."""
    links = native_links(page) if links is None else links
    if not links:
        return []
    if words is None:
        words = page.get_text("words", textpage=textpage)
    if not words:
        return [(lk, "") for lk in links]
    # the word tuples' fields as columns (one transpose), every link's rectangle against every
    # word centre at once: a (links x words) mask, each row's words in the page's word order
    x0, y0, x1, y1, wtext = list(zip(*words, strict=False))[:5]
    cx = (np.array(x0, dtype=float) + np.array(x1, dtype=float)) / 2
    cy = (np.array(y0, dtype=float) + np.array(y1, dtype=float)) / 2
    r = np.array([_box(lk["from"]) for lk in links], dtype=float).reshape(-1, 4)
    under = (
        (r[:, 0:1] <= cx[None, :])
        & (cx[None, :] <= r[:, 2:3])
        & (r[:, 1:2] <= cy[None, :])
        & (cy[None, :] <= r[:, 3:4])
    )
    rows, cols = np.nonzero(under)  # row-major: each link's words in ascending word order
    hits: list[list[str]] = [[] for _ in links]
    for k, j in zip(rows.tolist(), cols.tolist(), strict=True):
        hits[k].append(wtext[j])
    return [(lk, " ".join(h)) for lk, h in zip(links, hits, strict=True)]


def parse_time_refs(
    doc, line_df, toc_df, registry, doc_id: str, *, links: dict | None = None
) -> pd.DataFrame:
    """Native links, toc anchors and registry rows (source native_link/toc_anchor/object_registry).

    ``links``: :func:`page_links` per page number, as the page stage computed them; a page
    missing from it is read from ``doc``.
    """
    links = links or {}
    rows: list[dict] = []
    bib = registry[registry["object_type"] == "bib"] if len(registry) else registry
    bib_pages = set(bib["page"].astype(int)) if len(bib) else set()
    positions = line_df.groupby("page").indices if len(line_df) else {}
    page_lines: dict[int, _PageLines] = {}
    frame: list[_FrameLines] = []  # built on the first page that needs it
    classified: dict[tuple, tuple] = {}

    def lines_of(p: int) -> _PageLines | None:
        if p not in page_lines and p in positions:
            if not frame:
                frame.append(_FrameLines(line_df))
            page_lines[p] = _PageLines(frame[0], positions[p])
        return page_lines.get(p)

    for i in range(doc.page_count):
        page_no = i + 1
        if page_no in links:
            items = links[page_no]
        else:
            try:
                items = page_links(doc[i])
            except Exception:  # a broken annotation array: the page simply has no usable links
                continue
        if not items:
            continue
        pl = lines_of(page_no)
        origins = _lines_at(pl, [_box(lk["from"]) for lk, _ in items])
        for (lk, anchor), origin in zip(items, origins, strict=True):
            row = {
                "origin_page": page_no,
                "origin_line": int(pl.line[origin]) if origin is not None else None,
                "anchor_text": anchor or None,
                "source": "native_link",
            }
            kind = lk.get("kind")
            if kind in (_LINK_URI, _LINK_GOTOR):
                row.update(ref_type="external", ref_target=lk.get("uri") or lk.get("file"))
            elif (
                kind in (_LINK_GOTO, _LINK_NAMED)
                and lk.get("page", -1) is not None
                and lk.get("page", -1) >= 0
            ):
                tp = int(lk["page"]) + 1
                to = lk.get("to")
                line_text = str(pl.text[origin]) if origin is not None else anchor
                # one classification per (anchor, line, target in the bibliography): a pure function of them
                key = (anchor, line_text, tp in bib_pages)
                if key not in classified:
                    classified[key] = _classify_link(anchor, line_text, tp, bib_pages)
                ref_type, target, sub = classified[key]
                row.update(
                    ref_type=ref_type,
                    ref_target=target,
                    sub_selector=sub,
                    target_page=tp,
                    target_line=_target_line(lines_of(tp), float(to.y) if to is not None else None),
                )
            else:
                continue
            rows.append(row)
    # (only the columns read, each as one list: the values frame_rows.rows' fields held)
    toc_cols = ("page_start", "line_start", "number", "title", "toc_id")
    for page_start, line_start, number, title, toc_id in _columns(toc_df, toc_cols):
        rows.append(
            {
                "origin_page": page_start,
                "origin_line": line_start,
                "anchor_text": f"{number if isinstance(number, str) else ''} {title}".strip(),
                "ref_type": "section",
                "ref_target": toc_id,
                "target_page": page_start,
                "target_line": line_start,
                "source": "toc_anchor",
            }
        )
    reg_cols = ("page", "line_start", "label", "object_type", "object_id")
    for page, line_start, label, object_type, object_id in _columns(registry, reg_cols):
        rows.append(
            {
                "origin_page": page,
                "origin_line": line_start,
                "anchor_text": label,
                "ref_type": object_type,
                "ref_target": object_id,
                "target_page": page,
                "target_line": line_start,
                "source": "object_registry",
            }
        )
    if not rows:
        return CROSS_REF_DF.empty()
    df = pd.DataFrame(rows)
    df["doc_id"] = doc_id
    return CROSS_REF_DF.conform(df)


def _columns(df: pd.DataFrame, names: tuple[str, ...]):
    """The rows of ``df``'s columns ``names`` as tuples (``Series.tolist()``'s values); none when empty."""
    if not len(df):
        return ()
    return zip(*(df[n].tolist() for n in names), strict=True)


def extract_references(lines: pd.DataFrame, doc_id: str) -> pd.DataFrame:
    """Regex extraction of in-prose references from ``lines`` (source='regex').

    ``lines`` needs page, line and text. A reference broken over a line end
    ("Sections 3 and" / "4") is found by reading a little of the next line of
    the same page; it is reported once, on the line where it starts.
    """
    if lines is None or len(lines) == 0:
        return CROSS_REF_DF.empty()
    ordered = lines.sort_values(["page", "line"])
    triples = list(
        zip(
            ordered["page"].tolist(),
            ordered["line"].tolist(),
            ordered["text"].astype(str).tolist(),
            strict=True,
        )
    )
    rows: list[dict] = []
    for k, found in references_on_lines(triples):
        for r in found:
            rows.append(
                {
                    "doc_id": doc_id,
                    "origin_page": int(triples[k][0]),
                    "origin_line": int(triples[k][1]),
                    "anchor_text": r["anchor_text"],
                    "ref_type": r["ref_type"],
                    "ref_target": r["ref_target"],
                    "sub_selector": r["sub_selector"],
                    "source": "regex",
                }
            )
    return CROSS_REF_DF.conform(pd.DataFrame(rows)) if rows else CROSS_REF_DF.empty()
