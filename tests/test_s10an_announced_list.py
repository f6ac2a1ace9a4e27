"""A window cut by the line budget at a list's lead-in reads on through the list (session 10, an).

GDPR Article 33 (set 4, gdpr-breach-content): the offline answer's 14-line budget was spent on
paragraphs 1-2, so the window stopped at "3." and the members (a)-(d) the question asks for
("What must a notification describe?") were not in the answer though the evidence held them.
"""

from __future__ import annotations

from docintel.generation.offline import OfflineBackend
from docintel.questions import parse_question
from tests.test_answers_unseen_families_s8 import _passage

_PARAGRAPHS = [
    "1.",
    "In the case of a personal data breach, the controller shall without undue delay and, where",
    "feasible, not later than 72 hours after having become aware of it, notify the personal data",
    "breach to the supervisory authority competent in accordance with the rules, unless the",
    "personal data breach is unlikely to result in a risk to the rights and freedoms of natural",
    "persons. Where the notification to the supervisory authority is not made within 72 hours, it",
    "shall be accompanied by reasons for the delay.",
    "2.",
    "The processor shall notify the controller without undue delay after becoming aware of a",
    "personal data breach.",
    "3.",
    "The notification referred to in paragraph 1 shall at least:",
    "(a) describe the nature of the personal data breach including where possible, the",
    "categories and approximate number of data subjects concerned;",
    "(b) communicate the name and contact details of the data protection officer;",
    "(c) describe the likely consequences of the personal data breach;",
    "(d) describe the measures taken or proposed to be taken by the controller.",
    "4.",
    "Where it is not possible to provide the information at the same time, it may follow.",
]


def _answer(question: str, lines: list[str]) -> str:
    window = _passage(1, [(i + 1, t) for i, t in enumerate(lines)])
    return (
        OfflineBackend()
        .generate(parse_question(question), [window], pass_no=1, instructions=[])
        .answer.answer
    )


def test_the_list_after_the_budget_is_read_when_it_holds_the_question_words():
    text = _answer(
        "What must a personal data breach notification to the supervisory authority describe?", _PARAGRAPHS
    )
    assert "describe the likely consequences" in text
    assert "describe the measures taken" in text


def test_a_list_without_the_question_words_is_not_read_on():
    # the same paragraphs with a list whose members share no question word: the window keeps
    # its budget
    other = [*_PARAGRAPHS[:12], "(a) the date;", "(b) the place;", "(c) the reference number.", "4."]
    text = _answer(
        "What must a personal data breach notification to the supervisory authority describe?", other
    )
    assert "the reference number" not in text


def test_a_question_asking_for_a_value_does_not_read_the_list_on():
    # "How many hours ...?" is answered by the sentence stating the value; the list after the
    # lead-in would take the answer's room (SP 800-106's rv length, dev sp106-r1)
    question = "How many hours after becoming aware of the breach must the controller notify the authority?"
    assert parse_question(question).shape == "number"
    text = _answer(question, _PARAGRAPHS)
    assert "72 hours" in text and "describe the measures taken" not in text


def test_a_question_asking_for_a_span_does_not_read_the_list_on(monkeypatch):
    # review fix (fxn): the read-on is gated on the answer type too, not only the number shape
    # (here the window reaches the list anyway, so the flag given to pick_windows is asserted)
    from docintel.generation.offline import backend

    flags = []
    pick = backend.pick_windows
    monkeypatch.setattr(
        backend, "pick_windows", lambda *a, **k: flags.append(k["read_lists"]) or pick(*a, **k)
    )
    question = "Within what period must a personal data breach be notified to the supervisory authority?"
    q = parse_question(question)
    assert q.answer_type == "duration" and q.shape != "number"
    _answer(question, _PARAGRAPHS)
    assert flags == [False]
    _answer(
        "What must a personal data breach notification to the supervisory authority describe?", _PARAGRAPHS
    )
    assert flags == [False, True]
