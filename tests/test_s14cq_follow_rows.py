"""Which identifier the follow path follows: an id's surroundings are its own row when the text
marks rows ("PR.AC-2: Physical access ..."), never the row before it, and an id of another kind
listed after such rows (a column of controls read after a column of subcategories) does not
take in the rows the subcategories label."""

from __future__ import annotations

from docintel.corpus.paths.follow import evidence_mentions, rank_idents

ROWS = (
    "PR.AC-1: Identities and credentials are issued and verified for authorized users "
    "PR.AC-2: Physical access to assets is managed and protected "
    "PR.AC-3: Remote access is managed "
)
QUESTION = "Which other guidance covers the outcome that physical access to assets is managed and protected?"


def _surroundings(text):
    return {m.ident.canonical: w for m, w in evidence_mentions([{"text": text}], [])}


def test_a_labelled_row_is_read_after_its_label_only():
    around = _surroundings(ROWS)
    assert "Physical access" in around["PR.AC-2"]
    assert "Physical access" not in around["PR.AC-3"]  # the row before a label is another id's
    assert "Identities" not in around["PR.AC-2"]


def test_the_id_whose_own_row_holds_the_question_is_followed_first():
    mentions = evidence_mentions([{"text": ROWS}], [])
    # PR.AC-3 is the rarest in the corpus: with its neighbour's row in its surroundings it won
    ranked = rank_idents(QUESTION, mentions, {"PR.AC-1": 6, "PR.AC-2": 6, "PR.AC-3": 2}, 40)
    assert ranked[0][0] == "PR.AC-2"


def test_an_id_after_labelled_rows_does_not_read_them():
    text = ROWS + "SP 800-53 Rev. 4 Controls AC-2, IA-2, PE-3"
    around = _surroundings(text)
    assert "Physical access" not in around["AC-2"]
    assert "Remote access" in around["AC-2"]  # the row it sits in is still its surroundings
    mentions = evidence_mentions([{"text": text}], [])
    ranked = rank_idents(QUESTION, mentions, {"PR.AC-1": 6, "PR.AC-2": 6, "PR.AC-3": 6, "AC-2": 3}, 40)
    assert ranked[0][0] == "PR.AC-2"


def test_an_id_closing_its_row_reads_back_to_the_previous_one():
    text = (
        "Suppliers are assessed with audits and test results. [Framework: ID.SC-4] "
        "Monitoring strategy is developed for physical access. [Framework: DE.CM-2]"
    )
    around = _surroundings(text)
    assert "audits" in around["ID.SC-4"] and "physical" not in around["ID.SC-4"]
    assert "physical" in around["DE.CM-2"] and "audits" not in around["DE.CM-2"]


def test_an_id_opening_a_block_does_not_read_the_block_before_it():
    # two blocks joined with a newline (a start block and its neighbour): the second opens with
    # its id and no label colon; the text before it is the first block's
    text = (
        "PR.AC-1 Identities and credentials are issued. Test: mechanisms managing physical access to assets."
        "\nPR.AC-3 Remote access is managed"
    )
    around = _surroundings(text)
    assert "physical" not in around["PR.AC-3"] and "Remote access" in around["PR.AC-3"]
    mentions = evidence_mentions([{"text": text}], [])
    ranked = rank_idents(QUESTION, mentions, {"PR.AC-1": 6, "PR.AC-3": 2}, 40)
    assert ranked[0][0] == "PR.AC-1"
