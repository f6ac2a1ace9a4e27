"""Fast path: PyMuPDF text lines with typography, in reading order.

One ``page.get_text("dict")`` call (without image decoding, which is most of
its cost on scanned or figure-heavy pages) gives spans; :mod:`line_walk` reads
them into one dict per line and this module turns those into line_df rows:

- overprinted duplicates (fake bold, Word's doubled heading numbers) are dropped;
- fragments on the same baseline are merged ("3.2" + "Attention"), never across
  a column gutter;
- columns and reading order come from :mod:`docintel.parsing.columns`;
- rotated text is ``figure_text`` (inside the text area) or margin furniture
  (``header``: the arXiv stamp, the Federal Register's "jbell on DSK..." stamp);
- lines set mostly in math fonts are ``formula``; bullets and enumerators
  start ``list_item`` lines; rows of 3+ cells in 3+ rows are ``table``.

Keys starting with ``_`` are private hints for :mod:`furniture` and
:mod:`layout`; the backend drops them before the tables are built.
"""

from __future__ import annotations

import re

import numpy as np

from docintel.parsing import columns
from docintel.parsing.heading_spans import PageSpans
from docintel.parsing.heading_spans import _fast_flags as _fast_flags  # (read from here by ocr, signals)
from docintel.parsing.line_walk import _raw_lines
from docintel.parsing.textlayer import _UNMAPPABLE  # (_BAD_CHAR's and the supplementary private-use planes)

_MATH_CHARS = set("=+−×·∑∏∫√∂∇≤≥≈≠∈∉⊂⊆∪∩∞αβγδεθλμπσφψω^_|‖⟨⟩")
_MATH_CHAR = re.compile("[" + re.escape("".join(sorted(_MATH_CHARS))) + "]")
_LONG_WORD = re.compile(r"[A-Za-z]{4,}")
#: Replacement and private-use characters: text whose font encoding could not be read.
_BAD_CHAR = re.compile("[\ufffd\ue000-\uf8ff]")
_BULLET = re.compile(r"^([•◦▪▫‣∙●○■□➢►–\-\*]\s+|(\(?\d{1,2}[.)]|\(?[a-z][)]|\([a-z]{1,3}\)|\([ivx]+\))\s+\S)")
#: The characters a :data:`_BULLET` match can open with, besides decimal digits (``\d``).
_BULLET_FIRST = frozenset("•◦▪▫‣∙●○■□➢►–-*(abcdefghijklmnopqrstuvwxyz")
#: Largest horizontal gap (in font sizes) between fragments merged into one line.
MERGE_GAP_EM = 1.3


def _contains(big: dict, small: dict) -> bool:
    # (the conditional expressions are the two-argument builtins min(a, b) / max(a, b), NaN included)
    bx0, by0, bx1, by1 = big["x0"], big["y0"], big["x1"], big["y1"]
    sx0, sy0, sx1, sy1 = small["x0"], small["y0"], small["x1"], small["y1"]
    ix = (sx1 if sx1 < bx1 else bx1) - (sx0 if sx0 > bx0 else bx0)
    iy = (sy1 if sy1 < by1 else by1) - (sy0 if sy0 > by0 else by0)
    area = (sx1 - sx0) * (sy1 - sy0)
    area = 0.01 if area < 0.01 else area
    return ix > 0 and iy > 0 and ix * iy >= 0.8 * area


def _dedupe_and_merge(row: list[dict], gutters: list[tuple[float, float]]) -> list[dict]:
    """Drop overprinted duplicates within one visual row, then merge same-baseline fragments."""
    if len(row) == 1:  # most rows: nothing to drop or merge (the row's own dict: each line is in one row)
        return row
    keep: list[dict] = []
    for r in sorted(row, key=lambda r: -(r["x1"] - r["x0"])):
        if any(r["text"] in k["text"] and _contains(k, r) for k in keep):
            continue
        keep.append(r)
    keep.sort(key=lambda r: r["x0"])
    merged: list[dict] = []
    for r in keep:
        prev = merged[-1] if merged else None
        if prev is not None:
            gap = r["x0"] - prev["x1"]
            limit = MERGE_GAP_EM * max(prev["size"], r["size"])
            if -1.0 <= gap <= limit and not (
                gutters and any(prev["x1"] <= (g0 + g1) / 2 <= r["x0"] for g0, g1 in gutters)
            ):
                _absorb(prev, r)
                continue
        merged.append(dict(r))
    return merged


def _absorb(into: dict, other: dict) -> None:
    """Append ``other`` to ``into``; the typography of the longer part wins."""
    if other["_chars"] > into["_chars"]:
        for k in ("font", "size", "bold", "italic"):
            into[k] = other[k]
    into["text"] = f"{into['text']} {other['text']}"
    into["x1"] = max(into["x1"], other["x1"])
    into["y0"] = min(into["y0"], other["y0"])
    into["y1"] = max(into["y1"], other["y1"])
    into["_math"] += other["_math"]
    into["_ocr"] = into["_ocr"] or other["_ocr"]
    into["_chars"] += other["_chars"]


def _is_formula(r: dict) -> bool:
    chars = max(r["_chars"], 1)
    if r["_math"] >= 0.5 * chars:
        return True
    if _MATH_CHAR.search(r["text"]) is None:  # most lines: no symbol at all
        return False
    symbols = len(_MATH_CHAR.findall(r["text"]))
    if symbols < 2 or symbols < 0.15 * chars:
        return False
    return len(_LONG_WORD.findall(r["text"])) <= 2


def _attach_to_formulas(lines: list[dict]) -> None:
    """Small-type fragments touching a formula (an underbrace's "counter times", an index set
    below a sum) belong to it: role ``formula``, so they are never quoted as prose."""
    formulas = [r for r in lines if r["role"] == "formula"]
    if not formulas:  # (most pages: no sort of the body sizes)
        return
    body = sorted(r["size"] for r in lines if r["role"] == "body")
    if not body:
        return
    small = 0.85 * body[len(body) // 2]
    for r in lines:
        if r["role"] != "body" or r["size"] > small or len(r["text"].split()) > 3:
            continue
        gap = 0.8 * (r["y1"] - r["y0"])
        for f in formulas:
            overlaps_x = r["x0"] < f["x1"] and r["x1"] > f["x0"]
            touches_y = r["y0"] <= f["y1"] + gap and r["y1"] >= f["y0"] - gap
            if overlaps_x and touches_y:
                r["role"] = "formula"
                break


def _mark_tables(lines: list[dict], rows: list[list[dict]] | None = None) -> int:
    """Role ``table`` for the region of 3+ rows with 3+ separate cells (rows close together); returns
    how many lines it marked.

    Everything inside the region's box is table text: row labels centred between rows,
    cells set in math fonts. ``rows``: ``columns.group_rows(lines)`` when the caller has it.
    """
    rows = columns.group_rows(lines) if rows is None else rows
    # a region needs 3 rows of 3+ cells in one run: a page without them has none (most pages)
    if sum(1 for rw in rows if len(rw) >= 3) < 3:
        return 0
    regions: list[tuple[float, float, float, float]] = []
    run: list[list[dict]] = []

    def flush() -> None:
        if sum(1 for rw in run if len(rw) >= 3) >= 3:
            cells = [r for rw in run for r in rw]
            regions.append(
                (
                    min(r["x0"] for r in cells),
                    min(r["y0"] for r in cells),
                    max(r["x1"] for r in cells),
                    max(r["y1"] for r in cells),
                )
            )

    last_bottom = None
    singles = 0  # a lone row label ("(A)") between multi-cell rows does not end the table
    for rw in rows:
        h = rw[0]["y1"] - rw[0]["y0"] if len(rw) == 1 else max(r["y1"] - r["y0"] for r in rw)
        near = last_bottom is not None and rw[0]["y0"] - last_bottom <= 2.5 * h
        singles = singles + 1 if len(rw) < 2 else 0
        if run and near and singles <= 1:
            run.append(rw)
        else:
            flush()
            run = [rw] if len(rw) >= 2 else []
        last_bottom = rw[0]["y1"] if len(rw) == 1 else max(r["y1"] for r in rw)
    flush()
    marked = 0
    for x0, y0, x1, y1 in regions:
        box = {"x0": x0 - 2, "y0": y0 - 2, "x1": x1 + 2, "y1": y1 + 2}
        for r in lines:
            if r["role"] in ("body", "formula", "list_item") and _contains(box, r):
                r["role"] = "table"
                marked += 1
    return marked


#: A drop cap is at least this many times the size of the lines it sits beside.
DROP_CAP_RATIO = 2.0
#: Share of a page's characters in one rotated direction that makes it the page's reading direction.
ROTATED_CONTENT_SHARE = 0.6


def _join_drop_caps(flat: list[dict]) -> list[dict]:
    """A large initial letter beside the first lines of a paragraph joins its first line.

    "T" set three lines high beside "he committee met ..." is the paragraph's first letter:
    left alone it is read after the line its centre falls on (scrambling the order) and, being
    large, passes for a heading. The cap is one or two letters, at least ``DROP_CAP_RATIO``
    times the size of two or more lines that start just right of it within its height.
    """
    out = list(flat)
    smallest = None
    for cap in flat:
        # (every text is stripped already: _raw_lines' " ".join(split()); str.strip and str.split
        # share one definition of whitespace)
        t = cap["text"]
        if not (1 <= len(t) <= 2 and t[0].isalpha()):
            continue
        if smallest is None:  # (the page's smallest size: min() passes a NaN size over unless it is first)
            smallest = min(r["size"] for r in flat)
        if cap["size"] < DROP_CAP_RATIO * smallest:  # beside no line (most one-letter lines: table cells)
            continue
        h = cap["y1"] - cap["y0"]
        beside = [
            r
            for r in flat
            if r is not cap
            and cap["x1"] - 1 <= r["x0"] <= cap["x1"] + 2 * r["size"]
            and cap["y0"] - 0.2 * h <= (r["y0"] + r["y1"]) / 2 <= cap["y1"]
            and cap["size"] >= DROP_CAP_RATIO * r["size"]
        ]
        if len(beside) < 2:
            continue
        first = min(beside, key=lambda r: r["y0"])
        first["text"] = t + first["text"]
        first["x0"] = min(first["x0"], cap["x0"])
        out.remove(cap)
    return out


def _rotated_content(raw: list[dict]) -> tuple | None:
    """The one rotated direction most of the page's text is set in (a landscape page), else None."""
    chars: dict[tuple, int] = {}
    for r in raw:
        chars[r["_dir"]] = chars.get(r["_dir"], 0) + r["_chars"]
    total = sum(chars.values())
    if not total:
        return None
    d, n = max(chars.items(), key=lambda kv: kv[1])
    return d if d != (1, 0) and n >= ROTATED_CONTENT_SHARE * total else None


def _reading_key(r: dict, d: tuple, width: float, height: float) -> tuple[float, float]:
    """(line position, position along the line) of a line set in direction ``d``."""
    if d == (0, -1):  # reads upwards: lines follow left to right
        return (round(r["x0"], 0), height - r["y1"])
    if d == (0, 1):  # reads downwards: lines follow right to left
        return (round(width - r["x1"], 0), r["y0"])
    return (round(height - r["y1"], 0), width - r["x1"])  # upside down


def extract_page_lines(
    page,
    page_no: int,
    *,
    hint_gutters: list[tuple[float, float]] | None = None,
    image_boxes: list[tuple[float, float, float, float]] | None = None,
    textpage=None,
    page_dict: dict | None = None,
    want_spans: bool = False,
) -> tuple[list[dict], dict]:
    """Lines of one page in reading order, plus the page's text signals.

    ``hint_gutters``: the document's usual gutters, tried when this page has too
    little text to show its own (a few lines under a figure in a column layout).
    ``image_boxes``: pictures on the page; one that crosses a gutter ends a band
    (text above a full-width figure is read before the text below it).
    Returns (lines, signals); signals carry the private ``_gutters`` found and ``_page_dict``
    (the page's ``get_text("dict")``, so later stages need not read the page again).
    ``textpage``: read this text page instead of the page's own (an OCR text page from
    :mod:`ocr`); lines holding recognised text get ``parse_method='ocr'``.
    ``page_dict``: that text page's ``get_text("dict")`` when the caller already read it (its
    ``width`` / ``height`` may be left out: the page's cropbox is read instead).
    ``want_spans``: signals also carry ``_spans``, :func:`heading_spans.page_spans` of that dict,
    taken in the same walk as the lines.
    Each line dict has the line_df columns except doc_id, section_id, object_key
    (filled later), plus the private hints later stages read (``_rot``, ``_marker``, ``_margin``
    on rotated and sideways lines); the walk's ``_ocr``, ``_dir``, ``_math`` and ``_chars`` are
    dropped once the page's lines are read.
    """
    d = page.get_text("dict", flags=_fast_flags(), textpage=textpage) if page_dict is None else page_dict
    span_rows, span_texts = ([], []) if want_spans else (None, None)
    odd: list[dict] = []  # lines rotated or not read left to right
    raw = _raw_lines(d, span_rows, span_texts, odd)
    if odd:
        turned = _rotated_content(raw)
        # a page set sideways: its text in the rotated direction is the content, not margin stamps
        content = [r for r in raw if turned is not None and r["_dir"] == turned]
        flat = _join_drop_caps([r for r in raw if not r["_rot"]])
        rotated = [r for r in raw if r["_rot"] and not (turned is not None and r["_dir"] == turned)]
    else:  # (most pages) every line in direction (1, 0): nothing turned, nothing rotated
        turned, content, rotated = None, [], []
        flat = _join_drop_caps(raw)  # (a new list: raw is not changed)
    boxes = [(r["x0"], r["y0"], r["x1"], r["y1"]) for r in flat]
    gutters = columns.find_gutters(boxes)
    if not gutters and hint_gutters and columns.gutters_fit(boxes, hint_gutters):
        gutters = list(hint_gutters)
    lines: list[dict] = []
    first = columns.group_rows(flat)
    for row in first:
        if len(row) == 1:  # (most rows: nothing to drop or merge)
            lines.append(row[0])
        else:
            lines.extend(_dedupe_and_merge(row, gutters))
    # one scan of the page's texts for math symbols: on a page without any, no line has one
    symbols = _MATH_CHAR.search("".join([r["text"] for r in lines])) is not None
    for r in lines:
        # (no gutter: every line is column 0, what assign_column gives)
        r["column"] = columns.assign_column(r["x0"], r["x1"], gutters) if gutters else 0
        # (a line without math-font characters or symbols is no formula: most lines, no call)
        text = r["text"]
        plain = not r["_math"] and (not symbols or _MATH_CHAR.search(text) is None)
        # (a bullet or an enumerator opens with one of _BULLET_FIRST or a digit: most lines, no match)
        bullet = (text[:1] in _BULLET_FIRST or text[:1].isdecimal()) and _BULLET.match(text)
        r["role"] = "formula" if not plain and _is_formula(r) else "list_item" if bullet else "body"
    _attach_to_formulas(lines)
    # Text area: where the horizontal lines are. Rotated text outside it is a margin stamp.
    if flat:
        ax0, ax1 = min(r["x0"] for r in flat), max(r["x1"] for r in flat)
    else:
        ax0, ax1 = 0.0, float(page.rect.width)
    for r in rotated:
        outside = r["x1"] <= ax0 + 1 or r["x0"] >= ax1 - 1
        r["column"] = -1 if outside else columns.assign_column(r["x0"], r["x1"], gutters)
        r["role"] = "header" if outside else "figure_text"
        r["_margin"] = outside
    if not gutters and not rotated:
        # one column and no margin text: reading_order's rows are the table check's (one grouping).
        # When every first row held one line, the lines are those rows' own dicts, boxes unchanged
        # and in group_rows' order: grouping them again (a stable sort of a sorted list) gives them back.
        rows = first if len(first) == len(flat) else columns.group_rows(lines)
        marked = _mark_tables(lines, rows)
        ordered = [r for row in rows for r in row]
    else:
        marked = 0
        for col in sorted({r["column"] for r in lines}):
            marked += _mark_tables([r for r in lines if r["column"] == col])
        ordered = columns.reading_order(lines + rotated, gutters, cuts=image_boxes or [])
    if content:
        # (a dict of signals.text_and_images has no width / height: get_text's, the cropbox's)
        box = d if "width" in d else page.cropbox
        w, h = (d.get("width"), d.get("height")) if box is d else (box.width, box.height)
        width, height = float(w or page.rect.width), float(h or page.rect.height)
        content.sort(key=lambda r: _reading_key(r, turned, width, height))
        for r in content:
            r["column"] = 0
            r["role"] = "list_item" if _BULLET.match(r["text"]) else "body"
            r["_margin"] = False
        # the page's own horizontal lines (a page number) keep their place around it
        first_y = min(c["y0"] for c in content)
        top = [r for r in ordered if r["y1"] <= first_y]
        ordered = top + content + [r for r in ordered if r["y1"] > first_y]
    block_ids: dict[int, int] = {}
    for i, r in enumerate(ordered, start=1):
        r["page"] = page_no
        r["line"] = i
        r["block"] = block_ids.setdefault(r["block"], len(block_ids))
        r["parse_method"] = "ocr" if r["_ocr"] else "fast"
        # the walk's own hints end here (nothing after the page's lines reads them): four fewer
        # columns for the line frame to convert
        del r["_ocr"], r["_dir"], r["_math"], r["_chars"]
    text_chars = "".join([r["text"] for r in ordered])
    spaces = text_chars.count(" ")
    ascii_text = text_chars.isascii()
    # (one scan of a non-ASCII page: _BAD_CHAR's characters are the unmappable ones below U+F0000)
    unmappable = [] if ascii_text else _UNMAPPABLE.findall(text_chars)
    signals = {
        "n_lines": len(ordered),
        # (per-line sums of the joined texts: no word or space crosses a line's boundary)
        "n_chars": len(text_chars) - spaces,
        # every text is non-empty, its words split by single spaces (_raw_lines' " ".join(split()),
        # merged fragments and drop caps joined the same way): a line's words are its spaces + 1
        "n_words": spaces + len(ordered),
        "n_columns": len(gutters) + 1 if flat else 0,
        "_gutters": gutters,
        "_bad_chars": sum(1 for c in unmappable if c < "\U000f0000") if unmappable else 0,
        "_ascii": ascii_text,  # (textlayer's garbled-text check: no unmappable character)
        # (textlayer's too: a page without any needs no second scan of its texts)
        "_unmappable": len(unmappable),
        "_tables": marked,  # lines given role ``table`` (the page stage holds such a page)
        "_page_dict": d,
    }
    if want_spans:
        # one flat float list, six values a span: the float64 rows page_spans makes
        signals["_spans"] = (
            PageSpans(np.array(span_rows, dtype=float).reshape(-1, 6), span_texts) if span_rows else None
        )
    return ordered, signals
