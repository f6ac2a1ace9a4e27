"""Session 12 (hd): a paragraph's first line set only larger than the body size is no heading."""

from __future__ import annotations

from docintel.parsing.heading_text import Candidate
from docintel.parsing.headings import looks_like_heading, split_number

SENTENCE = "Automated keyword searches were employed to identify SP 800-53 controls that might support"


def _cand(text: str, size: float, bold: bool = False) -> Candidate:
    kind, num, title = split_number(text)
    c = Candidate(
        139, 6, [6], text, size, bold, 72, 145, 532, 157, "Arial-BoldMT" if bold else "TimesNewRomanPSMT"
    )
    c.kind, c.number, c.title = kind, num, title
    c.extra = {"italic": False, "para_start": True, "table_row": False}
    return c


def test_long_prose_line_in_a_larger_body_type_is_not_a_heading():
    # NISTIR 8011 vol. 2 p139: the body text is 12 pt Times, the tables (most of the characters)
    # 10 pt Arial, so the body size read is 10 and every paragraph's first line was "larger"
    assert not looks_like_heading(_cand(SENTENCE, 12.0), 10.0)


def test_larger_titles_and_bold_lines_are_still_headings():
    assert looks_like_heading(_cand("Keyword Rules Used to Identify Controls", 12.0), 10.0)
    assert looks_like_heading(_cand("Summary of the assessment results", 12.0), 10.0)
    # a bold sentence-case heading is not judged by its words here
    assert looks_like_heading(_cand(SENTENCE, 12.0, bold=True), 10.0)
