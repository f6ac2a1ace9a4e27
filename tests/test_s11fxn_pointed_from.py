"""Review fixes to the look-up of the text pointing at a first hop's target (session 11, fxn).

The look-up matched the target's number under any part word ("Schedule 3", "Appendix 3" for a
bare-numbered section 3), pointers into another instrument ("Part 3 of the Municipal Act"), the
sections enclosing the target ("Section 3" for a first hop inside 3.2.1), a contents page whose
lines are body lines, and never "\u00a7 3" (no word character before "\u00a7" for ``\\b``).
"""

from __future__ import annotations

import pytest

from docintel.questions import parse_question
from docintel.retrieval import retrieve
from docintel.retrieval.passage import best_passage
from docintel.retrieval.pointedfrom import pointing_passages
from docintel.schema.trace import Trace

from .test_retrieval import FILLER, make_tables

_Q = "How are contingent assets accounted for, and are contingent assets recorded in the statements?"
_NOTE = [
    ("3 Contingent assets", "heading"),
    "Contingent assets of the City are not recorded in the statements.",
    "Contingent assets are disclosed when their realization is likely.",
]


def _toc(rows):
    return [dict(toc_id=n, number=n, title=t, level=lv, page_start=p, line_start=ln, page_end=pe, line_end=le,
                 source="heading_detection", parent_id=par) for n, t, lv, p, ln, pe, le, par in rows]  # fmt: skip


_ONE = _toc([("3", "Contingent assets", 1, 5, 1, 5, 3, None)])


def _look(other_page, toc=_ONE, note=_NOTE, trace=None):
    pages = {p: FILLER for p in range(1, 9)}
    pages[2] = other_page
    pages[5] = note
    tables = make_tables(pages, toc=toc)
    q = parse_question(_Q)
    ranked = retrieve(q, tables)
    assert ranked[0].page == 5
    return pointing_passages(tables, q, [best_passage(tables, q, 5)], ranked, trace=trace)


@pytest.mark.parametrize(
    "line",
    [
        "Contingent assets arise from past events; see Note 3.",
        "Contingent assets are recorded as set out in \u00a7 3.",
        "Contingent assets are recorded as set out in Section 3 of this Agreement.",
    ],
)
def test_a_pointer_under_a_word_the_bare_numbered_part_answers_to_joins(line):
    got = _look([*FILLER, line])
    assert [p.page for p in got] == [2]


@pytest.mark.parametrize(
    "line",
    [
        "Contingent assets are listed in Schedule 3 to the agreement.",  # another part word
        "Contingent assets recorded in earlier years are tabulated in Appendix 3.",
        "Contingent assets are recorded as required by Section 3 of the Municipal Act.",  # another instrument
        "Contingent assets are recorded as required by Part 3 of the Municipal Act.",
    ],
)
def test_a_pointer_to_another_part_or_instrument_does_not_join(line):
    assert _look([*FILLER, line]) == []


def test_a_pointer_to_a_section_enclosing_the_target_does_not_join():
    nested = _toc([("3", "Financial position", 1, 3, 1, 8, 99, None), ("3.2", "Assets", 2, 4, 1, 8, 99, "3"),
                   ("3.2.1", "Contingent assets", 3, 5, 1, 5, 3, "3.2")])  # fmt: skip
    note = [("3.2.1 Contingent assets", "heading"), *_NOTE[1:]]
    line = "Contingent assets and liabilities of the City are summarised in Section 3."
    assert _look([*FILLER, line], toc=nested, note=note) == []
    # the target itself still joins
    assert [
        p.page for p in _look([*FILLER, "Contingent assets: see Section 3.2.1."], toc=nested, note=note)
    ] == [2]


def test_a_part_printed_with_its_word_answers_to_that_word_only():
    toc = _toc([("3", "Appendix 3: Contingent assets", 1, 5, 1, 5, 3, None)])
    note = [("Appendix 3: Contingent assets", "heading"), *_NOTE[1:]]
    assert _look([*FILLER, "Contingent assets are tabulated in Note 3."], toc=toc, note=note) == []
    got = _look([*FILLER, "Contingent assets are tabulated in Appendix 3."], toc=toc, note=note)
    assert [p.page for p in got] == [2]


def test_no_pointing_window_from_a_contents_page_of_body_lines():
    contents = ["Table of contents", "Contingent assets policy", "2", "Notes to the statements", "4",
                "Note 3: Contingent assets recorded", "5", "Schedules", "7"]  # fmt: skip
    assert _look(contents) == []


def test_the_look_up_leaves_a_trace_event():
    trace = Trace()
    got = _look([*FILLER, "Contingent assets arise from past events; see Note 3."], trace=trace)
    events = [e for e in trace.data["events"] if e["kind"] == "pointed_from"]
    assert got and events and events[0]["page"] == 2 and events[0]["target_page"] == 5
