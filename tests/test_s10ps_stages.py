"""Session 10 (ps): the toc stage's speed cuts keep what the per-line code decided."""

from __future__ import annotations

import pandas as pd

from docintel.parsing import contents_page, headings


def _lines(rows: list[tuple]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """line_df and span features for one page: (text, y0, italic fraction) per line."""
    line_df = pd.DataFrame(
        {
            "page": 1,
            "line": list(range(1, len(rows) + 1)),
            "text": [t for t, _, _ in rows],
            "x0": 72.0,
            "y0": [y for _, y, _ in rows],
            "x1": 400.0,
            "y1": [y + 10.0 for _, y, _ in rows],
            "size": 10.0,
            "font": "Times",
            "column": 0,
            "role": "body",
        }
    )
    feats = pd.DataFrame(
        {"boldfrac": 0.0, "italfrac": [i for _, _, i in rows], "rotated": False, "lead": None},
        index=line_df.index,
    )
    return line_df, feats


def test_para_start_is_the_line_above_ending_a_sentence_whenever_it_is_asked():
    line_df, feats = _lines(
        [
            ("The first paragraph ends here.", 100.0, 0.0),
            ("Italic Title Case Heading", 112.0, 1.0),
            ("goes on under the heading without a stop", 124.0, 0.0),
            ("and ends the second paragraph", 136.0, 0.0),
        ]
    )
    cands = headings.candidates(line_df, feats)
    assert [headings.para_start(c) for c in cands] == [True, True, False, False]
    # asked twice, or compared as Candidate fields are: the same answer
    assert [headings.para_start(c) for c in cands] == [True, True, False, False]
    assert cands[0].extra["para_start"] == True  # noqa: E712 (the value, as a bool compared)
    assert cands[2].extra["para_start"] == False  # noqa: E712
    # the italic Title Case line that opens a paragraph at body size is a heading
    assert headings.looks_like_heading(cands[1], 10.0)
    assert not headings.looks_like_heading(cands[2], 10.0)


def test_contents_entries_with_trailing_blanks_or_a_newline_are_still_read():
    rows = [
        ("Contents", 60.0),
        ("1 Introduction .......... 1", 100.0),
        ("2 Scope .......... 3\t ", 112.0),
        ("3 Terms and definitions .......... 5  ", 124.0),
        ("4 Requirements .......... 7\n", 136.0),
        ("A sentence that ends in a word", 148.0),
    ]
    line_df, _ = _lines([(t, y, 0.0) for t, y in rows])
    got = contents_page.find_entries(line_df)
    assert got["line"].tolist() == [2, 3, 4, 5]
    assert got["label"].tolist() == ["1", "3", "5", "7"]
