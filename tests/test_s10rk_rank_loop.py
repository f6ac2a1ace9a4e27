"""rank.retrieve's per-page loop (session 10, rk): each candidate's score is the rounded weighted
sum of its rounded signals, zero signals stay exact zeros, and a page with no signal has no reason.
The loop skips round() and the reasons for zeros; these hold it to what the dict-per-page loop did."""

from __future__ import annotations

from docintel.questions import parse_question
from docintel.retrieval import retrieve
from docintel.retrieval.rank import WEIGHTS

from .test_retrieval import FILLER, make_tables

SIGNALS = ["bm25", "window", "phrase", "toc", "definition", "objects", "scope"]


def _tables():
    return make_tables(
        {
            1: FILLER,
            2: ["The Budget Review Board (BRB) approves every transfer of funds.", *FILLER],
            3: [],
            4: ["A transfer of funds needs the approval of the Budget Review Board.", *FILLER[:1]],
            5: ["Lunch was late.", "Nobody minded the rain."],
        }
    )


def test_score_is_the_rounded_weighted_sum_of_rounded_signals():
    for question in ("What is BRB?", "Who approves a transfer of funds?", "When did the committee meet?"):
        cands = retrieve(parse_question(question), _tables())
        assert sorted(c.page for c in cands) == [1, 2, 3, 4, 5]
        for c in cands:
            assert list(c.scores) == [*SIGNALS, "bm25_raw"]
            for v in c.scores.values():
                assert type(v) is float and v == round(v, 4)
            assert c.score == round(sum(WEIGHTS[k] * c.scores[k] for k in SIGNALS), 4)


def test_a_page_without_signal_has_exact_zeros_and_no_reason():
    cands = {c.page: c for c in retrieve(parse_question("Who approves a transfer of funds?"), _tables())}
    quiet = cands[5]
    assert quiet.score == 0.0 and all(v == 0.0 for v in quiet.scores.values())
    assert quiet.reasons == []
    assert cands[3].reasons == ["no text on this page (image-only or empty): ranked last"]
    assert [c for c in cands.values() if c.scores["bm25"] > 0 and c.reasons[0].startswith("keywords: ")]
    assert cands[2].reasons is not cands[4].reasons  # each page its own list (reasons are appended later)


def test_definition_page_scores_and_says_so():
    cands = {c.page: c for c in retrieve(parse_question("What is BRB?"), _tables())}
    assert cands[2].scores["definition"] == 1.0
    assert any(r.startswith("definition: 'BRB' is introduced on line") for r in cands[2].reasons)
