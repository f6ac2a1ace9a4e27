"""The structure stages' cheap paths give what the slow ones gave (issue 18, part S).

Each fast path replaced a slower reading of the same thing: rows from column lists for
``itertuples``, a start test before a list of patterns, plain drawing tuples for ``get_drawings``.
These tests compare both readings on inputs built to hit their edge cases.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pandas as pd
import pymupdf
import pytest

from docintel.parsing import contents_page, frame_rows, headings, tables_cells, tables_free
from docintel.parsing import provision_scan as provisions


def _same_rows(a: list, b: list) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        same = [type(u) is type(v) and repr(u) == repr(v) for u, v in zip(x, y, strict=True)]
        if x._fields != y._fields or not all(same):
            return False
    return True


@pytest.fixture
def frame() -> pd.DataFrame:
    df = pd.DataFrame(
        {
            "text": pd.array(["a", None, "c", "d"], dtype="str"),
            "x0": [1.5, np.nan, 3.0, 4.0],
            "line": [1, 2, 3, 4],
            "bold": [True, False, True, False],
            "key": [None, "k", np.nan, ["x"]],
            "odd name": [1, 2, 3, 4],
        },
        index=[10, 11, 12, 13],
    )
    return df


def test_rows_equal_itertuples(frame):
    assert _same_rows(frame_rows.rows(frame), list(frame.itertuples()))
    assert _same_rows(frame_rows.rows(frame.iloc[0:0]), list(frame.iloc[0:0].itertuples()))


def test_rows_take_equals_a_slice(frame):
    pos = [3, 0, 2]
    assert _same_rows(frame_rows.Rows(frame).take(pos), list(frame.iloc[pos].itertuples()))


def _slow_split(text: str):
    t = re.sub(r"\s+", " ", text).strip()
    for kind, rx in headings.NUMBERING:
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


TEXTS = [
    "Appendix A\u2014Glossary",
    "  ANNEX  2 Scope",
    "\u017fchedule 3",  # long s: matches "schedule" case-insensitively
    "Part IV Rules",
    "chapter 3",
    "IV. RESULTS",
    "B. Setup",
    "A.1\tMethods",
    "(a) Definitions",
    "\u00a7 39.13 Rule",
    "0.5 Draft",
    "3.2.1 Access\u00a0Control",
    "Section 6.03 Payment. The Buyer",
    "SEC. 101. DEFINITIONS.",
    "Art. 4 Scope",
    "[3.1] Terms",
    "(b)(1) the holder",
    "2. GRANT OF RIGHTS",
    "H.",
    "plain body text",
    "",
    " \u2003 ",
]


@pytest.mark.parametrize("text", TEXTS)
def test_split_number_start_test_loses_nothing(text):
    assert headings.split_number(text) == _slow_split(text)


@pytest.mark.parametrize("text", TEXTS)
def test_provision_start_test_is_necessary(text):
    t = " ".join(text.split())
    pats = (provisions._DEC, provisions._KWNUM, provisions._SS, provisions._TOP)
    pats += (provisions._LETTER, provisions._PAR)
    if any(p.match(t) for p in pats):
        assert provisions._MAY_PROVISION.match(t)


def test_contents_pre_test_is_necessary_and_cuts_long_leaders():
    leader = "6.2.9 Maintenance " + "." * 90 + " 6-27"  # no label the pattern accepts
    assert not contents_page._ENTRY.match(leader)
    assert not contents_page._may_be_entry(leader)
    for t in ("3.2 Message Randomization ........ 7", "Intro . . . . iv", "Title      12", "Terms ___ 9"):
        assert contents_page._ENTRY.match(t) and contents_page._may_be_entry(t)
    # every short string over the characters that matter: the pre-test never drops a match
    for chars in itertools.product("a .\u2026_\t\n1i-", repeat=6):
        t = "Ab" + "".join(chars)
        if contents_page._ENTRY.match(t):
            assert contents_page._may_be_entry(t), repr(t)


def test_rule_edges_match_get_drawings():
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=400)
    page.draw_line((20, 50), (380, 50))  # a horizontal rule
    page.draw_line((30, 300), (30, 60))  # a vertical one, drawn upwards
    page.draw_rect(pymupdf.Rect(50, 100, 300, 250))  # a box: four edges
    page.draw_rect(pymupdf.Rect(60, 260, 360, 261), fill=(0, 0, 0))  # a rule as a thin rectangle
    page.draw_rect(pymupdf.Rect(340, 80, 341, 200), fill=(0, 0, 0))
    page.draw_bezier((10, 10), (50, 5), (90, 30), (120, 10))  # a curve: not a rule
    clips = [(0, 0, 400, 400), (40, 90, 320, 270), (0, 255, 400, 400)]
    for clip in clips:
        hs, vs = [], []
        for d in page.get_drawings():  # the reading the cached edges replaced
            for it in d["items"]:
                if it[0] == "l":
                    edges = [(it[1].x, it[1].y, it[2].x, it[2].y)]
                elif it[0] == "re":
                    r = it[1]
                    if r.width < 2 or r.height < 2:
                        edges = (
                            [((r.x0 + r.x1) / 2, r.y0, (r.x0 + r.x1) / 2, r.y1)]
                            if r.width < 2
                            else [(r.x0, (r.y0 + r.y1) / 2, r.x1, (r.y0 + r.y1) / 2)]
                        )
                    else:
                        edges = [
                            (r.x0, r.y0, r.x1, r.y0),
                            (r.x0, r.y1, r.x1, r.y1),
                            (r.x0, r.y0, r.x0, r.y1),
                            (r.x1, r.y0, r.x1, r.y1),
                        ]
                else:
                    continue
                for x0, y0, x1, y1 in edges:
                    if abs(y1 - y0) < 1.5 and abs(x1 - x0) > 10 and clip[1] - 2 <= y0 <= clip[3] + 2:
                        hs.append(((y0 + y1) / 2, min(x0, x1), max(x0, x1)))
                    elif abs(x1 - x0) < 1.5 and abs(y1 - y0) > 5 and clip[0] - 2 <= x0 <= clip[2] + 2:
                        lo, hi = min(y0, y1), max(y0, y1)
                        if hi > clip[1] and lo < clip[3]:
                            vs.append(((x0 + x1) / 2, lo, hi))
        got = tables_cells._segments_in(tables_free.CachedPage(page), clip)
        assert got == (hs, vs)
        assert got[0] and (clip[1] > 255 or got[1])
