"""Heading candidates from numbering and typography (used by toc.py).

The fast line table carries only each line's *dominant* font, so this module
re-reads the spans once to learn, per line, how much of it is bold and whether
it is rotated (tiny rotated labels inside vector figures must never become
headings). Lines that share a baseline ("1." and "Introduction" emitted as two
lines) are joined into one candidate; a fragment lying inside another one on
the same baseline (NIST emits "1.1" and "1.1 Authority" at the same place) is
an artefact and dropped.
"""

from __future__ import annotations

import bisect
import functools
import math
import operator
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from docintel.parsing.lines import _fast_flags

#: Font names that mean bold even when the bold flag is not set (Arial-Black, NimbusRomNo9L-Medi).
_BOLD_FONT = re.compile(r"bold|black|heavy|medi|semibold|demi|-bd\b|,b\b", re.I)
_FURNITURE = {"header", "footer", "page_number"}

# The heading detector's thresholds. The history does not record a measurement for any of
# them: unless a line says otherwise, each was set by hand on the dev PDFs; not measured.
#: Fraction of a line's characters in a bold font above which the line counts as bold
#: (tolerates a regular-weight number or punctuation mark in a bold heading).
BOLD_MIN_FRACTION = 0.8
#: Below this bold fraction a piece of a line counts as regular text (between the two: mixed).
REGULAR_MAX_FRACTION = 0.5
#: Italic fraction above which a candidate is italic (whole line in italics; set by hand, not measured).
ITALIC_MIN_FRACTION = 0.95
#: Fraction of a line's characters in rotated spans above which the line is rotated (majority).
ROTATED_MIN_FRACTION = 0.5
#: A line box this many times taller than wide is rotated text (set by hand on the dev PDFs; not measured).
ROTATED_TALL_RATIO = 2.5
#: Body size when a document has no lines (a common body size in points; not measured).
DEFAULT_BODY_SIZE = 10.0
#: A candidate at least this many points above the body size is "larger" (set by hand; not measured).
LARGER_BY_PT = 0.9
#: More than this many points below the body size is "smaller" (set by hand; not measured).
SMALLER_BY_PT = 1.6
#: More than this many points below the body size is never a heading (set by hand; not measured).
TOO_SMALL_BY_PT = 2.5
#: An unnumbered heading below body size by more than this needs to be a caps label (set by hand).
SLIGHTLY_SMALLER_BY_PT = 0.5
#: Longest heading, in characters and in words (set by hand on the dev PDFs; not measured).
MAX_HEADING_CHARS = 160
MAX_HEADING_WORDS = 20
#: A gap wider than this many font sizes splits a baseline into separate pieces (table cells,
#: author names); regular-then-bold across more than COLUMN_GAP_EM starts another column
#: (both set by hand on the dev PDFs; not measured).
CELL_GAP_EM = 2.5
COLUMN_GAP_EM = 0.5
#: Lines on one baseline: bottoms within this many sizes, tops within BASELINE_TOP_EM (set by hand).
BASELINE_BOTTOM_EM = 0.35
BASELINE_TOP_EM = 0.6
#: A line above within this many font sizes belongs to the same paragraph (set by hand; not measured).
PARA_GAP_EM = 1.6
#: A text line whose direction has a sine above this is rotated (about 12 degrees; set by hand).
ROTATED_DIR_MIN = 0.2
#: Smallest font size the gap rules scale by, so tiny text is not split at every gap (set by hand).
MIN_GAP_SIZE_PT = 6.0
#: Share of the long words that must be capitalised for Title Case (set by hand; not measured).
TITLE_CASE_MIN_FRACTION = 0.7

#: Numbering schemes a heading can start with: (name, regex). Group "num" is the number,
#: group "title" the rest. Order matters: the first match wins.
NUMBERING: list[tuple[str, re.Pattern]] = [
    (
        "appendix",
        re.compile(
            r"^(?P<kw>appendix|annex|exhibit|schedule|attachment)\s*(?P<num>[A-Z]|[0-9]{1,2}|[IVX]{1,4})?\b"
            r"\s*[:.\-\u2013\u2014]?\s*(?P<title>.*)$",
            re.I,
        ),
    ),
    (
        "part",
        re.compile(
            r"^(?P<kw>part|chapter)\s+(?P<num>[0-9]{1,3}|[IVX]{1,5})\b\s*[:.\-\u2013\u2014]?\s*(?P<title>.*)$",
            re.I,
        ),
    ),
    ("section_sign", re.compile(r"^\u00a7\s*(?P<num>[0-9]+(?:\.[0-9]+)*[a-z]?)\s*(?P<title>.*)$")),
    (
        "decimal",
        re.compile(r"^(?P<num>[0-9]{1,2}(?:\.[0-9]{1,2}){0,4})(?:\.|\s)\s*(?P<title>(?![a-z])[^\W\d_].*)$"),
    ),
    ("letter_decimal", re.compile(r"^(?P<num>[A-Z](?:\.[0-9]{1,2}){1,4})\.?\s+(?P<title>[A-Z].*)$")),
    # IEEE style: "IV. EXPERIMENTS", "B. Training Details"
    ("roman", re.compile(r"^(?P<num>[IVX]{1,5})\.\s+(?P<title>[A-Z].*)$")),
    ("letter", re.compile(r"^(?P<num>[A-H])\.\s+(?P<title>[A-Z][a-z]+.*)$")),
    (
        "paragraph",
        re.compile(
            r"^(?P<num>\((?:[a-z]{1,2}|[0-9]{1,2}|[ivx]{1,4})\))\s+(?P<title>(?![a-z])[^\W\d_].*|[\u300c\u201c\u0022].*)$"
        ),
    ),
]


def is_bold_font(font: str | None) -> bool:
    """True when the font name says bold (including Black/Medium weights used as bold)."""
    return bool(font) and _bold_name(font)


@functools.lru_cache(maxsize=4096)
def _bold_name(font: str) -> bool:
    return bool(_BOLD_FONT.search(font))


@functools.lru_cache(maxsize=4096)
def _italic_name(font: str) -> bool:
    return bool(_ITALIC_FONT.search(font))


_ITALIC_FONT = re.compile(r"italic|oblique", re.I)


@dataclass(frozen=True)
class PageSpans:
    """One page's inked spans: rows of (cx, cy, chars, bold, rotated, italic), and their texts."""

    arr: np.ndarray
    texts: list[str]


#: :func:`_span_style` by (flags, font), shared by every page (bounded: cleared when it grows large).
_SPAN_STYLE: dict[tuple, tuple[float, float]] = {}


def _span_style(flags: int, font: str) -> tuple[float, float]:
    """A span's (bold, italic) as 0.0 / 1.0: its flags, else its font's name."""
    if len(_SPAN_STYLE) > 4096:
        _SPAN_STYLE.clear()
    return float(bool(flags & 16) or is_bold_font(font)), float(bool(flags & 2) or _italic_name(font))


def page_spans(page_dict: dict) -> PageSpans | None:
    """The inked spans of one page's ``get_text("dict")``, as :func:`span_features` needs them.

    The page stage already holds this dict, so it calls this once per page and
    :func:`span_features` never has to read the page again. None when the page has no text.
    """
    spans = []
    texts = []
    style = _SPAN_STYLE  # (flags, font) -> (bold, italic) as floats: a few dozen per document
    for b in page_dict["blocks"]:
        for ln in b.get("lines", []):
            rot = float(abs(ln["dir"][1]) > ROTATED_DIR_MIN)
            for s in ln["spans"]:
                text = s["text"]
                n = len(text.strip())
                if n:
                    x0, y0, x1, y1 = s["bbox"]
                    key = (s["flags"], s["font"])
                    bi = style.get(key)
                    if bi is None:
                        bi = style[key] = _span_style(*key)
                    spans += ((x0 + x1) / 2, (y0 + y1) / 2, n, bi[0], rot, bi[1])
                    texts.append(text)
    if not spans:
        return None
    # one flat float list, six values a span: the same float64 rows as an array of tuples, cheaper
    return PageSpans(np.array(spans, dtype=float).reshape(-1, 6), texts)


def span_features(
    doc, line_df: pd.DataFrame, spans: dict[int, PageSpans | None] | None = None
) -> pd.DataFrame:
    """Per line: fraction of characters in a bold font, and whether its text is rotated.

    ``spans``: :func:`page_spans` per page number, as the page stage computed them; a page
    missing from it is read from ``doc``.
    Returns a frame indexed like ``line_df`` with columns ``boldfrac`` and ``rotated``.
    """
    boldfrac = np.zeros(len(line_df))
    italfrac = np.zeros(len(line_df))
    rotated = np.zeros(len(line_df), dtype=bool)
    lead: list[str | None] = [None] * len(line_df)
    spans = spans or {}
    # whole-frame columns once; each page takes its rows by position (no per-page pandas work)
    box_all = line_df[["x0", "y0", "x1", "y1"]].to_numpy(dtype=float)
    fallback_all = (
        line_df["bold"].fillna(False).astype(bool).to_numpy() | _bold_fonts(line_df["font"])
    ).astype(float)
    long_all = line_df["text"].astype(str).str.len().to_numpy() >= 3
    for page_no, ix in line_df.groupby("page").indices.items():
        if int(page_no) in spans:
            got = spans[int(page_no)]
        else:
            try:
                # no image decoding: it is most of get_text("dict")'s time on figure pages
                got = page_spans(doc[int(page_no) - 1].get_text("dict", flags=_fast_flags()))
            except Exception:  # a page the backend could not read: keep defaults
                continue
        if got is None:
            continue
        arr, texts = got.arr, got.texts
        box = box_all[ix]
        # (line, span) pairs whose span centre falls inside the line box, line by line
        at, sp, starts = _inside_pairs(arr, box)
        # character counts times 0/1 flags: integer sums, exact in any order
        chars = arr[sp, 2]
        tot = np.bincount(at, weights=chars, minlength=len(box))
        sums = [np.bincount(at, weights=chars * arr[sp, c], minlength=len(box)) for c in (3, 4, 5)]
        bfrac = np.where(tot > 0, sums[0] / np.maximum(tot, 1), np.nan)
        rot = np.where(tot > 0, sums[1] / np.maximum(tot, 1) > ROTATED_MIN_FRACTION, False)
        bfrac = np.where(np.isnan(bfrac), fallback_all[ix], bfrac)
        # a rotated line has a tall, narrow box for its text
        tall = long_all[ix] & (
            (box[:, 3] - box[:, 1]) > ROTATED_TALL_RATIO * np.maximum(box[:, 2] - box[:, 0], 1)
        )
        boldfrac[ix] = bfrac
        italfrac[ix] = np.where(tot > 0, sums[2] / np.maximum(tot, 1), 0.0)
        rotated[ix] = rot.astype(bool) | tall
        # a bold lead-in inside one line ("Acknowledgements We thank ..."): the run-in heading text
        # (the lines partly in bold, found by one mask; in page order as before)
        for row_i in np.flatnonzero((bfrac > 0.0) & (bfrac < BOLD_MIN_FRACTION)).tolist():
            order = sorted(sp[starts[row_i] : starts[row_i + 1]].tolist(), key=lambda k: arr[k, 0])
            head = []
            for k in order:
                if not arr[k, 3]:
                    break
                head.append(texts[k])
            text = "".join(head).strip()
            if len(text) >= 3 and len(head) < len(order):
                lead[ix[row_i]] = text
    return pd.DataFrame(
        {"boldfrac": boldfrac, "italfrac": italfrac, "rotated": rotated, "lead": lead}, index=line_df.index
    )


def _bold_fonts(font: pd.Series) -> np.ndarray:
    """Per line, whether its font name says bold: tested once per distinct name (missing: False)."""
    codes, names = pd.factorize(font, use_na_sentinel=True)
    flags = np.array([isinstance(f, str) and is_bold_font(f) for f in names] + [False], dtype=bool)
    return flags[codes]  # code -1 (a missing name) reads the trailing False


def _inside_pairs(arr: np.ndarray, box: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(line, span) index pairs with the span centre inside the line box (1 pt slack), and offsets.

    The pairs are ``np.nonzero`` of the lines x spans test, in its order (line by line, spans
    ascending); ``starts[i]:starts[i + 1]`` are line i's. Spans are taken per line from their
    centres sorted by height, so a table page's thousands of spans are not tested against
    every line; the full test then runs on those pairs only (a NaN never passes it).
    """
    n_lines = len(box)
    by_y = np.argsort(arr[:, 1], kind="stable")
    cy = arr[by_y, 1]
    lo = np.searchsorted(cy, box[:, 1] - 1, side="left")
    hi = np.maximum(np.searchsorted(cy, box[:, 3] + 1, side="right"), lo)
    counts = hi - lo
    line = np.repeat(np.arange(n_lines), counts)
    first = np.cumsum(counts) - counts
    span = by_y[np.arange(int(counts.sum())) - np.repeat(first, counts) + np.repeat(lo, counts)]
    x, y = arr[span, 0], arr[span, 1]
    ok = (x >= box[line, 0] - 1) & (x <= box[line, 2] + 1) & (y >= box[line, 1] - 1) & (y <= box[line, 3] + 1)
    line, span = line[ok], span[ok]
    order = np.lexsort((span, line))
    line, span = line[order], span[order]
    starts = np.searchsorted(line, np.arange(n_lines + 1), side="left")
    return line, span, starts


def body_size(line_df: pd.DataFrame) -> float:
    """The most common font size weighted by characters (the body text size)."""
    if line_df.empty:
        return DEFAULT_BODY_SIZE
    w = line_df["text"].str.len().groupby(line_df["size"].round(0)).sum()
    return float(w.idxmax()) if len(w) else DEFAULT_BODY_SIZE


@dataclass(slots=True)
class Candidate:
    """A possible heading: one or more joined lines (slots: one is built per text line)."""

    page: int
    line: int  # first line of the heading
    lines: list[int]  # every line_df line that belongs to it (incl. dropped artefacts)
    text: str
    size: float
    bold: bool
    x0: float
    y0: float
    x1: float
    y1: float
    font: str
    run_in: bool = False  # a bold lead-in followed by body text on the same baseline
    kind: str | None = None  # numbering scheme
    number: str | None = None
    title: str = ""
    extra: dict = field(default_factory=dict)


#: What some NUMBERING pattern needs at the start of a text (tested first: one match, not eight).
_MAY_NUMBER = re.compile(
    r"[0-9(\u00a7]|[A-Z][IVX]{0,4}\.|(?i:appendix|annex|exhibit|schedule|attachment|part|chapter)"
)


def split_number(text: str) -> tuple[str | None, str | None, str]:
    """Return (scheme, number, title) of a heading text; (None, None, text) when unnumbered."""
    # whitespace runs as one space, ends stripped (str.split() and regex \s share one whitespace set)
    t = " ".join(text.split())
    if not _MAY_NUMBER.match(t):
        return None, None, t  # no scheme can match: most lines start with a plain word
    for kind, rx in NUMBERING:
        m = rx.match(t)
        if not m:
            continue
        num = m.groupdict().get("num")
        title = (m.group("title") or "").strip(" :.-\u2013\u2014")
        if kind == "appendix":
            return kind, (num or None), (title or t)
        if kind == "part":
            return kind, num, title or t
        if kind == "decimal" and int(num.split(".")[0]) == 0:
            continue
        return kind, num, title
    return None, None, t


_X0 = operator.itemgetter("x0")
_PAGE_LINE = operator.attrgetter("page", "line")
_Y1_X0 = operator.itemgetter("y1", "x0")


def _baseline_groups(recs: list[dict]) -> list[list[dict]]:
    """Group a page's lines that sit on one baseline (same column), left to right."""
    groups: list[list[dict]] = []
    heads: list[tuple] = []  # each group's first line as (y1, y0, size, column), read once
    head_y1: list[float] = []  # the groups' y1, never decreasing (lines come sorted by y1)
    sizes = [s for s in (r["size"] for r in recs) if s == s]  # no NaN
    # a group whose y1 lies more than BASELINE_BOTTOM_EM x the page's largest size above a line
    # fails the baseline test: those are skipped by bisection (a margin keeps the rounding safe)
    reach = BASELINE_BOTTOM_EM * max(sizes) + 1e-6 if sizes else None
    if reach is not None and (not math.isfinite(reach) or any(r["y1"] != r["y1"] for r in recs)):
        reach = None  # a NaN size or bottom edge: no ordering to bisect
    for r in sorted(recs, key=_Y1_X0):
        ry1, ry0, rsize, rcol = r["y1"], r["y0"], r["size"], r["column"]
        start = len(groups) - 8  # sorted by y1: only recent groups can share the baseline
        if start < 0:
            start = 0
        if reach is not None:
            start = bisect.bisect_left(head_y1, ry1 - reach, start)  # never below ``start``
        for j in range(start, len(groups)):
            hy1, hy0, hsize, hcol = heads[j]
            m = hsize if hsize >= rsize else rsize  # max(), inlined: this loop runs per line
            if (
                abs(hy1 - ry1) <= BASELINE_BOTTOM_EM * m
                and abs(hy0 - ry0) <= BASELINE_TOP_EM * m
                and hcol == rcol
            ):
                groups[j].append(r)
                break
        else:
            groups.append([r])
            heads.append((ry1, ry0, rsize, rcol))
            head_y1.append(ry1)
    return [g if len(g) == 1 else sorted(g, key=_X0) for g in groups]


def _page_records(line_df: pd.DataFrame, feats: pd.DataFrame) -> dict[int, list[dict]]:
    """The candidate lines (no furniture, not rotated) of each page as dicts, in frame order.

    From whole columns once (``DataFrame.to_dict("records")`` boxes every value one by one);
    a missing column is -9 and a missing text its ``str()``, as the per-line readers expect.
    """
    keep = np.flatnonzero(~line_df["role"].isin(_FURNITURE).to_numpy(bool) & ~feats["rotated"].to_numpy(bool))
    cols = ["page", "line", "text", "x0", "y0", "x1", "y1", "size", "font", "column"]
    vals = [_take_list(line_df[c], keep) for c in cols]
    vals += [_take_list(feats[f], keep) for f in ("boldfrac", "italfrac", "lead")]
    texts, column = vals[2], vals[9]
    for k in np.flatnonzero(line_df["column"].iloc[keep].isna().to_numpy()).tolist():
        column[k] = -9
    vals[2] = [t if type(t) is str else str(t) for t in texts]
    by_page: dict[int, list[dict]] = {}
    page_list = None
    last = None
    for p, line, text, x0, y0, x1, y1, size, font, col, bf, itf, lead in zip(*vals, strict=True):
        if p != last:  # a page's lines are mostly contiguous: one dict lookup per run
            page_list = by_page.setdefault(int(p), [])
            last = p
        page_list.append(
            {
                "page": p,
                "line": line,
                "text": text,
                "x0": x0,
                "y0": y0,
                "x1": x1,
                "y1": y1,
                "size": size,
                "font": font,
                "column": col,
                "bf": bf,
                "itf": itf,
                "lead": lead,
            }
        )
    return by_page


def _take_list(col: pd.Series, keep: np.ndarray) -> list:
    """``col.iloc[keep].tolist()``; a numpy-typed column by its array (no pandas take)."""
    if isinstance(col.dtype, np.dtype):
        return col.to_numpy()[keep].tolist()
    return col.iloc[keep].tolist()


def candidates(line_df: pd.DataFrame, feats: pd.DataFrame) -> list[Candidate]:
    """Every line group that could be a heading, with its typography and numbering."""
    out: list[Candidate] = []
    for page_no, pl in _page_records(line_df, feats).items():
        geo = _PageGeo(pl)
        for frags in _baseline_groups(pl):
            if len(frags) == 1:  # most lines: alone on their baseline, one segment, no artefact
                out.append(_single(page_no, frags[0], geo))
                continue
            keep, dropped = [], []
            for r in frags:
                # a fragment contained in a wider one on the same baseline is a duplicate artefact
                dup = any(
                    o is not r
                    and o["x0"] <= r["x0"] + 1
                    and o["x1"] >= r["x1"] - 1
                    and (o["x1"] - o["x0"]) > (r["x1"] - r["x0"]) + 2
                    for o in frags
                )
                (dropped if dup else keep).append(r)
            segs = _segments(keep)
            bold_segs = sum(1 for seg in segs if seg[0]["bf"] >= BOLD_MIN_FRACTION)
            for seg in segs:
                start = _starts_paragraph(seg[0], geo)
                c = _candidate(page_no, seg, dropped, geo, start)
                c.extra["para_start"] = start
                # three or more separate bold pieces on one baseline: a table header row
                c.extra["table_row"] = len(segs) >= 3 and (bold_segs >= 3 or not c.bold)
                out.append(c)
    out.sort(key=_PAGE_LINE)
    return out


#: Author lines (footnote marks, e-mail), continued table captions: never headings.
_NOT_HEADING = re.compile(r"[\u2217\u2020\u2021*@]|\bcontinued\W*$", re.I)


def _segments(frags: list[dict]) -> list[list[dict]]:
    """Split one baseline into pieces that could each be a heading.

    A wide gap separates table cells or author names; regular text followed by
    bold text across a gap is the start of another column (a heading never
    starts mid-line after regular text).
    """
    segs: list[list[dict]] = [[frags[0]]]
    for a, b in zip(frags[:-1], frags[1:], strict=False):
        gap = b["x0"] - a["x1"]
        size = max(float(a["size"]), MIN_GAP_SIZE_PT)
        col_start = gap > COLUMN_GAP_EM * size and a["bf"] < REGULAR_MAX_FRACTION <= b["bf"]
        if gap > CELL_GAP_EM * size or col_start:
            segs.append([b])
        else:
            segs[-1].append(b)
    return segs


class _PageGeo:
    """A page's candidate lines ordered by bottom edge, so 'the line just above' is a bisect."""

    def __init__(self, recs: list[dict]) -> None:
        self.recs = recs
        self.order = sorted(range(len(recs)), key=lambda i: (recs[i]["y1"], i))
        self.y1 = [recs[i]["y1"] for i in self.order]
        self._tops: tuple[list, list] | None = None  # (y0, x0) of the lines by top edge, on first use
        self._scan = False

    def left_edge_below(self, y: float, below: float, x0: float) -> bool:
        """Any line with ``y < y0 < y + below`` and its left edge within 2 pt of ``x0``."""
        if self._tops is None:
            tops = sorted((r["y0"], r["x0"]) for r in self.recs)
            if any(t != t for t, _ in tops):  # a NaN top: no order to bisect, scan every line
                tops = None
            self._tops = ([t for t, _ in tops], [x for _, x in tops]) if tops is not None else ([], [])
            self._scan = tops is None
        if self._scan:
            return any(y < o["y0"] < y + below and abs(o["x0"] - x0) <= 2 for o in self.recs)
        ys, xs = self._tops
        lo, hi = bisect.bisect_right(ys, y), bisect.bisect_left(ys, y + below)
        return any(abs(xs[k] - x0) <= 2 for k in range(lo, hi))


def _starts_paragraph(r: dict, geo: _PageGeo) -> bool:
    """No line just above it in its column, or the one above ends a sentence (``r`` is one of geo's)."""
    lo = bisect.bisect_left(geo.y1, r["y0"] - PARA_GAP_EM * r["size"])
    hi = bisect.bisect_right(geo.y1, r["y0"] + 1)
    prev = None
    # ascending y1, ties in page order: keep the first of the lowest lines, as max() picks
    for i in geo.order[lo:hi]:
        o = geo.recs[i]
        overlaps = o is not r and o["x0"] < r["x1"] and o["x1"] > r["x0"]
        if overlaps and (prev is None or o["y1"] > prev["y1"]):
            prev = o
    if prev is None:
        return True
    return prev["text"].rstrip().endswith((".", ":", "!", "?"))


def _candidate(page_no: int, head: list[dict], dropped: list[dict], geo: _PageGeo, starts: bool) -> Candidate:
    """``starts``: :func:`_starts_paragraph` of ``head[0]``, computed by the caller."""
    first = head[0]
    run_in = False
    if (
        first["bf"] < BOLD_MIN_FRACTION
        and isinstance(first.get("lead"), str)
        and starts
        and not _emphasised_subject(first["lead"], first["text"])
    ):
        # the line starts with a bold lead-in followed by regular text: a run-in heading
        lead = {**first, "text": first_sentence(_respace(first["lead"], first["text"])), "bf": 1.0}
        return _candidate_from(page_no, [lead], [], run_in=True)
    if len(head) > 1 and first["bf"] >= BOLD_MIN_FRACTION:
        nb = [r for r in head if r["bf"] < REGULAR_MAX_FRACTION]
        if nb:
            reg = nb[0]
            # regular text whose left edge other lines below share is another column, not a run-in
            column_start = geo.left_edge_below(reg["y1"], 3 * reg["size"], reg["x0"])
            run_in = not column_start
            head = [r for r in head if r["bf"] >= REGULAR_MAX_FRACTION and r["x0"] < reg["x0"]]
    return _candidate_from(page_no, head, dropped, run_in=run_in)


class _LazyStart:
    """:func:`_starts_paragraph` of a line, computed when first asked for its truth value.

    Most candidates are never asked (only :func:`looks_like_heading`'s roman / letter branch and
    :func:`_italic_heading` read ``para_start``, through :func:`para_start`); the line's page
    records are not changed after :func:`candidates`, so the answer is the same either way.
    """

    __slots__ = ("r", "geo", "v")

    def __init__(self, r: dict, geo: _PageGeo) -> None:
        self.r, self.geo, self.v = r, geo, None

    def __bool__(self) -> bool:
        if self.v is None:
            self.v = _starts_paragraph(self.r, self.geo)
        return self.v

    def __eq__(self, other) -> bool:  # Candidate equality compares extras: by the value, as a bool did
        return bool(self) == bool(other)

    __hash__ = None

    def __repr__(self) -> str:
        return repr(bool(self))


def para_start(c: Candidate) -> bool:
    """Whether the candidate's first line opens a paragraph (``extra["para_start"]``; False if unset)."""
    return bool(c.extra.get("para_start", False))


def _single(page_no: int, r: dict, geo: _PageGeo) -> Candidate:
    """:func:`_candidate` of a line alone on its baseline, with its ``para_start`` / ``table_row``.

    The same steps as ``_candidate(page_no, [r], [], geo, start)`` then the two extra keys,
    inlined for the line that is not a run-in heading (most lines of a document).
    """
    bf = r["bf"]
    if bf < BOLD_MIN_FRACTION and isinstance(r["lead"], str):
        start = _starts_paragraph(r, geo)
        if start:
            c = _candidate(page_no, [r], [], geo, start)
            c.extra["para_start"] = start
            c.extra["table_row"] = False  # one piece on the baseline
            return c
    else:
        start = _LazyStart(r, geo)  # read by two rare typography tests only: computed on first use
    raw = r["text"]
    n = len(raw)
    text, m = raw.strip(), max(n, 1)
    itf = r["itf"] * n / m
    kind, num, title = split_number(text)
    line = int(r["line"])
    return Candidate(
        page_no,
        line,
        [line],
        text,
        float(r["size"]),
        bf * n / m >= BOLD_MIN_FRACTION,
        float(r["x0"]),
        float(r["y0"]),
        float(r["x1"]),
        float(r["y1"]),
        str(r["font"]),
        False,
        kind,
        num,
        title,
        {"italic": itf >= ITALIC_MIN_FRACTION, "para_start": start, "table_row": False},
    )


def _respace(lead: str, text: str) -> str:
    """The line's own spelling of a bold lead joined from spans without spaces ("NoNSP" -> "No NSP")."""
    want = lead.replace(" ", "")
    j = 0
    for i, ch in enumerate(text):
        if j == len(want):
            return text[:i].strip()
        if ch == " ":
            continue
        if ch != want[j]:
            return lead
        j += 1
    return text.strip() if j == len(want) else lead


_ABBREV = {
    "vs",
    "e.g",
    "i.e",
    "etc",
    "fig",
    "no",
    "eq",
    "cf",
    "al",
    "sec",
    "ch",
    "mr",
    "dr",
    "st",
    "ltd",
    "inc",
    "co",
}
_ABBREV |= {"corp", "jr", "sr", "u.s", "dept", "vol"}


def first_sentence(t: str) -> str:
    """A heading is at most a sentence: cut a run-in lead at its first full stop."""
    for m in re.finditer(r"[.!?](?=\s+[A-Z])", t):
        word = re.findall(r"[\w.]+$", t[: m.start()])
        rest = t[m.end() :].split()
        if word and len(word[0]) > 1 and word[0].lower().rstrip(".") not in _ABBREV and len(rest) >= 2:
            return t[: m.end()]
    return t


def _emphasised_subject(lead: str, text: str) -> bool:
    """True when a bold lead-in is the subject of its sentence, not a run-in heading.

    "Jim Bainbridge is a senior consultant", "Row permission is a rule": the regular text
    goes on in lower case with no stop after the bold words. A run-in heading ends with a
    stop ("Training.", "Note:") or the sentence after it starts anew ("Acknowledgements We").
    """
    lead = lead.strip()
    if not lead or lead[-1] in ".:;!?\u2014\u2013-)":
        return False
    i = text.find(lead)
    rest = text[i + len(lead) :] if i >= 0 else ""
    if re.match(r"\s*[(=,]", rest):
        return True  # "BERTBASE (L=12, ...)": a term being defined, not a heading
    m = re.match(r"\s*([^\W\d_])", rest)
    return bool(m) and m.group(1).islower()


def _candidate_from(page_no: int, head: list[dict], dropped: list[dict], *, run_in: bool) -> Candidate:
    first = head[0]
    if len(head) == 1:  # most candidates: one line, the same sums and extremes without the loops
        raw = first["text"]
        n = len(raw)
        text, m = raw.strip(), max(n, 1)
        bf = first["bf"] * n / m
        itf = first.get("itf", 0.0) * n / m
        x0, x1, y0, y1 = first["x0"], first["x1"], first["y0"], first["y1"]
        size, line = first["size"], first["line"]
        kind, num, title = split_number(text)
        lines = [int(line)]
        if dropped:
            lines += [int(r["line"]) for r in dropped if r["x0"] >= x0 - 1 and r["x1"] <= x1 + 1]
        return Candidate(
            page_no,
            int(line),
            lines,
            text,
            float(size),
            bf >= BOLD_MIN_FRACTION,
            float(x0),
            float(y0),
            float(x1),
            float(y1),
            str(first["font"]),
            run_in,
            kind,
            num,
            title,
            {"italic": itf >= ITALIC_MIN_FRACTION},
        )
    text = " ".join(r["text"].strip() for r in head)
    chars = sum(len(r["text"]) for r in head)
    bf = sum(r["bf"] * len(r["text"]) for r in head) / max(chars, 1)
    itf = sum(r.get("itf", 0.0) * len(r["text"]) for r in head) / max(chars, 1)
    x0, x1 = min(r["x0"] for r in head), max(r["x1"] for r in head)
    y0, y1 = min(r["y0"] for r in head), max(r["y1"] for r in head)
    size, line = max(r["size"] for r in head), min(r["line"] for r in head)
    kind, num, title = split_number(text)
    dup = [r for r in dropped if r["x0"] >= x0 - 1 and r["x1"] <= x1 + 1]
    return Candidate(
        page=page_no,
        line=int(line),
        lines=[int(r["line"]) for r in head + dup],
        text=text,
        size=float(size),
        bold=bf >= BOLD_MIN_FRACTION,
        x0=float(x0),
        y0=float(y0),
        x1=float(x1),
        y1=float(y1),
        font=str(first["font"]),
        extra={"italic": itf >= ITALIC_MIN_FRACTION},
        run_in=run_in,
        kind=kind,
        number=num,
        title=title,
    )


_MONO = re.compile(r"courier|mono|consol|menlo|typewriter|code|cmtt|sftt", re.I)
_TWO_LETTERS = re.compile(r"[^\W\d_]{2}")
_CAPTION_START = re.compile(r"(?i:table|figure|fig\.|exhibit)\s*[0-9IVX][\w.\-]*\s*[:.\u2014\u2013]")


@functools.lru_cache(maxsize=4096)
def _mono(font: str) -> bool:
    """A monospace font name (a document has a few fonts: the test runs once per name)."""
    return bool(_MONO.search(font))


_SENTENCE_END = re.compile(r"[.;,]$")
_STOP_START = re.compile(r"^[a-z\u2022\u2013\u2014\-\*\u25cf\u00b7]")


def _italic_heading(c: Candidate, words: list[str], body: float) -> bool:
    """A standalone italic Title Case line at body size that starts a paragraph (manual style)."""
    long_words = [w for w in words if len(w) > 3]
    title_case = bool(long_words) and sum(
        w[0].isupper() for w in long_words
    ) >= TITLE_CASE_MIN_FRACTION * len(long_words)
    return (
        c.extra.get("italic", False)
        and not c.run_in
        and 2 <= len(words) <= 8
        and title_case
        and abs(c.size - body) < 1
        and para_start(c)
        and not re.search(r"[.,;:)]$", c.text.strip())
        and not c.extra.get("table_row")
    )


def looks_like_heading(c: Candidate, body: float, *, strict_numbered: bool = True) -> bool:
    """Typography and wording test for a candidate (before continuation joining)."""
    if c.kind is None and not c.bold and not c.extra.get("italic", False) and c.size < body + LARGER_BY_PT:
        return False  # plain body type, unnumbered: every branch below says no (most candidates)
    t = c.text.strip()
    words = t.split()
    if not words or len(t) > MAX_HEADING_CHARS or len(words) > MAX_HEADING_WORDS:
        return False
    # a heading has words (any script) and does not start like running text or a bullet
    if _STOP_START.match(t) or not _TWO_LETTERS.search(c.title or t):
        return False
    if _CAPTION_START.match(t):
        return False  # a caption, not a heading
    if _mono(c.font or ""):
        return False  # code listings are set in monospace, headings never are
    larger = c.size >= body + LARGER_BY_PT
    smaller = c.size < body - SMALLER_BY_PT
    if c.kind in ("roman", "letter"):
        # small caps / italic headings of two-column papers are not bold: ask for a paragraph start
        styled = (
            c.bold or larger or c.extra.get("italic") or (c.kind == "roman" and (c.title or "").isupper())
        )
        return bool(styled) and para_start(c) and len(words) <= 12 and not _SENTENCE_END.search(t)
    if c.kind in ("decimal", "letter_decimal", "appendix", "section_sign", "part"):
        strong = c.bold or larger
        if c.kind == "appendix" and c.number is None and not strong:
            return False
        if strict_numbered and not strong:
            return False
        if c.kind == "decimal" and not re.match(r"(?![a-z])[^\W\d_]", c.title or ""):
            return False
        return not (_SENTENCE_END.search(t) and len(words) > 8)
    if c.kind == "paragraph":
        return c.bold and not _SENTENCE_END.search(t) and len(words) <= 16
    if not (c.bold or larger) and _italic_heading(c, words, body):
        return True
    if not (c.bold or larger) or (smaller and not c.bold):
        return False
    if c.size < body - TOO_SMALL_BY_PT:
        return False
    if _SENTENCE_END.search(t) and not t.endswith(":"):
        return False
    if len(words) > 14 or t[0].islower() or not (t[0].isalnum() or t[0] in "\u00a7("):
        return False
    caps_label = t.upper() == t and len(words) >= 2 and c.bold and not c.run_in and not re.search(r"\d", t)
    if c.extra.get("table_row"):
        return False
    if (c.size < body - SLIGHTLY_SMALLER_BY_PT and not caps_label) or _NOT_HEADING.search(t):
        return False
    return not re.fullmatch(r"[\d\s.,:%()\-\u2013]+", t)
