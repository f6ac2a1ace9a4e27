"""Session 15 (walk): the line walk's one-pass look-ups and the page's one unmappable scan give what
the passes they replace gave."""

from __future__ import annotations

import math
import random
import re
from collections import Counter

import pymupdf

from docintel.parsing import line_walk, textlayer
from docintel.parsing.heading_spans import ROTATED_DIR_MIN, _span_style
from docintel.parsing.line_walk import _FOOTNOTE_MARK, _many_spans, _raw_lines
from docintel.parsing.lines import _BAD_CHAR, extract_page_lines

_FONTS = ["Times-Roman", "Times-Bold", "Arial-ItalicMT", "CMMI10", "GlyphLessFont", "Helvetica"]
_TEXTS = ["", " ", "  ", "a", "ab", "* note", "\u2020", "Word", " lead", "tail ", "x\ty", "1.2"]


def _span(rng: random.Random) -> dict:
    x0 = rng.choice([10.0, 50.5, 100.0, float(rng.randint(0, 500)), math.nan])
    y0 = rng.choice([20.0, 20.5, float(rng.randint(0, 700)), math.nan])
    return {
        "text": rng.choice(_TEXTS),
        "font": rng.choice(_FONTS),
        "size": rng.choice([9.96, 10.0, 10.04, 12.0, 5.5, 20.0, math.nan]),
        "flags": rng.choice([0, 1, 2, 16, 18, 20]),
        "bbox": (
            x0,
            y0,
            x0 + rng.choice([5.0, 30.0, -1.0, math.nan]),
            y0 + rng.choice([10.0, 2.0, math.nan]),
        ),
    }


def _many_spans_before(all_spans, direction=None, span_rows=None, span_texts=None):
    """_many_spans as it was before session 15 (walk): spans / lengths lists, a look-up per value."""
    want = span_rows is not None
    if want:
        rot = float(abs(direction[1]) > ROTATED_DIR_MIN)
    spans, lengths, parts = [], [], []
    weights: dict[tuple, int] = {}
    math_chars = 0
    ocr = False
    for s in all_spans:
        t = s["text"]
        parts.append(t)
        n = len(t.strip())
        if not n:
            continue
        spans.append(s)
        lengths.append(n)
        key = (s["font"], line_walk._SIZES.get(s["size"]) or line_walk._size(s["size"]), s["flags"])
        weights[key] = weights.get(key, 0) + n
        if line_walk._is_math_font(s["font"]):
            math_chars += n
        if s["font"] == line_walk._OCR_FONT:
            ocr = True
        if want:
            x0, y0, x1, y1 = s["bbox"]
            bold, italic = _span_style(s["flags"], s["font"])
            span_rows += ((x0 + x1) / 2, (y0 + y1) / 2, n, bold, rot, italic)
            span_texts.append(t)
    if not spans:
        return None
    text = " ".join("".join(parts).split())
    first = spans[0]
    lead = first["text"].strip()
    if len(spans) == 1:
        x0, y0, x1, y1 = first["bbox"]
        size = float(round(first["size"], 1))
        marker = lead[:1] in _FOOTNOTE_MARK
        return text, first["font"], size, first["flags"], math_chars, x0, y0, x1, y1, ocr, marker, lengths[0]
    (font, size, flags), _ = Counter(weights).most_common(1)[0]
    x0 = min(s["bbox"][0] for s in spans)
    y0 = min(s["bbox"][1] for s in spans)
    x1 = max(s["bbox"][2] for s in spans)
    y1 = max(s["bbox"][3] for s in spans)
    marker = (lengths[0] <= 3 and (first["size"] <= 0.8 * size or bool(first["flags"] & 1))) or lead[
        :1
    ] in _FOOTNOTE_MARK
    return text, font, size, flags, math_chars, x0, y0, x1, y1, ocr, marker, sum(lengths)


def _same(a, b) -> bool:
    """Equal, NaN equal to NaN (the walk copies the dict's floats; min / max pick the same ones)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def test_many_spans_equal_to_the_list_pass():
    rng = random.Random(15)
    seen = Counter()
    for _ in range(20000):
        spans = [_span(rng) for _ in range(rng.randint(2, 5))]
        direction = rng.choice([(1.0, 0.0), (0.0, -1.0), (0.9999, 0.01)])
        rows_a, texts_a, rows_b, texts_b = [], [], [], []
        got = _many_spans(spans, direction, rows_a, texts_a)
        want = _many_spans_before(spans, direction, rows_b, texts_b)
        assert (got is None) == (want is None), spans
        assert texts_a == texts_b
        assert len(rows_a) == len(rows_b) and all(map(_same, rows_a, rows_b)), spans
        if got is None:
            seen["none"] += 1
            continue
        assert all(map(_same, got, want)), (spans, got, want)
        assert _many_spans(spans) == got or all(map(_same, _many_spans(spans), got))
        seen["one" if sum(1 for s in spans if s["text"].strip()) == 1 else "many"] += 1
    assert seen["none"] and seen["one"] and seen["many"]


def test_one_span_lines_equal_the_general_case():
    """A one-span line (the walk's fast path, one look-up of size and style) gives the row the general
    case gives for that span followed by a blank one."""
    rng = random.Random(16)
    for _ in range(5000):
        span = _span(rng)
        direction = rng.choice([(1.0, 0.0), (0.0, -1.0), (-1.0, 0.0)])
        blank = dict(span, text=" ", bbox=(900.0, 900.0, 950.0, 950.0))
        fast, general = [], []
        rows_fast = _raw_lines(
            {"blocks": [{"type": 0, "lines": [{"spans": [span], "dir": direction}]}]}, fast, []
        )
        rows_gen = _raw_lines(
            {"blocks": [{"type": 0, "lines": [{"spans": [span, blank], "dir": direction}]}]}, general, []
        )
        assert len(rows_fast) == len(rows_gen)
        for a, b in zip(rows_fast, rows_gen, strict=True):
            assert list(a) == list(b)
            assert all(_same(a[k], b[k]) for k in a), (span, a, b)
        assert all(map(_same, fast, general))


def test_walk_texts_are_stripped():
    """_join_drop_caps reads the texts as they are: the walk's " ".join(split()) leaves no whitespace at
    either end (str.split and str.strip share one whitespace definition), checked on every code point
    that either treats as whitespace."""
    spaces = [chr(c) for c in range(0x110000) if chr(c).isspace() or chr(c).strip() == ""]
    rng = random.Random(17)
    for _ in range(3000):
        t = "".join(rng.choice(spaces + ["a", "b"]) for _ in range(rng.randint(1, 8)))
        joined = " ".join(t.split())
        assert joined == joined.strip()


def test_unmappable_scan_counts_bad_chars_and_skips_the_gap_scan(tmp_path):
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "caf\u00e9 na\u00efve r\u00e9sum\u00e9 plain text line", fontsize=11)
    page.insert_text((72, 100), "second line", fontsize=11)
    rows, sig = extract_page_lines(page, 1)
    assert sig["_ascii"] is False and sig["_unmappable"] == 0 and sig["_bad_chars"] == 0
    prow = {"page": 1, "width": 612.0, "height": 792.0, **sig}
    # the shortcut's (0, n_chars) is what the full count gives
    assert textlayer.garbled_count([r["text"] for r in rows]) == (0, sig["n_chars"])
    assert textlayer.page_gaps(rows, prow, None) == textlayer.page_gaps(
        rows, {**prow, "_unmappable": None}, None
    )
    # _bad_chars: _BAD_CHAR's count, read from the wider scan (supplementary private-use planes excluded)
    rng = random.Random(18)
    pieces = ["a", " ", "\u00e9", "\ue000", "\uf8ff", "\ufffd", "\U000f0001", "\U0010fffd", "\uf900"]
    wide = re.compile("[\ue000-\uf8ff\ufffd\U000f0000-\U0010ffff]")
    assert wide.pattern == textlayer._UNMAPPABLE.pattern
    for _ in range(5000):
        t = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        found = textlayer._UNMAPPABLE.findall(t)
        assert sum(1 for c in found if c < "\U000f0000") == len(_BAD_CHAR.findall(t))
        assert (len(found) == 0) == (textlayer._UNMAPPABLE.search(t) is None)
