"""Session 14 (an): a question with two asks gets a window for each when one passage holds both."""

from docintel.generation.offline.asks import split_asks
from docintel.generation.offline.backend import OfflineBackend
from docintel.questions import parse_question
from docintel.schema.evidence import EvidenceLine, Passage

# One passage: how to submit (one line, few question words) and the review period (several lines
# repeating the question's words), with unrelated lines between them.
_PASSAGE = [
    "Organizations that wish to contribute a mapping may prepare one in any format.",
    "Completed mappings are submitted by e-mail to mappings@example.org for processing.",
    "The template lists the fields a mapping holds and the order they are given in.",
    "Each field is described in the table of the template with an example value.",
    "A mapping may cover a whole document or only the parts an organization uses.",
    "Mappings that cover only parts of a document say which parts they leave out.",
    "1.4.2 Public Review",
    "Every mapping received is posted for a public review period of 30 days.",
    "During the public review period anyone may comment on the posted mapping.",
    "When the public review period ends the comments are answered and the mapping",
    "is published with the review comments attached.",
]


def _answer(question):
    ev = [EvidenceLine(page=9, line=i + 4, text=t) for i, t in enumerate(_PASSAGE)]
    p = Passage(doc_id="d", page=9, line_start=4, line_end=len(ev) + 3, lines=ev)
    return OfflineBackend().generate(parse_question(question), [p], pass_no=1, instructions=[]).answer.answer


def test_each_ask_of_a_two_part_question_is_answered_from_the_same_passage():
    text = _answer("How is a mapping submitted, and how long is the public review period?")
    assert "30 days" in text
    assert "mappings@example.org" in text  # the first ask's line, far from the review lines


def test_a_one_ask_question_gets_no_extra_window():
    text = _answer("How long is the public review period for a mapping?")
    assert "30 days" in text
    assert "mappings@example.org" not in text


def test_asks_split_at_question_words_not_at_relative_clauses_or_context():
    assert split_asks("How do we submit it, and how long is the public review?") == [
        "How do we submit it",
        "how long is the public review?",
    ]
    # a relative "which" and a leading "When ..." clause are no asks of their own
    assert len(split_asks("Is the cost of the masked LM, which predicts some tokens, worth it?")) == 1
    assert len(split_asks("When moving the model to parsing, which settings were selected?")) == 1
    # a statement before the ask is context, read with it
    assert split_asks("The notes flag it as optional. What does it oblige the Recipient to do?") == [
        "The notes flag it as optional. What does it oblige the Recipient to do?"
    ]
