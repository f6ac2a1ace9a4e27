"""Session 15 (pgs): the page stage's shortcuts give what the passes they replace gave."""

from __future__ import annotations

import random
import sys

import numpy as np
import pymupdf

from docintel.parsing import columns, textlayer
from docintel.parsing.columns import MAX_CROSSING_SHARE, MIN_COLUMN_SHARE, _low_runs, _percentile, _validate
from docintel.parsing.line_walk import _font_says, _raw_lines
from docintel.parsing.lines import _BULLET, _BULLET_FIRST, _mark_tables, extract_page_lines


def _garbled_by_words(texts: list[str]) -> tuple[int, int]:
    """garbled_count as it was: the unmappable characters of each word of 2+ characters."""
    joined = " ".join(str(t) for t in texts)
    total = len(joined) - joined.count(" ")
    if not textlayer._UNMAPPABLE.search(joined):
        return 0, total
    return sum(len(textlayer._UNMAPPABLE.findall(w)) for w in joined.split() if len(w) > 1), total


def test_garbled_count_matches_the_per_word_count():
    pieces = ["a", "b", " ", "\t", "\xa0", "\u2003", "\x1c", "\x85", "\n", "-", "\u200b"]
    pieces += ["\ue000", "\uf8ff", "\ufffd", "\U000f0001", "\U0010fffd"]
    rng = random.Random(7)
    seen_lone = seen_inner = False
    for _ in range(20000):
        texts = [
            "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8))) for _ in range(rng.randint(0, 4))
        ]
        got = textlayer.garbled_count(texts)
        assert got == _garbled_by_words(texts), texts
        seen_lone |= got[0] == 0 and textlayer._UNMAPPABLE.search(" ".join(texts)) is not None
        seen_inner |= got[0] > 0
    assert seen_lone and seen_inner  # both kinds were drawn


def test_bullet_first_characters_cover_every_bullet_opening():
    """No character outside _BULLET_FIRST (or a decimal digit) opens a _BULLET match."""
    tails = (" x", ") x", ". x", "1) x", "a) x", "iv) x")
    for c in range(sys.maxunicode + 1):
        ch = chr(c)
        if ch in _BULLET_FIRST or ch.isdecimal():
            continue
        assert not any(_BULLET.match(ch + t) for t in tails), hex(c)
    assert all(any(_BULLET.match(ch + t) for t in tails) for ch in _BULLET_FIRST)


def _odd_page() -> pymupdf.Page:
    """A page with odd whitespace, several fonts on one line, same-baseline fragments, a drop cap,
    bullets and a grid of cells."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Title\xa0with\u2003odd   spaces\tand tabs", fontsize=14, fontname="hebo")
    x = 72.0
    for text, font in (("plain start ", "helv"), ("bold middle ", "hebo"), ("italic end", "heit")):
        page.insert_text((x, 100), text, fontsize=10, fontname=font)  # one line of three spans
        x += pymupdf.get_text_length(text, fontname=font, fontsize=10)
    page.insert_text((72, 130), "3.2", fontsize=10)
    page.insert_text((92, 130), "Attention heads", fontsize=10)
    page.insert_text((72, 180), "T", fontsize=36)
    for k, line in enumerate(["he committee met on the first day", "of the month and agreed the rules"]):
        page.insert_text((100, 160 + 12 * k), line, fontsize=10)
    for k, line in enumerate(["* first bullet", "(a) lettered item", "12. numbered item", "x = y + 2"]):
        page.insert_text((72, 220 + 14 * k), line, fontsize=10)
    for row in range(4):
        for col in range(4):
            page.insert_text((72 + 110 * col, 320 + 14 * row), f"cell {row}{col}", fontsize=9)
    page.insert_text((72, 420), "an italic note", fontsize=9, fontname="heit")
    doc = pymupdf.open("pdf", doc.tobytes())
    return doc[0]


def test_word_and_char_counts_are_those_of_the_joined_texts():
    page = _odd_page()
    rows, sig = extract_page_lines(page, 1)
    texts = [r["text"] for r in rows]
    assert sig["n_words"] == len(" ".join(texts).split())
    assert sig["n_chars"] == len("".join(texts).replace(" ", ""))
    assert any(t.startswith("The committee") for t in texts)  # the drop cap joined its line
    assert "3.2 Attention heads" in texts  # fragments merged
    assert "plain start bold middle italic end" in texts  # three spans, one line


def test_rows_keep_only_the_hints_later_stages_read():
    page = _odd_page()
    rows, sig = extract_page_lines(page, 1)
    for r in rows:
        assert not {"_ocr", "_dir", "_math", "_chars"} & set(r)
        assert {"_rot", "_marker", "parse_method"} <= set(r)
    # the table count the page stage holds pages by is the number of lines given role table
    assert sig["_tables"] == sum(r["role"] == "table" for r in rows) > 0
    roles = {r["text"]: r["role"] for r in rows}
    assert roles["* first bullet"] == roles["(a) lettered item"] == roles["12. numbered item"] == "list_item"


def test_mark_tables_needs_three_rows_of_three_cells():
    def row(y, n):
        return [
            {"x0": 72 + 100 * k, "x1": 140 + 100 * k, "y0": y, "y1": y + 9, "role": "body"} for k in range(n)
        ]

    two = row(100, 3) + row(112, 3) + row(124, 2)  # two rows of three cells: no table
    assert _mark_tables(two) == 0 and all(r["role"] == "body" for r in two)
    three = row(100, 3) + row(112, 3) + row(124, 3)
    assert _mark_tables(three) == 9 and all(r["role"] == "table" for r in three)


def test_style_lookup_gives_the_flags_or_the_font_name():
    page = _odd_page()
    d = page.get_text("dict")
    lines = [ln for b in d["blocks"] if b.get("type") == 0 for ln in b["lines"]]
    raw = _raw_lines(d)
    inked = [ln for ln in lines if any(s["text"].strip() for s in ln["spans"])]
    assert len(raw) == len(inked) > 10
    checked = 0
    for r, ln in zip(raw, inked, strict=True):
        if len(ln["spans"]) != 1:  # (a line of several spans takes its dominant span's style)
            continue
        s = ln["spans"][0]
        says_bold, says_italic = _font_says(s["font"])
        assert r["bold"] == (bool(s["flags"] & 16) or says_bold)
        assert r["italic"] == (bool(s["flags"] & 2) or says_italic)
        checked += 1
    assert checked > 10
    assert any(r["bold"] for r in raw) and any(r["italic"] for r in raw)


def _gutters_before(boxes):
    """find_gutters as it was before session 15 (the (n, 4) array from the start, no early stop)."""
    if len(boxes) < 6:
        return []
    arr = np.asarray(boxes, dtype=float)
    lo, hi = float(arr[:, 0].min()), float(arr[:, 2].max())
    width = hi - lo
    if width < 100:
        return []
    size = int(width) + 2
    starts = np.minimum(np.maximum((arr[:, 0] - lo).astype(int), 0), size)
    ends = np.minimum(np.maximum(np.ceil(arr[:, 2] - lo).astype(int), 0), size)
    diff = (np.bincount(starts, minlength=size + 1) - np.bincount(ends, minlength=size + 1)).astype(float)
    cover = np.cumsum(diff)[:size]
    low = cover <= max(1.0, MAX_CROSSING_SHARE * _percentile(cover, 95))
    margin = int(MIN_COLUMN_SHARE * width)
    low[:margin] = False
    low[size - margin :] = False
    runs = _low_runs(low, cover, lo)
    return _validate(arr, lo, hi, runs) if runs else []


def test_find_gutters_as_before_on_random_pages():
    rng = np.random.default_rng(11)
    found = 0
    for _ in range(1500):
        n_cols = int(rng.integers(1, 4))
        width = 500 / n_cols
        boxes = []
        for _ in range(int(rng.integers(0, 70))):
            col = int(rng.integers(0, n_cols))
            x0 = 50 + col * width + rng.random() * 15
            x1 = x0 + rng.random() * (width - 12) + (rng.random() < 0.08) * 300
            if rng.random() < 0.02:
                x0, x1 = x1, x0  # an inverted box
            y = rng.random() * 700
            box = (x0, y, x1, y + 10)
            boxes.append(tuple(round(v) for v in box) if rng.random() < 0.2 else box)
        got, want = columns.find_gutters(boxes), _gutters_before(boxes)
        assert got == want
        assert [type(v) for g in got for v in g] == [type(v) for g in want for v in g]
        found += bool(got)
    assert found > 50  # column pages were drawn
