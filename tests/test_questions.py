"""Question parsing: keywords, phrases, numbers, scope, answer shape, and bad questions."""

from __future__ import annotations

import pytest

from docintel.errors import UsageError
from docintel.questions import defined_term, parse_question, terms, words
from docintel.text import stem


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        # Vectors from Porter (1980) and its reference vocabulary.
        ("caresses", "caress"),
        ("ponies", "poni"),
        ("cats", "cat"),
        ("agreed", "agre"),
        ("hopping", "hop"),
        ("filing", "file"),
        ("happy", "happi"),
        ("relational", "relat"),
        ("generalizations", "gener"),
        ("adjustment", "adjust"),
        ("controll", "control"),
    ],
)
def test_porter_stemmer_matches_reference_vectors(word, expected):
    assert stem(word) == expected


def test_stemmer_conflates_the_paraphrases_retrieval_needs():
    assert stem("embeddings") == stem("embedding")
    assert stem("randomized") == stem("randomization") == stem("randomizing")
    assert stem("layers") == stem("layer")
    # ids and numbers are index keys as written
    assert stem("rv_length_indicator") == "rv_length_indicator"
    assert stem("28.4") == "28.4"


def test_words_normalise_ligatures_quotes_and_possessives():
    assert words("The ﬁrst model’s output") == ["the", "first", "model", "output"]
    assert words("sine/cosine english-to-german 28.4 rv_length_indicator") == [
        "sine",
        "cosine",
        "english",
        "to",
        "german",
        "28.4",
        "rv_length_indicator",
    ]
    assert terms("the learned positional embeddings") == ["learn", "posit", "embed"]


def test_keywords_are_lower_case_content_words_in_order_without_filler():
    q = parse_question("What do the authors say about Learned Positional Embeddings in the paper?")
    assert q.keywords == ["learned", "positional", "embeddings"]
    assert all(k == k.lower() for k in q.keywords)


def test_phrases_hold_quoted_hyphenated_and_noun_runs():
    q = parse_question('How does "scaled dot-product attention" relate to multi-head attention layers?')
    assert "scaled dot-product attention" in q.phrases  # quoted
    assert "multi-head" in q.phrases  # hyphenated
    assert "multi head attention layers" in q.phrases  # run of content words


def test_numbers_are_collected_but_not_the_scope_number():
    q = parse_question("Which model reached 28.4 BLEU with 300K steps?")
    assert q.numbers == ["28.4", "300K"]
    q = parse_question("What does Table 3 say about 4096 units?")
    assert q.numbers == ["4096"]
    assert q.scope is not None and q.scope.target == "3"


@pytest.mark.parametrize(
    ("question", "kind", "target"),
    [
        ("What is reported in Table 2?", "table", "2"),
        ("Summarise Section 3.1 for me", "section", "3.1"),
        ("What does § 39.13 change?", "section", "39.13"),
        ("What is stated on page 8 about costs?", "page", "8"),
        ("Explain Appendix A briefly", "appendix", "A"),
        ("What does Figure 1 show?", "figure", "1"),
        ("Derive Eq. (3) step by step", "equation", "3"),
        ("What does paragraph (q)(1) require?", "clause", "(q)(1)"),
        ("Which ISO clauses does Annex B list?", "annex", "B"),
    ],
)
def test_scope_names_the_region(question, kind, target):
    scope = parse_question(question).scope
    assert scope is not None
    assert (scope.kind, scope.target) == (kind, target)
    assert scope.text.lower().startswith(scope.text.split()[0].lower())


@pytest.mark.parametrize(
    "question",
    [
        "How many tables and figures does it have?",  # plural words, no id
        "What is in the appendix a reader should check?",  # lower-case 'a' is an article, not an id
        "Describe the page layout",
    ],
)
def test_no_scope_without_a_named_region(question):
    assert parse_question(question).scope is None


@pytest.mark.parametrize(
    ("question", "shape"),
    [
        ("What is intra-attention?", "definition"),
        ("Define the exclusive-or operation.", "definition"),
        ("What does AFM stand for?", "definition"),
        ("Does NIST require the use of randomized hashing?", "yes_no"),
        ("The rule changed last year. Is the old checklist still valid?", "yes_no"),
        ("Do learned embeddings give similar results to sinusoidal ones?", "yes_no"),
        ("Compare the base model versus the big model.", "comparison"),
        ("How do the two encodings differ in accuracy?", "comparison"),
        ("List all the checklists the AD would revise.", "list"),
        ("How many tables does the paper contain, and what does each one report?", "list"),
        ("How many heads are used?", "number"),
        ("What length must the random value have?", "number"),
        ("How is the 16-bit rv_length_indicator computed?", "procedure"),
        ("What steps must an operator take before flight?", "procedure"),
        ("Which regulation sets the wiring separation criteria?", "fact"),
        ("What is reported in Table 2?", "fact"),
    ],
)
def test_answer_shape_from_cue_words(question, shape):
    assert parse_question(question).shape == shape


def test_defined_term():
    assert defined_term("What is MCAS and when is it active?") == "MCAS"
    assert defined_term("What is intra-attention?") == "intra-attention"
    assert defined_term("What does AFM stand for?") == "AFM"
    # the user's quotes are not part of the term; a hyphenated word is one word of it
    assert defined_term("What does 'covered entity' mean?") == "covered entity"
    assert defined_term("What does \u201cLarger Work\u201d mean?") == "Larger Work"
    assert defined_term("What is an 'at-risk community'?") == "at-risk community"
    assert defined_term("What is reported in Table 2?") is None
    # a law's defined term runs longer; a participle alone or last is a predicate, not a term
    assert defined_term("What is an authorized hazardous fuel reduction project?") == (
        "authorized hazardous fuel reduction project"
    )
    assert defined_term("What is required?") is None
    assert defined_term("What is the total encrypted?") is None
    assert defined_term("What is reported on page 8?") is None


@pytest.mark.parametrize("bad", ["", "   \n\t", "What is the?", "and or but", "?!?"])
def test_empty_or_contentless_question_is_a_usage_error(bad):
    with pytest.raises(UsageError):
        parse_question(bad)


def test_overlong_question_is_a_usage_error_with_a_fix():
    with pytest.raises(UsageError, match="2000"):
        parse_question("attention " * 300)


def test_number_only_question_is_accepted():
    q = parse_question("28.4?")
    assert q.numbers == ["28.4"] and q.keywords == []
