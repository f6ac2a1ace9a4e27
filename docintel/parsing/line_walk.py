"""The fast path's walk of a page's ``get_text("dict")``: one dict per text line, with typography.

Split from :mod:`docintel.parsing.lines` (which imports :func:`_raw_lines` and runs the rest of the
page's line work: merging, columns, roles, reading order). One pass over the blocks, lines and
spans gives each inked line its text, box, dominant font / size / flags, the characters set in
math fonts, its direction and the private hints the later steps read; the same walk collects the
heading spans (:func:`heading_spans.line_span_rows`) so the page stage reads the dict once.
"""

from __future__ import annotations

import functools
import operator
import re

from docintel.parsing.heading_spans import (
    ROTATED_DIR_MIN,
    _span_style,
)

#: Fonts whose glyphs are mathematics (TeX's CM/AMS fonts, Word's Symbol/MT Extra, STIX, Cambria Math).
_MATH_FONT = re.compile(
    r"^(CM(MI|SY|EX|BSY)|MSAM|MSBM|EU[FSR]M|RSFS|STIX|MTMI|MTSY|MT-?Extra|Symbol|.*Math)", re.I
)
_FOOTNOTE_MARK = set("*†‡§¶#")
#: The invisible font Tesseract writes recognised text in (PyMuPDF's OCR text pages).
_OCR_FONT = "GlyphLessFont"


@functools.lru_cache(maxsize=4096)
def _is_math_font(font: str) -> bool:
    return bool(_MATH_FONT.match(font))


@functools.lru_cache(maxsize=4096)
def _font_says(font: str) -> tuple[bool, bool]:
    """(bold, italic) as the font name says them."""
    low = font.lower()
    return "bold" in low or "medi" in low, "italic" in low or "oblique" in low


_WEIGHT = operator.itemgetter(1)


#: Each font size seen, rounded to 0.1 pt (a document sets a few dozen).
_SIZES: dict[float, float] = {}


def _size(size: float) -> float:
    out = float(round(size, 1))
    if len(_SIZES) > 4096:
        _SIZES.clear()
    _SIZES[size] = out
    return out


#: (rotated, rounded direction, not left to right) of each line direction seen: a page has one or two.
_TURNS: dict[tuple, tuple[bool, tuple[int, int], bool, float]] = {}


def _turn(direction: tuple) -> tuple[bool, tuple[int, int], bool, float]:
    """(rotated, rounded direction, not left to right, rotated as a heading span row has it)."""
    dx, dy = direction
    rounded = (round(dx), round(dy))
    rot = abs(dy) > 0.02 or dx < 0
    out = (rot, rounded, rot or rounded != (1, 0), float(abs(dy) > ROTATED_DIR_MIN))
    if len(_TURNS) > 4096:  # (odd directions of a rotated scan)
        _TURNS.clear()
    _TURNS[direction] = out
    return out


#: (flags, font) -> (bold, italic, math font, OCR font, span bold, span italic) of each style seen:
#: a document sets a few dozen. The line's bold / italic: its flags, else its font's name; the span
#: pair as floats, what :func:`heading_spans._span_style` gives the heading span rows.
_STYLES: dict[tuple, tuple[bool, bool, bool, bool, float, float]] = {}


def _style(key: tuple) -> tuple[bool, bool, bool, bool, float, float]:
    flags, font = key
    says_bold, says_italic = _font_says(font)
    out = (
        bool(flags & 16) or says_bold,
        bool(flags & 2) or says_italic,
        _is_math_font(font),
        font == _OCR_FONT,
        *_span_style(flags, font),
    )
    if len(_STYLES) > 4096:
        _STYLES.clear()
    _STYLES[key] = out
    return out


#: (size, flags, font) -> (size to 0.1 pt, bold, italic, math font, OCR font, span bold, span italic):
#: :func:`_size` and :func:`_style` of a span in one look-up (a document sets a few dozen).
_LOOKS: dict[tuple, tuple] = {}


def _look(key: tuple) -> tuple:
    size, flags, font = key
    out = (_SIZES.get(size) or _size(size), *(_STYLES.get((flags, font)) or _style((flags, font))))
    if len(_LOOKS) > 4096:
        _LOOKS.clear()
    _LOOKS[key] = out
    return out


def _raw_lines(
    page_dict: dict, span_rows: list | None = None, span_texts: list | None = None, odd: list | None = None
) -> list[dict]:
    """The page's text lines as dicts (private ``_`` hints included), in the dict's order.

    ``span_rows`` / ``span_texts``: lists to extend, in the same walk, with what
    :func:`heading_spans.page_spans` takes of the dict (six floats and the text of each inked
    span, in the dict's order), so the page stage need not walk the spans again.
    ``odd``: a list to extend with the lines that are rotated or whose rounded direction is not
    (1, 0) (none on most pages: :mod:`lines` then skips its direction passes).
    """
    out: list[dict] = []
    add = out.append
    odd = [] if odd is None else odd
    want = span_rows is not None
    add_text = span_texts.append if want else None
    looks, turns, marks = _LOOKS, _TURNS, _FOOTNOTE_MARK
    for bno, block in enumerate(page_dict["blocks"]):
        if block.get("type") != 0:
            continue
        for ln in block["lines"]:
            all_spans = ln["spans"]
            if len(all_spans) == 1:  # most lines: one span (what the general case below gives for it)
                first = all_spans[0]
                raw_text = first["text"]
                lead = raw_text.strip()
                if not lead:  # (a blank line: a third of the one-span lines of the SPs)
                    continue
                direction = ln["dir"]
                turn = turns.get(direction) or _turn(direction)
                n = len(lead)
                font = first["font"]
                key = (first["size"], first["flags"], font)
                size, bold, italic, math_font, ocr, span_bold, span_italic = looks.get(key) or _look(key)
                x0, y0, x1, y1 = first["bbox"]
                if want:
                    span_rows += ((x0 + x1) / 2, (y0 + y1) / 2, n, span_bold, turn[3], span_italic)
                    add_text(raw_text)
                row = {
                    "text": " ".join(raw_text.split()),
                    "_ocr": ocr,
                    "x0": x0,
                    "y0": y0,
                    "x1": x1,
                    "y1": y1,
                    "block": bno,
                    "font": font,
                    "size": size,
                    "bold": bold,
                    "italic": italic,
                    "_rot": turn[0],
                    "_dir": turn[1],
                    "_math": n if math_font else 0,
                    "_chars": n,
                    "_marker": lead[:1] in marks,
                }
            else:
                direction = ln["dir"]
                turn = turns.get(direction) or _turn(direction)
                # (with the heading spans of the line, in the same walk of its spans)
                x = (
                    _many_spans(all_spans, direction, span_rows, span_texts)
                    if want
                    else _many_spans(all_spans)
                )
                if x is None:
                    continue
                text, font, size, flags, math, x0, y0, x1, y1, ocr, marker, chars = x
                key = (flags, font)
                st = _STYLES.get(key) or _style(key)
                row = {
                    "text": text,
                    "_ocr": ocr,
                    "x0": x0,
                    "y0": y0,
                    "x1": x1,
                    "y1": y1,
                    "block": bno,
                    "font": font,
                    "size": size,
                    "bold": st[0],
                    "italic": st[1],
                    "_rot": turn[0],
                    "_dir": turn[1],
                    "_math": math,
                    "_chars": chars,
                    "_marker": bool(marker),
                }
            add(row)
            if turn[2]:
                odd.append(row)
    return out


def _many_spans(
    all_spans: list[dict],
    direction: tuple | None = None,
    span_rows: list | None = None,
    span_texts: list | None = None,
) -> tuple | None:
    """(text, font, size, flags, math, x0, y0, x1, y1, ocr, marker, chars) of a line of several spans.

    None when no span has ink. ``span_rows`` / ``span_texts`` (with the line's ``direction``): extended
    with what :func:`heading_spans.line_span_rows` gives for the line, from the same pass over its spans.
    """
    want = span_rows is not None
    if want:
        rot = float(abs(direction[1]) > ROTATED_DIR_MIN)
    looks = _LOOKS
    parts = []
    weights: dict[tuple, int] = {}
    math = chars = inked = 0
    ocr = False
    first = None
    for s in all_spans:
        t = s["text"]
        parts.append(t)
        n = len(t.strip())
        if not n:
            continue
        inked += 1
        chars += n
        font, flags = s["font"], s["flags"]
        key = (s["size"], flags, font)
        look = looks.get(key) or _look(key)
        # the dominant style's weights: (font, size to 0.1 pt, flags) by inked characters, in span order
        wkey = (font, look[0], flags)
        weights[wkey] = weights.get(wkey, 0) + n
        if look[3]:  # a math font
            math += n
        if look[4]:  # (any inked span in the OCR font)
            ocr = True
        b = s["bbox"]
        # The bbox of the inked spans only: trailing blank spans (Word pads lines with
        # spaces to the margin) would make a short line look full-width. (min / max over the
        # spans in order, as the builtins compare, NaN included)
        if first is None:
            first, first_n = s, n
            x0, y0, x1, y1 = b
        else:
            if b[0] < x0:
                x0 = b[0]
            if b[1] < y0:
                y0 = b[1]
            if b[2] > x1:
                x1 = b[2]
            if b[3] > y1:
                y1 = b[3]
        if want:
            span_rows += ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2, n, look[5], rot, look[6])
            span_texts.append(t)
    if first is None:
        return None
    text = " ".join("".join(parts).split())
    lead = first["text"].strip()
    if inked == 1:
        font, size, flags = first["font"], float(round(first["size"], 1)), first["flags"]
        marker = lead[:1] in _FOOTNOTE_MARK
        return text, font, size, flags, math, x0, y0, x1, y1, ocr, marker, chars
    # the first key with the largest weight: what Counter.most_common(1) gives
    (font, size, flags), _ = max(weights.items(), key=_WEIGHT)
    size = float(size)
    marker = (first_n <= 3 and (first["size"] <= 0.8 * size or bool(first["flags"] & 1))) or lead[
        :1
    ] in _FOOTNOTE_MARK
    return text, font, size, flags, math, x0, y0, x1, y1, ocr, marker, chars
