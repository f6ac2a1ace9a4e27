"""Definition questions the parser did not see (session 15, an): "what does the word X refer to",
"how is X defined", and a phrase that points back ("how is that sensitivity defined") naming no term."""

from docintel.questions.parse import parse_question


def test_what_does_the_word_refer_to_names_the_word():
    q = parse_question("In the report, what does the word 'sentence' refer to?")
    assert q.shape == "definition"
    assert q.defined_term == "sentence"


def test_how_is_x_defined_names_x():
    q = parse_question("How is a Framework Profile defined?")
    assert q.shape == "definition"
    assert q.defined_term == "Framework Profile"


def test_a_term_pointing_back_is_no_term():
    q = parse_question("Which sensitivity is the noise scaled to, and how is that sensitivity defined?")
    assert q.shape == "definition"
    assert q.defined_term is None


def test_refer_to_without_a_word_noun_is_not_a_definition():
    # "what does Section 3 refer to" asks what a pointer points at, not what a word means
    q = parse_question("What does Section 3 refer to?")
    assert q.shape != "definition"
