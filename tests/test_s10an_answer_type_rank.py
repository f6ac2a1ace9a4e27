"""The ranking's answer-type rule reads ``ParsedQuestion.answer_type`` (session 10, an).

``retrieval/firsthop.py`` kept its own unanchored duration pattern: "How long is the cable?" (a
length) and a question that only mentions "how long" inside a clause ("What should be considered
when deciding how long to keep evidence?") reordered pages as if they asked for a time span.
"""

from __future__ import annotations

from docintel.questions import parse_question
from docintel.retrieval import retrieve

from .test_retrieval import FILLER, make_tables


def _tables():
    no_span = [
        "The cable between the controller and the sensor is a shielded twisted pair cable.",
        "The cable length is chosen by the installer for the evidence and the site.",
        *FILLER,
    ]
    span = [
        "Keep the evidence for 3 years after the cable inspection of the controller.",
        *FILLER,
    ]
    return make_tables({1: no_span, 2: span, **{p: FILLER for p in range(3, 10)}})


def test_a_length_question_is_not_reordered_by_a_stated_duration():
    q = parse_question("How long is the cable between the controller and the sensor?")
    assert q.answer_type is None
    cands = retrieve(q, _tables())
    assert not any("answer type" in r for c in cands for r in c.reasons)
    assert cands[0].page == 1


def test_how_long_inside_a_clause_is_not_a_duration_question():
    q = parse_question(
        "What should be considered when deciding how long to keep the evidence of the cable installer?"
    )
    assert q.answer_type is None
    cands = retrieve(q, _tables())
    assert not any("answer type" in r for c in cands for r in c.reasons)


def test_a_duration_question_still_prefers_the_page_that_states_one():
    q = parse_question("How long must the evidence of the cable be kept?")
    assert q.answer_type == "duration"
    cands = retrieve(q, _tables())
    assert cands[0].page == 2
