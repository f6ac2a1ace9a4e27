"""Span features of heading detection: per line, how much is bold / italic, whether it is rotated.

The fast line table carries only each line's *dominant* font, so heading detection re-reads
the spans once (:func:`page_spans`, in the page stage's walk of each page's dict) to learn,
per line, how much of it is bold and whether it is rotated (tiny rotated labels inside vector
figures must never become headings), and a bold lead-in inside a line (a run-in heading).
Split from :mod:`docintel.parsing.headings`, which re-exports every name.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: Font names that mean bold even when the bold flag is not set (Arial-Black, NimbusRomNo9L-Medi).
_BOLD_FONT = re.compile(r"bold|black|heavy|medi|semibold|demi|-bd\b|,b\b", re.I)

# The heading detector's thresholds. The history does not record a measurement for any of
# them: unless a line says otherwise, each was set by hand on the dev PDFs; not measured.
#: Fraction of a line's characters in a bold font above which the line counts as bold
#: (tolerates a regular-weight number or punctuation mark in a bold heading).
BOLD_MIN_FRACTION = 0.8
#: Fraction of a line's characters in rotated spans above which the line is rotated (majority).
ROTATED_MIN_FRACTION = 0.5
#: A line box this many times taller than wide is rotated text (set by hand on the dev PDFs; not measured).
ROTATED_TALL_RATIO = 2.5
#: A text line whose direction has a sine above this is rotated (about 12 degrees; set by hand).
ROTATED_DIR_MIN = 0.2


def _fast_flags() -> int:
    """The ``get_text("dict")`` flags of the fast path (here, not in :mod:`lines`: lines imports this)."""
    import pymupdf

    # TEXTFLAGS_DICT without TEXT_PRESERVE_IMAGES: decoding images is 80-90% of get_text("dict")
    # on figure-heavy pages and the lines do not need them (image boxes come from get_image_info).
    return pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES


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


def line_span_rows(line: dict, rows: list, texts: list) -> None:
    """Extend ``rows`` with six floats (x and y centre, inked characters, bold, rotated, italic) and
    ``texts`` with the text of each inked span of one ``get_text("dict")`` line: what
    :func:`page_spans` takes of a line. ``line_walk._raw_lines`` computes the same rows in its own
    walk of the page (``tests/test_s10ps2_spans.py`` holds the two equal)."""
    rot = float(abs(line["dir"][1]) > ROTATED_DIR_MIN)
    style = _SPAN_STYLE  # (flags, font) -> (bold, italic) as floats: a few dozen per document
    for s in line["spans"]:
        text = s["text"]
        n = len(text.strip())
        if n:
            x0, y0, x1, y1 = s["bbox"]
            key = (s["flags"], s["font"])
            bi = style.get(key)
            if bi is None:
                bi = style[key] = _span_style(*key)
            rows += ((x0 + x1) / 2, (y0 + y1) / 2, n, bi[0], rot, bi[1])
            texts.append(text)


def page_spans(page_dict: dict) -> PageSpans | None:
    """The inked spans of one page's ``get_text("dict")``, as :func:`span_features` needs them.

    The page stage builds these rows in its own walk of the dict (``line_walk._raw_lines``); OCR pages
    and callers without that walk call this. None when the page has no text.
    """
    spans: list = []
    texts: list = []
    for b in page_dict["blocks"]:
        for ln in b.get("lines", []):
            line_span_rows(ln, spans, texts)
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
    read: list[tuple[np.ndarray, PageSpans]] = []  # (line positions, spans) of each page with text
    for page_no, ix in line_df.groupby("page").indices.items():
        if int(page_no) in spans:
            got = spans[int(page_no)]
        else:
            try:
                # no image decoding: it is most of get_text("dict")'s time on figure pages
                got = page_spans(doc[int(page_no) - 1].get_text("dict", flags=_fast_flags()))
            except Exception:  # a page the backend could not read: keep defaults
                continue
        if got is not None:
            read.append((ix, got))
    if not read:
        return pd.DataFrame(
            {"boldfrac": boldfrac, "italfrac": italfrac, "rotated": rotated, "lead": lead},
            index=line_df.index,
        )
    # every page at once: the pages' lines and spans concatenated, pairs matched within each page
    ix = np.concatenate([r[0] for r in read])
    arr = np.concatenate([r[1].arr for r in read])
    texts = [t for r in read for t in r[1].texts]
    box = box_all[ix]
    # (line, span) pairs whose span centre falls inside the line box, line by line
    at, sp, starts = _inside_pairs(
        arr, box, np.cumsum([0] + [len(r[1].arr) for r in read]), np.cumsum([0] + [len(r[0]) for r in read])
    )
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


def _inside_pairs(
    arr: np.ndarray, box: np.ndarray, span_at=None, line_at=None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(line, span) index pairs with the span centre inside the line box (1 pt slack), and offsets.

    Pages are concatenated: page k's spans are ``arr[span_at[k]:span_at[k + 1]]``, its lines
    ``box[line_at[k]:line_at[k + 1]]`` (default: one page); a line pairs only with spans of its own
    page. The pairs are ``np.nonzero`` of each page's lines x spans test, in its order (line by
    line, spans ascending); ``starts[i]:starts[i + 1]`` are line i's. Spans are taken per line from their
    centres sorted by height, so a table page's thousands of spans are not tested against
    every line; the full test then runs on those pairs only (a NaN never passes it).
    """
    n_lines = len(box)
    span_at = [0, len(arr)] if span_at is None else np.asarray(span_at).tolist()
    line_at = [0, n_lines] if line_at is None else np.asarray(line_at).tolist()
    # spans by height within each page (a stable sort: ties keep their order, NaN last, as a
    # per-page argsort orders them)
    page = np.repeat(np.arange(len(span_at) - 1), np.diff(span_at))
    by_y = np.lexsort((arr[:, 1], page))
    cy_all = arr[by_y, 1]
    lo = np.empty(n_lines, dtype=np.intp)
    hi = np.empty(n_lines, dtype=np.intp)
    for k in range(len(span_at) - 1):
        a, b, la, lb = span_at[k], span_at[k + 1], line_at[k], line_at[k + 1]
        cy = cy_all[a:b]
        lo[la:lb] = np.searchsorted(cy, box[la:lb, 1] - 1, side="left") + a
        hi[la:lb] = np.searchsorted(cy, box[la:lb, 3] + 1, side="right") + a
    hi = np.maximum(hi, lo)
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
