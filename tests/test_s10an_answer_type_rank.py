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


# Review fix (fxn): the duration patterns are anchored at the question's opening, so a leading
# clause ("Under HIPAA, ...") or "within what period" lost the reordering the branch point had.
_LEADING = [
    "Under HIPAA, how long must documentation be retained?",
    "Within what period must the controller notify the supervisory authority?",
    "Within what time frame must the report be filed?",
    "After a breach is discovered, how many days does the covered entity have to notify individuals?",
    "For the installer, how long must the evidence of the cable be kept?",
]


def test_a_duration_question_opening_with_a_clause_is_one():
    assert [parse_question(t).answer_type for t in _LEADING] == ["duration"] * len(_LEADING)
    for text in [
        "Under the site rules, how long must the evidence of the cable be kept?",
        "Within what period must the evidence of the cable be destroyed?",
    ]:
        assert retrieve(parse_question(text), _tables())[0].page == 2, text


def test_a_leading_clause_keeps_the_exclusions():
    for text in [
        "For the installer, what should be considered when deciding how long to keep the evidence?",
        "When deciding how long to keep the evidence, what should be considered?",
        "Under the site rules, how long is the cable between the controller and the sensor?",
        "What should be considered, when deciding how long to keep the evidence?",
    ]:
        assert parse_question(text).answer_type is None, text
    assert parse_question("Under the lease, how long is the notice period?").answer_type == "duration"
