"""First-hop rules found on unseen document families (session 6): a law's preamble, the answer
type a question names."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from docintel.questions import parse_question
from docintel.retrieval.firsthop import _preamble_pages


def _tables(rows):
    return SimpleNamespace(line_df=pd.DataFrame(rows, columns=["page", "line", "text", "role"]))


def test_the_pages_before_the_enacting_formula_are_the_preamble():
    rows = [
        (1, 1, "Whereas:", "body"),
        (2, 1, "(85) A personal data breach should be notified within 72 hours.", "body"),
        (3, 1, "HAVE ADOPTED THIS REGULATION:", "body"),
        (4, 1, "Article 33 Notification of a personal data breach", "heading"),
    ]
    assert _preamble_pages(_tables(rows)) == {1, 2}


def test_no_formula_or_a_formula_on_the_first_page_leaves_no_preamble():
    bill = [
        (1, 3, "Be it enacted by the Senate and House of Representatives", "body"),
        (2, 1, "SEC. 2.", "body"),
    ]
    assert _preamble_pages(_tables(bill)) == set()
    plain = [(1, 1, "1 Introduction", "heading"), (2, 1, "The committee has adopted a plan.", "body")]
    assert _preamble_pages(_tables(plain)) == set()
    # the formula in a running header is furniture, not the document's own text
    header = [(1, 1, "Intro", "body"), (2, 1, "Now, therefore, the parties agree", "header")]
    assert _preamble_pages(_tables(header)) == set()


def test_a_duration_noun_names_the_answer_type_not_a_topic():
    q = parse_question("Within what time must the controller notify a breach to the authority?")
    assert "time" not in q.keywords and "breach" in q.keywords
    assert "deadline" not in parse_question("What deadline applies to an appeal?").keywords
    # a topic that is a time word stays one
    assert "time" in parse_question("How are time values encoded?").keywords
