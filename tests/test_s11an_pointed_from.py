"""The text that points at a first hop's target (session 11, an).

When pass 1 lands on the note, table or section a question's other half points at ("see Note 19"),
the pointing text is on another page and no pointer leads back to it. ``pointing_passages`` reads
the document's pointers the other way. Question set 5's tor-contingent, sp150-tlp-red and
tm-monitor-blacklisted were this case.
"""

from __future__ import annotations

from docintel.questions import parse_question
from docintel.retrieval import retrieve
from docintel.retrieval.passage import best_passage
from docintel.retrieval.pointedfrom import pointing_passages

from .test_retrieval import FILLER, make_tables

_Q = "How are contingent assets accounted for, and are contingent assets recorded in the statements?"
_POLICY = "Contingent assets are possible assets that arise from past events; see Note 7."
_NOTE = [
    ("7 Contingent assets", "heading"),
    "Contingent assets of the City are not recorded in the statements.",
    "Contingent assets are disclosed when their realization is likely.",
]
_TOC = [
    {"toc_id": "7", "number": "7", "title": "Contingent assets", "level": 1, "page_start": 5, "line_start": 1,
     "page_end": 5, "line_end": 3, "source": "heading_detection"},
]  # fmt: skip


def _tables(policy_page: list):
    pages = {p: FILLER for p in range(1, 9)}
    pages[2] = policy_page
    pages[5] = _NOTE
    return make_tables(pages, toc=_TOC)


def _first(tables):
    q = parse_question(_Q)
    ranked = retrieve(q, tables)
    return q, ranked, [best_passage(tables, q, ranked[0].page)]


def test_the_page_pointing_at_the_first_hops_note_joins_pass_1():
    tables = _tables([*FILLER, _POLICY])
    q, ranked, first = _first(tables)
    assert ranked[0].page == 5  # the note itself wins the first hop
    got = pointing_passages(tables, q, first, ranked)
    assert [p.page for p in got] == [2]
    assert "see Note 7" in got[0].text and "points at the first hop's target" in got[0].note


def test_no_pointing_window_from_a_running_header_or_a_page_the_ranking_did_not_find():
    # the page shares the question's words, but only its running header names the note
    headed = _tables(
        [("Notes to the statements: Note 7", "header"), "Contingent assets arise from past events."]
    )
    q, ranked, first = _first(headed)
    assert 2 in [c.page for c in ranked[:5] if c.score > 0]
    assert pointing_passages(headed, q, first, ranked) == []
    # a page that points at the note but shares no word of the question is not in the pool
    unrelated = _tables(["The committee met; see Note 7.", *FILLER])
    q, ranked, first = _first(unrelated)
    assert pointing_passages(unrelated, q, first, ranked) == []


def test_no_pointing_window_when_the_first_window_opens_no_target():
    tables = _tables([*FILLER, _POLICY])
    q, ranked, _ = _first(tables)
    other = [best_passage(tables, q, 2)]  # the first hop on the pointing page: the loop follows it
    assert pointing_passages(tables, q, other, ranked) == []


def test_no_look_back_when_the_first_window_points_onward_or_the_pointer_names_its_own_part():
    # the note points on to Note 8: the loop has a pointer to follow, the first hop is no end point
    onward = _tables([*FILLER, _POLICY])
    onward.line_df.loc[(onward.line_df["page"] == 5) & (onward.line_df["line"] == 3), "text"] = (
        "Contingent assets are disclosed as set out in Note 8."
    )
    q, ranked, first = _first(onward)
    assert pointing_passages(onward, q, first, ranked) == []
    # "this Note 7" on another page is written inside the note, not a pointer at it
    own = _tables([*FILLER, "Contingent assets are recorded under this Note 7 only."])
    q, ranked, first = _first(own)
    assert pointing_passages(own, q, first, ranked) == []


def test_no_look_back_from_an_overview_that_points_at_many_parts():
    overview = [
        "Note 2 describes the accounting policies.",
        "Note 3 describes the investments.",
        "Note 4 describes the debt.",
        "Note 6 describes the pensions.",
        "Note 7 describes contingent assets and whether they are recorded.",
    ]
    tables = _tables(overview)
    q, ranked, first = _first(tables)
    assert pointing_passages(tables, q, first, ranked) == []


def test_no_look_back_from_a_window_that_only_uses_the_target():
    # the page ranks for the question's words elsewhere, but the pointing lines hold none of them
    tables = _tables(["The operation, as set out in Note 7, runs each year.", *FILLER, *FILLER,
                      "Contingent matters are reviewed by the committee."])  # fmt: skip
    q, ranked, first = _first(tables)
    assert pointing_passages(tables, q, first, ranked) == []


def test_no_look_back_from_a_use_of_a_term_the_target_defines():
    tables = _tables([*FILLER, "Contingent assets, as defined in Note 7, are reported each year."])
    q, ranked, first = _first(tables)
    assert pointing_passages(tables, q, first, ranked) == []
