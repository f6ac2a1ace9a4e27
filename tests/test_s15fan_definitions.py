"""Definition questions' terms (session 15, fan review of an's "how is X defined" form).

"How is the term 'Recipient' defined?" named "term 'Recipient" (the noun that calls the asked word
a term was read as part of it), so the contract's "“Recipient” means ..." site was never found; and
"how are X defined" spans a clause when "defined" belongs to a later one."""

from docintel.questions.parse import parse_question


def test_the_naming_noun_is_not_part_of_the_term():
    assert parse_question("How is the term 'Recipient' defined?").defined_term == "Recipient"
    assert parse_question("What does the term Recipient mean?").defined_term == "Recipient"
    assert parse_question('Define the term "Larger Work".').defined_term == "Larger Work"


def test_a_term_of_something_keeps_its_noun():
    assert (
        parse_question("What is the definition of the term of the license?").defined_term
        == "term of the license"
    )


def test_a_clause_before_defined_names_no_term():
    q = parse_question("How are disputes resolved when a term is not defined?")
    assert q.defined_term is None
    q = parse_question("How is the fee calculated when the Licensed Product is defined in Exhibit A?")
    assert q.defined_term is None
    assert parse_question("How is it defined?").defined_term is None


def test_a_noun_phrase_before_defined_is_still_the_term():
    assert parse_question("How is a small entity defined under these rules?").defined_term == "small entity"
    assert parse_question("How is a late payment defined?").defined_term == "late payment"
