"""A link's quote is its own row or sentence (session 13 review): never the neighbouring rows,
bounded by ids of the same family too, never a word short at an identifier, never two blocks
spliced together."""

from __future__ import annotations

from docintel.corpus.paths.quotes import _trim, link_quote

ROWS = (
    "TASK M-1 CHANGES • Systems are monitored. [Cybersecurity Framework: {a}] "
    "TASK M-2 ONGOING ASSESSMENTS • Ongoing assessments are conducted. [Cybersecurity Framework: ID.SC-4] "
    "TASK M-3 RESPONSE • Findings are answered. [Cybersecurity Framework: {b}]"
)
ROW = "TASK M-2 ONGOING ASSESSMENTS • Ongoing assessments are conducted. [Cybersecurity Framework: ID.SC-4]"


def test_a_row_closed_by_its_id_takes_neither_neighbour():
    assert link_quote(ROWS.format(a="DE.CM-1", b="RS.AN-1"), "ID.SC-4", reach=200) == ROW


def test_ids_of_a_related_kind_bound_the_row_too():
    # categories (DE.CM, RS.AN) bound a subcategory's row as subcategories do
    assert link_quote(ROWS.format(a="DE.CM; ID.GV", b="RS.AN"), "ID.SC-4", reach=200) == ROW


def test_a_row_opened_by_its_id_runs_to_the_next_id_with_its_last_word():
    text = "AC-1 Policy text here. AC-2 Account management is done nightly by the owners of systems. AC-3 Access enforcement is checked."
    assert (
        link_quote(text, "AC-2", reach=200)
        == "AC-2 Account management is done nightly by the owners of systems."
    )


def test_in_running_text_the_quote_is_the_sentence_holding_the_id():
    text = "Sheds are painted green every spring by the owners. The nightly sealing rule of FIPS 201 applies to widget ledgers. Bicycles are kept in the shed."
    assert (
        link_quote(text, "FIPS 201", reach=200)
        == "The nightly sealing rule of FIPS 201 applies to widget ledgers."
    )


def test_a_cut_drops_a_word_only_when_it_falls_inside_one():
    text = "alpha beta gamma delta"
    assert _trim(text, 0, 11, cut_lo=False, cut_hi=True) == "alpha beta..."  # cut between words
    assert _trim(text, 0, 13, cut_lo=False, cut_hi=True) == "alpha beta..."  # inside "gamma"
    assert _trim(text, 6, 22, cut_lo=True, cut_hi=False) == "...beta gamma delta"
    assert _trim(text, 8, 22, cut_lo=True, cut_hi=False) == "...gamma delta"  # inside "beta"


def test_several_blocks_are_quoted_one_at_a_time():
    blocks = [
        "References: FIPS 201; SP 800-30; SP 800-39.",
        "Sheds are painted green every spring by the owners.",
        "Notes: FIPS 201 introduces the nightly quartz sealing rule for widget ledgers.",
    ]
    q = link_quote(blocks, "FIPS 201", {"quartz", "sealing"}, reach=200)
    assert q == "Notes: FIPS 201 introduces the nightly quartz sealing rule for widget ledgers."


def test_an_id_with_a_colon_labels_the_text_after_it():
    # a row whose text has no full stop: the previous row's tail does not come along
    text = "PR.IP-8: Effectiveness of protection technologies is shared PR.IP-9: Response plans and recovery plans are in place and managed PR.IP-10: Plans are tested"
    assert (
        link_quote(text, "PR.IP-9", reach=200)
        == "PR.IP-9: Response plans and recovery plans are in place and managed"
    )


def test_quotes_are_capped_each_and_together():
    from docintel.corpus.paths.quotes import capped

    long = "word " * 100
    got = capped([long, "short quote here", long, "another short one"], each=60, total=100)
    assert len(got[0]) <= 63 and got[0].endswith("...") and got[1] == "short quote here"
    assert got[2] == "" and got[3] == "another short one"  # past the budget: named, not quoted
    assert sum(map(len, got)) <= 100


def test_a_parenthesis_inside_a_sentence_does_not_close_a_row():
    text = "Sheds are painted green. Owners keep the ledger (see AC-2) which the auditors read every spring. Bikes are kept."
    assert (
        link_quote(text, "AC-2", reach=200)
        == "Owners keep the ledger (see AC-2) which the auditors read every spring."
    )
