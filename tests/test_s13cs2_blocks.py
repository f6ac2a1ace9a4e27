"""Corpus blocks: a short block that continues its section joins the next one on its page (session 13, cs2)."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from docintel.corpus.blocks import MIN_CHARS, make_blocks

LONG = "word " * (MIN_CHARS // 5 + 10)
TOC = [("1", "Introduction", None), ("1.3", "Steps", "1"), ("1.3.3", "Submittal", "1.3"),
       ("1.4", "Review", "1"), ("1.4.1", "Screening", "1.4"), ("2", "Template", None)]  # fmt: skip


def _tables(rows):
    lines = pd.DataFrame(
        [
            {"page": page, "line": i + 1, "role": "body", "section_id": sec, "text": text, "block": i,
             "x0": 0.0, "y0": 10.0 * i, "x1": 100.0, "y1": 10.0 * i + 8}
            for i, (page, sec, text) in enumerate(rows)
        ]
    )  # fmt: skip
    toc_df = pd.DataFrame(TOC, columns=["toc_id", "title", "parent_id"])
    return SimpleNamespace(line_df=lines, toc_df=toc_df, doc_id="d")


def _spans(rows):
    return [(b.page, b.line_start, b.line_end, b.section_id) for b in make_blocks(_tables(rows)).itertuples()]


def test_a_short_tail_from_the_previous_page_joins_the_next_section_on_its_page():
    rows = [(1, "1.3.3", "Submittal heading"), (1, "1.3.3", LONG),
            (2, "1.3.3", "Packages go to the alias at refs@example.org."),  # the tail, 1.4 cuts it off
            (2, "1.4", "Review heading"), (2, "1.4", LONG), (2, "1.4.1", LONG)]  # fmt: skip
    # 1.4 is no subsection or sibling of 1.3.3: without the tail rule the tail is a block alone
    assert _spans(rows) == [(1, 1, 2, "1.3.3"), (2, 3, 5, "1.4"), (2, 6, 6, "1.4.1")]
    blocks = make_blocks(_tables(rows))
    assert "submitt" in blocks["terms"].iloc[1].split()  # the tail's section title stays indexed


def test_a_long_tail_and_a_short_block_that_starts_its_section_stay_alone():
    long_tail = [(1, "1.3.3", LONG), (2, "1.3.3", LONG), (2, "1.4", "Review heading"), (2, "1.4", LONG)]
    assert _spans(long_tail) == [(1, 1, 1, "1.3.3"), (2, 2, 2, "1.3.3"), (2, 3, 4, "1.4")]
    # a short section begun on this page is no tail: an unrelated next section starts a block
    fresh = [
        (1, "1.4.1", LONG),
        (2, "1.3.3", "Submittal heading"),
        (2, "2", "Template heading"),
        (2, "2", LONG),
    ]
    assert _spans(fresh) == [(1, 1, 1, "1.4.1"), (2, 2, 2, "1.3.3"), (2, 3, 4, "2")]


def test_the_short_rest_of_a_section_after_a_size_split_joins_the_next_section():
    rest = "rest " * 32  # over the cap with the line before it, under MIN_CHARS alone
    rows = [(1, "1.4.1", LONG), (1, "1.4.1", rest), (1, "2", "Template heading"), (1, "2", "Template text.")]
    blocks = make_blocks(_tables(rows), max_chars=600)
    spans = [(b.page, b.line_start, b.line_end, b.section_id) for b in blocks.itertuples()]
    assert spans == [(1, 1, 1, "1.4.1"), (1, 2, 4, "2")]
