"""Issue 10, session 4: first hop on back matter and commentary, list questions answered from a
series of labelled headings, source questions, long targets, and provision numbers that do not
make a direct question loop."""

from __future__ import annotations

from docintel.generation.offline.backend import _WANTS_SOURCES
from docintel.generation.offline.scoring import _item_number
from docintel.questions import parse_question
from docintel.retrieval import retrieve
from docintel.retrieval.overview import member_passages
from docintel.retrieval.rank import commentary_pages
from docintel.schema.evidence import EvidenceLine

from .test_retrieval import DOC, FILLER, make_tables

_REFS = [("References", "heading"), "[1] A. Author. A paper. 2001."]


def _toc(*rows: tuple[str, str, int, int]) -> list[dict]:
    return [
        {"doc_id": DOC, "toc_id": i, "title": t, "level": 1, "page_start": p, "line_start": ln}
        for i, t, p, ln in rows
    ]


def test_back_matter_ranks_below_a_body_page_that_says_what_it_says():
    body = ["The ensemble achieved a top-5 error on the test set of the challenge.", *FILLER]
    glossary = [*_REFS, "Ensemble: the ensemble achieved a top-5 error on the test set.", body[0]]
    toc = _toc(("1", "Part One", 1, 1), ("s2", "References", 6, 1))
    tables = make_tables({1: body, 2: FILLER, 3: FILLER, 4: FILLER, 5: FILLER, 6: glossary}, toc=toc)
    cands = retrieve(parse_question("Which error did the ensemble achieve on the test set?"), tables)
    assert cands[1].score > cands[0].score  # the back-matter page scores higher on its own ...
    assert [c.page for c in cands][:2] == [1, 6]  # ... and still ranks after the body page
    assert any("page 1 of the body matches every question term" in r for r in cands[1].reasons)


def test_back_matter_keeps_its_rank_when_it_alone_holds_a_question_term():
    body = ["The model uses an activation in every layer of the network.", *FILLER]
    appendix = [*_REFS, "We use a gelu activation rather than the standard relu in every layer."]
    toc = _toc(("1", "Part One", 1, 1), ("s2", "References", 6, 1))
    tables = make_tables({1: body, 2: FILLER, 3: FILLER, 4: FILLER, 5: FILLER, 6: appendix}, toc=toc)
    cands = retrieve(parse_question("Which activation does the model use instead of relu?"), tables)
    assert cands[0].page == 6  # only the appendix says "relu": no body page covers it


def test_sections_titled_by_an_earlier_provisions_label_are_commentary():
    pages = {
        1: ["8.8 This Agreement is governed by English law.", *FILLER],
        2: [("Clause 8.8", "heading"), "Which law will govern the document?", *FILLER],
    }
    toc = _toc(("s1", "Clause 8.8", 2, 1))
    registry = [{"doc_id": DOC, "object_key": "clause:8.8", "object_type": "clause", "object_id": "8.8",
                 "label": "Clause 8.8", "page": 1, "line_start": 1}]  # fmt: skip
    tables = make_tables(pages, toc=toc, registry=registry)
    assert commentary_pages(tables) == {2}
    # the heading that opens the provision itself is not commentary
    own = [{**registry[0], "page": 2}]
    assert commentary_pages(make_tables(pages, toc=toc, registry=own)) == set()


def test_counts_kinds_and_members_are_list_questions():
    for q in (
        "What are the four Framework Implementation Tiers, from lowest to highest?",
        "What kinds of information are excluded from the confidentiality obligations?",
        "How many Categories does the Core define, and what are their identifiers?",
    ):
        assert parse_question(q).shape == "list", q
    assert parse_question("What are the key steps?").shape != "list"


def test_a_list_question_is_answered_from_its_series_of_labelled_headings():
    pages = {
        1: [("2.2 Implementation Tiers", "heading"), "The Tiers range from Partial to Adaptive.", *FILLER],
        2: [("Tier 1: Partial", "heading"), "Practices are not formalized.", ("Tier 2: Informed", "heading"),
            "Practices are approved by management."],
        3: [("Tier 3: Repeatable", "heading"), "Practices are formally approved."],
        4: [("Clause 5.1", "heading"), "The Recipient must keep it confidential."],
    }  # fmt: skip
    toc = _toc(("2.2", "Implementation Tiers", 1, 1), ("s1", "Tier 1: Partial", 2, 1),
               ("s2", "Tier 2: Informed", 2, 3), ("s3", "Tier 3: Repeatable", 3, 1), ("s4", "Clause 5.1", 4, 1))  # fmt: skip
    tables = make_tables(pages, toc=toc)
    got = member_passages(tables, parse_question("What are the three Implementation Tiers?"))
    text = "\n".join(p.text for p in got)
    assert [p.page for p in got] == [2, 2, 3]
    assert "Tier 1: Partial" in text and "Tier 3: Repeatable" in text and "Clause 5.1" not in text
    assert member_passages(tables, parse_question("What does Tier 2 require?")) == []  # not a list question


def test_attribution_questions_ask_for_sources():
    assert _WANTS_SOURCES.search("Whose weight-initialization method do the authors follow?")
    assert _WANTS_SOURCES.search("Who introduced the residual block?")
    assert not _WANTS_SOURCES.search("How are the weights initialized?")


def test_a_decimal_provision_number_is_not_a_list_item():
    assert _item_number("8.7 Subject to Clause 8.6, this Agreement") is None
    assert _item_number("1. The output from an approved generator") == "1"
    assert _item_number("(a) known to the Recipient") == "a"


def test_author_year_citations_are_read_inside_parentheses_across_a_line_break():
    from docintel.generation.refdetect import detect_author_year

    lines = [
        EvidenceLine(page=13, line=102, text="ability of 0.1 on all layers. We use a gelu acti-"),
        EvidenceLine(page=13, line=103, text="vation (Hendrycks and Gimpel, 2016) rather than"),
        EvidenceLine(page=13, line=104, text="models (Peters et al., 2018a; Radford et al.,"),
        EvidenceLine(page=13, line=105, text="2018) and a note (see above, page 3)."),
    ]
    got = [(r.raw_text, r.target, r.line) for r in detect_author_year(lines)]
    assert got == [
        ("Hendrycks and Gimpel, 2016", "Hendrycks 2016", 103),
        ("Peters et al., 2018a", "Peters 2018", 104),
        ("Radford et al., 2018", "Radford 2018", 104),
    ]


def test_an_author_year_citation_resolves_to_its_reference_list_entry():
    from docintel.retrieval.windows import citation_entry

    toc = _toc(("1", "Part One", 1, 1), ("s2", "References", 2, 1))
    refs = [("References", "heading"), "Jimmy Ba and Geoffrey Hinton. 2016. Layer normalization.",
            "Dan Hendrycks and Kevin Gimpel. 2016. Bridging", "nonlinearities with gaussian error",
            "linear units. CoRR, abs/1606.08415.", "Sepp Hochreiter. 1997. Long short-term memory."]  # fmt: skip
    tables = make_tables({1: FILLER, 2: refs}, toc=toc)
    got = citation_entry(tables, "Hendrycks", "2016")
    assert got["line"].tolist() == [3, 4, 5]
    assert citation_entry(tables, "Hendrycks", "2017").empty
    assert citation_entry(make_tables({1: FILLER}), "Hendrycks", "2016").empty  # no reference list


def test_a_source_question_keeps_the_pages_citing_line_in_the_first_hop_window():
    from docintel.retrieval.windows import cited_line

    page = ["The value shall be either:", "1. The output from an approved random bit generator (see [SP 800-90]),",
            "2. Formed from several copies of the output.", "details can be found in [FIPS 186-3]."]  # fmt: skip
    tables = make_tables({1: page, 2: FILLER})
    q = parse_question("Which publication specifies the random bit generators that may be used?")
    assert cited_line(tables, q, 1) == 2
    assert cited_line(tables, parse_question("Which publication covers coffee?"), 1) is None


def test_a_long_table_gives_the_members_filed_under_the_code_of_the_name_asked_about():
    import pandas as pd

    from docintel.retrieval.windows import best_section_window

    rows = ["Appendix A: Core"] + [f"XX.AA-{i}: Filler outcome number {i} of the table" for i in range(1, 60)]
    rows += ["Governance (ID.GV): The policies to manage risk", "ID.GV-1: Security policy is established"]
    rows += [f"Unrelated control text line {i}" for i in range(30)]
    rows += ["ID.GV-2: Roles are coordinated", "aligned with partners"]
    rows += [f"More unrelated text {i}" for i in range(30)]
    df = pd.DataFrame({"page": 20, "line": range(1, len(rows) + 1), "text": rows, "role": "table"})
    q = parse_question("Governance is a category of the function. Which outcomes does it comprise?")
    text = "\n".join(best_section_window(df, q, 12)["text"])
    assert "Governance (ID.GV)" in text and "ID.GV-1: Security" in text and "ID.GV-2: Roles" in text
