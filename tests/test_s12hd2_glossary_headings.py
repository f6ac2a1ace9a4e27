"""Session 12 (hd2): a glossary term and its definition on one baseline stay a heading row."""

from __future__ import annotations

from docintel.parsing.heading_text import Candidate
from docintel.parsing.headings import looks_like_heading, split_number

# SP 800-53r3 p54: the term (x 95-204) and the definition's first line (x 226-510) are two
# text lines on one baseline, 11 pt regular Times against a 10 pt body size
GLOSSARY_ROW = "Hybrid Security Control A security control that is implemented in an information system"


def _cand(text: str, lines: list[int]) -> Candidate:
    kind, num, title = split_number(text)
    c = Candidate(54, lines[0], lines, text, 11.0, False, 94.6, 119, 510, 131, "TimesNewRomanPSMT")
    c.kind, c.number, c.title = kind, num, title
    c.extra = {"italic": False, "para_start": True, "table_row": False}
    return c


def test_term_and_definition_on_one_baseline_is_a_heading():
    # the term and the definition are separate pieces: a glossary row, split into blocks at it
    assert looks_like_heading(_cand(GLOSSARY_ROW, [9, 10]), 10.0)


def test_the_same_words_as_one_line_are_a_paragraph_first_line():
    # one piece of prose set only larger than the body size stays no heading (hd's rule)
    assert not looks_like_heading(_cand(GLOSSARY_ROW, [9]), 10.0)
