"""Session 16 (hc): plain body lines kept out of the heading candidates give the toc build's answers.

``headings.candidates(..., plain)`` builds no Candidate for lines in plain body type
(:class:`headings.PlainLines`); the readers that look at them (the continuation join, outline /
contents matching, the articles' positions, the title's page) must answer as with every line built.
"""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from docintel.parsing import headings, toc, toc_articles, toc_lines, toc_sources

BODY = 10.0
TEXTS = [
    "The system owner reviews the plan annually and",
    "Security Controls",
    "1.Scope of the rights granted",
    "2. Definitions",
    "3 Copying and Conveying",
    "3.2 Methods",
    "Appendix A",
    "(a) Item one of the list",
    "12.5",
    "  spaced   text  ",
    "",
    "WAIVER AND",
    "INDEMNIFICATION",
    "A. Training Details",
    "Part 2 General",
    "particularly when the",
    "Methods. In Table 4 we",
    "Contents",
    "\u00a7 39.13 Rules",
    "IV. EXPERIMENTS",
]


def _doc(seed: int, pages: int = 3, per_page: int = 40) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Random lines: some share a baseline, sizes around the body, bold / italic fractions at the cuts."""
    rng = random.Random(seed)
    rows, feats = [], []
    for p in range(1, pages + 1):
        y = 60.0
        for k in range(per_page):
            if rng.random() < 0.7 or k == 0:
                y += rng.choice([12.0, 13.0, 20.0, 30.0])
                x = rng.choice([72.0, 72.5, 90.0])
            else:
                x = rows[-1]["x1"] + rng.choice([2.0, 8.0, 40.0])  # same baseline: a piece or a cell
            size = rng.choice(
                [BODY, BODY, BODY, BODY - 1.2, BODY + 0.3, BODY + 0.5, BODY + 0.6, BODY + 1, 14.0]
            )
            if rng.random() < 0.02:
                size = float("nan")
            text = rng.choice(TEXTS)
            rows.append(
                {
                    "page": p,
                    "line": k + 1,
                    "text": text,
                    "x0": x,
                    "y0": y,
                    "x1": x + 6.0 * max(len(text), 1),
                    "y1": y + (size if size == size else BODY),
                    "size": size,
                    "font": rng.choice(["Times", "Times", "Arial"]),
                    "column": 0,
                    "role": "body",
                }
            )
            feats.append(
                {
                    "boldfrac": rng.choice([0.0, 0.0, 0.0, 0.3, 0.5, 0.6, 1.0]),
                    "italfrac": rng.choice([0.0, 0.0, 0.0, 0.94, 0.95, 1.0]),
                    "rotated": False,
                    "lead": rng.choice([None] * 8 + ["Methods."]),
                }
            )
    line_df = pd.DataFrame(rows)
    return line_df, pd.DataFrame(feats, index=line_df.index)


def _all(cands: list, plain: headings.PlainLines) -> list:
    made = [plain.candidate(p, it) for p, items in plain.pages.items() for it in items]
    return sorted(cands + made, key=lambda c: (c.page, c.line))


@pytest.mark.parametrize("seed", range(12))
def test_candidates_with_plain_lines_aside_are_the_same_candidates(seed):
    line_df, feats = _doc(seed)
    eager = headings.candidates(line_df, feats)
    plain = headings.PlainLines(BODY)
    lazy = headings.candidates(line_df, feats, plain)
    assert len(plain) > 0 and len(lazy) < len(eager)
    for c in _all(lazy, plain):
        if c.extra.pop("heading_like", None) is False:  # a plain line's: never heading-like
            assert c.kind is None and not c.bold and not headings.looks_like_heading(c, BODY)
    # (repr: a NaN size is unequal to itself; a lazy paragraph start shows its truth value)
    assert [repr(c) for c in _all(lazy, plain)] == [repr(c) for c in eager]


@pytest.mark.parametrize("seed", range(12))
def test_the_join_title_and_matching_do_not_see_a_difference(seed):
    line_df, feats = _doc(seed)
    eager = toc._join_continuations(headings.candidates(line_df, feats), BODY)
    plain = headings.PlainLines(BODY)
    lazy = toc._join_continuations(headings.candidates(line_df, feats, plain), BODY)
    for c in eager + lazy:
        c.extra["heading_like"] = headings.looks_like_heading(c, BODY)
    title = toc_lines.title_line(eager, BODY)
    got = toc_lines.title_line(lazy, BODY, min(plain.pages, default=None))
    assert (title is None) == (got is None) and (
        title is None or (title.page, title.line) == (got.page, got.line)
    )
    for text in TEXTS + ["Copying and Conveying", "Security"]:
        for number in (None, "2", "3"):
            for pages in ([1, 2, 0], [2, 3, 1], [3]):
                a = toc_sources.match(text, number, eager, pages)
                b = toc_sources.match(text, number, lazy, pages, plain)
                c = toc_sources.match(text, number, [x for x in lazy if x.page > 1], pages, plain, 1)
                d = toc_sources.match(text, number, [x for x in eager if x.page > 1], pages)
                key = lambda x: None if x is None else (x.page, x.line)  # noqa: E731
                assert key(a) == key(b) and key(c) == key(d)
    assert [(c.page, c.line, c.lines, c.text) for c in _all(lazy, plain)] == [
        (c.page, c.line, c.lines, c.text) for c in eager
    ]


def _articles(plain_between: int, delim: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Body-type articles "1.Title" or "1) Title" (unnumbered for split_number: a plain line but for
    its digit) with plain paragraphs between, one title wrapped in capitals."""
    rows = []
    y, page = 60.0, 1
    for n in range(1, 7):
        title = "LIMITATION OF LIABILITY WAIVER AND" if n == 4 else f"Article title {n}"
        texts = [f"{n}{delim}{title}"]
        if n == 4:
            texts.append("INDEMNIFICATION")
        texts += ["The licensee shall keep the terms of this agreement in force"] * plain_between
        for t in texts:
            y += 14.0
            if y > 700:
                y, page = 74.0, page + 1
            rows.append({"page": page, "text": t, "x0": 72.0, "y0": y, "x1": 400.0, "y1": y + BODY})
    line_df = pd.DataFrame(rows)
    line_df["line"] = line_df.groupby("page").cumcount() + 1
    line_df = line_df.assign(size=BODY, font="Times", column=0, role="body")
    feats = pd.DataFrame(
        {"boldfrac": 0.0, "italfrac": 0.0, "rotated": False, "lead": None}, index=line_df.index
    )
    return line_df, feats


@pytest.mark.parametrize("delim", [".", ") "])
@pytest.mark.parametrize("between", [0, 1, 3, 8])
def test_articles_are_found_at_the_same_positions(between, delim):
    line_df, feats = _articles(between, delim)
    eager = headings.candidates(line_df, feats)
    plain = headings.PlainLines(BODY)
    lazy = headings.candidates(line_df, feats, plain)
    for c in eager + lazy:
        c.extra["heading_like"] = False
    a = toc_articles.mark_articles(eager, BODY, set())
    b = toc_articles.mark_articles(lazy, BODY, set(), plain)
    assert [(c.page, c.line, c.number, c.title) for c in a] == [
        (c.page, c.line, c.number, c.title) for c in b
    ]
    # an article is a paragraph or more: the plain lines between count in the positions
    assert bool(b) == (between >= 3)
    if b:  # the wrapped title's second line is a plain line, built when read
        assert any(c.title.endswith("WAIVER AND INDEMNIFICATION") for c in b)
    order, n = toc_articles._positions(lazy, plain)
    full = _all(lazy, plain)
    assert n == len(full) and all(full[order[id(c)]] is c for c in lazy)


def test_no_line_is_set_aside_for_a_tiny_or_unknown_body_size():
    line_df, feats = _doc(1)
    for body in (1.5, float("nan")):
        plain = headings.PlainLines(body)
        headings.candidates(line_df, feats, plain)
        assert len(plain) == 0 and np.isneginf(plain.cut)
