"""Session 12: a window that ends announcing what is below it ("... are in the table below") reads
on through the rows it promises (NISTIR 8011 vol. 2's Appendix B keyword-rule table, set 7)."""

from __future__ import annotations

from docintel.generation.offline import OfflineBackend
from docintel.questions import parse_question
from docintel.schema.evidence import EvidenceLine, Passage


def _passage(page: int, lines: list[tuple[int, str, str]]) -> Passage:
    ev = [EvidenceLine(page=page, line=n, text=t, role=r) for n, t, r in lines]
    return Passage(doc_id="d", page=page, line_start=ev[0].line, line_end=ev[-1].line, lines=ev)


_INTRO = [
    (4, "Appendix B. Keyword Rules Used to Identify Controls", "heading"),
    (5, "Automated keyword searches were employed to identify controls that might support", "body"),
    (6, "each capability. Controls returned by the keyword search were then examined manually.", "body"),
    (7, "The specific keyword rules used for the searches are in the table below", "body"),
]
_TABLE = [
    (8, "Keyword Rule", "heading"),
    (9, "Rationale", "heading"),
    (10, "*change control*", "body"),
    (11, "Ensuring that devices are authorized before connection", "body"),
    (12, "*collaborative computing device*", "body"),
    (13, "Approving device hardware configurations", "body"),
]
_QUESTION = "Which keyword rules were used to find the controls that might support the capability?"


def _answer(lines) -> str:
    q = parse_question(_QUESTION)
    return OfflineBackend().generate(q, [_passage(139, lines)], pass_no=1, instructions=[]).answer.answer


def test_the_rows_a_sentence_announces_below_it_are_read_past_the_column_heads():
    text = _answer(_INTRO + _TABLE)
    assert "*collaborative computing device*" in text
    assert "*change control*" in text


def test_a_sentence_announcing_nothing_below_it_stops_where_it_ends():
    intro = [*_INTRO[:-1], (7, "The specific keyword rules used for the searches are listed here.", "body")]
    text = _answer(intro + _TABLE)
    assert "collaborative computing device" not in text


def _rows(lines, hit_at: set[int]):
    from docintel.generation.offline.scoring import ScoredLine

    p = _passage(139, lines)
    return [
        ScoredLine(0, i, ln, hits={"control"} if ln.line in hit_at else set()) for i, ln in enumerate(p.lines)
    ]


def test_a_section_heading_after_the_announcement_is_not_its_rows():
    from docintel.generation.offline.spans import announced_below

    rows = _rows(_INTRO + _TABLE, {10})
    assert announced_below(rows, 1, 3) == len(rows) - 1  # column heads, then the rows
    long_head = [(8, "C.1 Control Items Selected by the Keyword Search Results", "heading"), *_TABLE[2:]]
    rows = _rows(_INTRO + long_head, {10})
    assert announced_below(rows, 1, 3) == 3
    rows = _rows(_INTRO + _TABLE, set())  # rows holding no question word: not the promised answer
    assert announced_below(rows, 1, 3) == 3


def test_a_line_ending_on_below_inside_its_sentence_announces_nothing():
    from docintel.generation.offline.spans import announced_below

    lines = [
        *_INTRO[:-1],
        (7, "The randomizing technique specified below", "body"),
        (8, "assumes only", "body"),
    ]
    lines += [(n + 9, t, r) for n, (_, t, r) in enumerate(_TABLE[2:])]
    rows = _rows(lines, {11})
    assert announced_below(rows, 1, 3) == 3


def test_a_later_discussion_below_is_not_an_announcement():
    from docintel.generation.offline.spans import announced_below

    lines = [*_INTRO[:-1], (7, "Most of the time it yields high accuracy, as we discuss below.", "body")]
    lines += [(n + 8, t, r) for n, (_, t, r) in enumerate(_TABLE[2:])]
    rows = _rows(lines, {10})
    assert announced_below(rows, 1, 3) == 3
