"""Review fixes to the ambiguous-first-page warning (session 10, fxn).

The warning is about the page the keyword ranking chose: it must not fire when the first hop
read other pages (a registry listing, a heading series), it must name the page as the first
page read (the answer may come from several pages or a followed target), and a question naming
a region the document lacks is still ranked by its words, so it is warned like any other.
"""

from __future__ import annotations

from docintel import decide
from docintel.generation.offline import OfflineBackend
from docintel.questions import parse_question
from docintel.retrieval import retrieve
from docintel.retrieval.ambiguity import first_page_warning, rival_pages
from docintel.schema.trace import Trace

from .test_retrieval import DOC, FILLER, make_tables
from .test_s10an_ambiguous_first_page import _Q, _pages


def _ask(tables, question: str):
    q = parse_question(question)
    return decide.run_loop(tables, q, backend=OfflineBackend(), trace=Trace(), max_loops=1)


def _ambiguous(result) -> list[str]:
    return [w for w in result.warnings if w.startswith("ambiguous first page")]


def test_no_warning_when_a_heading_series_is_the_first_hop():
    pages = {p: FILLER for p in range(1, 13)}
    pages[1] = ["The Implementation Tiers range from Partial to Adaptive in the framework.", *FILLER]
    pages[10] = ["Implementation Tiers range from Partial to Adaptive in the framework.", *FILLER]
    pages[4] = [("Tier 1: Partial", "heading"), "Practices are not formalized.",
                ("Tier 2: Informed", "heading"), "Practices are approved by management."]  # fmt: skip
    pages[6] = [("Tier 3: Repeatable", "heading"), "Practices are formally approved."]
    toc = [{"doc_id": DOC, "toc_id": i, "title": t, "level": 1, "page_start": p, "line_start": ln}
           for i, t, p, ln in [("s1", "Tier 1: Partial", 4, 1), ("s2", "Tier 2: Informed", 4, 3),
                               ("s3", "Tier 3: Repeatable", 6, 1)]]  # fmt: skip
    tables = make_tables(pages, toc=toc)
    q = parse_question("What are the three Implementation Tiers?")
    cands = retrieve(q, tables)
    assert {cands[0].page, cands[1].page} == {1, 10}  # a near tie the series path did not read
    result = _ask(tables, q.text)
    assert 1 not in {e.page for e in result.evidence}
    assert _ambiguous(result) == []


def test_the_ranking_first_page_must_be_a_page_the_first_hop_read():
    tables = make_tables(_pages(9))
    cands = retrieve(parse_question(_Q), tables)
    q = parse_question(_Q)
    assert first_page_warning(tables, q, cands, [], first_pages=[cands[0].page])
    assert first_page_warning(tables, q, cands, [], first_pages=[5]) == []


def test_the_warning_names_the_first_page_read():
    result = _ask(make_tables(_pages(9)), _Q)
    warned = _ambiguous(result)
    assert warned and "the first page read" in warned[0]
    assert "the answer is read from" not in warned[0]


def test_a_named_region_the_document_lacks_does_not_silence_the_warning():
    question = (
        "Under Section 22, how many acres of Federal land may be treated under fuel reduction projects?"
    )
    assert parse_question(question).scope is not None
    result = _ask(make_tables(_pages(9)), question)
    assert _ambiguous(result)


def _near_tie(first: int, rival: int) -> list[dict]:
    return [{"page": first, "score": 2.0, "reasons": []}, {"page": rival, "score": 1.99, "reasons": []}]


def test_on_a_page_where_two_sections_meet_the_one_starting_there_holds_it():
    toc = [{"doc_id": DOC, "toc_id": i, "number": n, "title": t, "level": 2, "page_start": p, "line_start": 1}
           for i, n, t, p in [("a", "3.1", "Scope", 2), ("b", "3.2", "Retention", 6),
                              ("c", "3.3", "Review", 12)]]  # fmt: skip
    tables = make_tables({p: FILLER for p in range(1, 15)}, toc=toc)
    assert rival_pages(tables, _near_tie(6, 9), []) == []  # 3.2 runs from page 6 to page 12
    assert rival_pages(tables, _near_tie(6, 3), []) == [(3, 0.995)]  # 3.1 ends on page 6


def test_a_section_spanning_most_of_the_document_does_not_silence_the_warning():
    toc = [{"doc_id": DOC, "toc_id": "t", "title": "SUPREME COURT OF THE UNITED STATES", "level": 1,
            "page_start": 2, "page_end": 20}]  # fmt: skip
    tables = make_tables({p: FILLER for p in range(1, 25)}, toc=toc)
    assert rival_pages(tables, _near_tie(5, 15), []) == [(15, 0.995)]
    narrow = [{**toc[0], "page_end": 12}]  # 11 of 24 pages: one provision's pages
    assert rival_pages(make_tables({p: FILLER for p in range(1, 25)}, toc=narrow), _near_tie(5, 10), []) == []
