"""Long documents: paragraph bookmarks are not sections; overview pages and answer types in ranking.

Named after the session-4 findings they pin: the GDPR print's and SP 800-160v1's outlines
bookmark body paragraphs (so an article's toc extent stopped after its first paragraph), the HIPAA
eCFR print's Appendix A matrix outranked the 164.308 text, and RFC 6749's overview 1.3.3
("long-lived") outranked 4.1.2 ("lifetime of 10 minutes") for "How long should ... live?".
"""

from __future__ import annotations

import pytest

from docintel.parsing.toc_sources import section_outline, sentence_like
from docintel.questions import parse_question
from docintel.retrieval import retrieve
from docintel.retrieval.firsthop import overview_pages

from .test_retrieval import FILLER, make_tables

PARAGRAPHS = [
    "(a) the processing is based on consent pursuant to point (a) of Article 6(1); and",
    "1. The data subject shall have the right to obtain from the controller the erasure of personal "
    "data concerning him or her without undue delay",
    "1. Personal data shall be:",
    "(a) Union law; or",
    "\uf0b7 Defining security requirements; and",
    "Discussion:  None.",
    "Primary Responsibility:  System Owner; Information Owner or Steward.",
    "System Development Life Cycle Phase:  New \u2013 Development/Acquisition.",
    "The principle of least common mechanism states that the amount of mechanism common to more "
    "than one user and depended on by all users be minimized.",
    "AQ-3.3 Negotiate and institute changes to the agreement with the supplier to address identified "
    "security impacts.",
]
SECTIONS = [
    "2.4.2   The Solution Context",
    "F.1.2   Least Common Mechanism",
    "1.1   purpose and applicability",  # small capitals exported in lower case
    "Article 17",
    "Appendix A to Subpart C of Part 164\u2014Security Standards: Matrix",
    "TABLE 1:  FOUNDATIONAL SYSTEM-RELATED ENGINEERING-BASED CONSTRUCTS",
    "FIGURE 3:  SYSTEMS SECURITY ENGINEERING FRAMEWORK",
    "4.2 Step 2: Identify and Select the Attack Vectors to Be Included in the Model",
    "FAMILY: AWARENESS AND TRAINING",
    "SA-12 (11)  supply chain protection | penetration testing / analysis of elements, processes, "
    "and actors     [Back to SCRM Control]",
    "Considerations in Determining Assessment and Monitoring Frequencies.",
    "Framework for Improving Critical Infrastructure Cybersecurity, Version 1.1",
    "3.1.1 organization (tier 1) and mission/business processes (tier 2) iscm strategy",
    "Abstract",
    "Article 5. Principles relating to processing of personal data.",
    "3.1.2 The contractor shall deliver the reports listed in the schedule.",
]


@pytest.mark.parametrize("title", PARAGRAPHS)
def test_paragraph_bookmarks_are_sentence_like(title):
    assert sentence_like(title) is not None


@pytest.mark.parametrize("title", SECTIONS)
def test_section_bookmarks_are_kept(title):
    assert sentence_like(title) is None


def test_section_outline_keeps_sections_in_order_and_drops_paragraphs():
    outline = [(1, SECTIONS[0], 40), (2, PARAGRAPHS[4], 40), (2, PARAGRAPHS[5], 41), (1, SECTIONS[1], 223)]
    assert section_outline(outline) == [(1, SECTIONS[0], 40), (1, SECTIONS[1], 223)]
    assert section_outline([(1, p, 3) for p in PARAGRAPHS]) == []  # paragraphs only: no outline


def _regulation(matrix_page: int = 3):
    provision = [
        ("\u00a7 164.308 Administrative safeguards.", "heading"),
        "(5)(i) Standard: Security awareness and training. Implement a security awareness and training",
        "program for all members of its workforce (including management).",
        "(ii) Implementation specifications (Required). These apply: (A) Security reminders (Addressable).",
        "(B) Protection from malicious software (Addressable). (C) Log-in monitoring (Addressable).",
        *FILLER * 6,
    ]
    matrix = [
        ("Appendix A to Subpart C of Part 164\u2014Security Standards: Matrix", "heading"),
        ("Required, (A) = Addressable", "heading"),
        "Security Management Process 164.308(a) (1)",
        "Assigned Security Responsibility 164.308(a) (2)",
        "Workforce Security 164.308(a) (3)",
        "Security Awareness and Training 164.308(a) (5)",
        "Security Incident Procedures 164.308(a) (6)",
        "Contingency Plan 164.308(a) (7)",
        "Security Reminders (A) Implementation Specifications Security Awareness",
        "Protection from Malicious Software (A) Security Awareness Training",
        "Log-in Monitoring (A) Implementation Specifications Security Awareness Training",
        "Password Management (A) Implementation Specifications Security Awareness Training",
    ]
    toc = [
        {"doc_id": "0123456789abcdef", "toc_id": "t1", "level": 1, "number": "164.308",
         "title": "Administrative safeguards", "page_start": 1, "line_start": 1, "page_end": 2},
        {"doc_id": "0123456789abcdef", "toc_id": "t2", "level": 1, "number": "164.310",
         "title": "Physical safeguards", "page_start": 2, "line_start": 1, "page_end": 2},
        {"doc_id": "0123456789abcdef", "toc_id": "t3", "level": 1, "number": None,
         "title": "Required, (A) = Addressable", "page_start": matrix_page, "line_start": 2,
         "page_end": matrix_page},
    ]  # fmt: skip
    pages = {
        1: provision,
        2: [("\u00a7 164.310 Physical safeguards.", "heading"), *FILLER],
        matrix_page: matrix,
    }
    pages.update({p: FILLER for p in range(4, 12)})  # a longer document: shared words get an idf
    return make_tables(pages, toc=toc)


def test_matrix_pointing_at_sections_is_an_overview_page_and_ranks_after_the_provision():
    tables = _regulation()
    assert overview_pages(tables) == {3}
    q = "Which required and addressable implementation specifications apply to security awareness and training?"
    cands = retrieve(parse_question(q), tables)
    assert cands[0].page == 1
    assert any("back matter: page 1" in r for r in next(c for c in cands if c.page == 3).reasons)


def test_prose_citing_sections_is_not_an_overview_page():
    prose = [
        "A covered entity must comply with the standards of \u00a7 164.308 and the implementation",
        "specifications of \u00a7 164.310 with respect to all electronic protected health information,",
        "as provided in \u00a7 164.308(a)(1) and \u00a7 164.308(a)(5), unless \u00a7 164.310 applies.",
    ] * 3
    tables = _regulation()
    tables = make_tables({1: prose, 2: FILLER}, toc=tables.toc_df.iloc[:2].to_dict("records"))
    assert overview_pages(tables) == set()


def test_duration_question_goes_to_the_page_that_states_a_duration():
    overview = [
        "The authorization code grant issues an authorization code to the client.",
        "Refresh tokens are long-lived credentials.",
        *FILLER,
    ]
    provision = [
        "The authorization code MUST expire shortly after it is issued to mitigate the risk of leaks.",
        "A maximum authorization code lifetime of 10 minutes is RECOMMENDED.",
        *FILLER,
    ]
    tables = make_tables({1: overview, 2: provision, **{p: FILLER for p in range(3, 10)}})
    cands = retrieve(parse_question("How long should an authorization code live?"), tables)
    assert cands[0].page == 2
    assert any("answer type" in r for r in cands[1].reasons)
    # the same words without a duration question keep the keyword order
    assert (
        retrieve(parse_question("Why should an authorization code not be long-lived?"), tables)[0].page == 1
    )


def test_article_named_in_the_question_is_the_whole_toc_section_not_its_heading_page():
    # a heading with no number in the toc (the heading stage has no "Article" keyword): the
    # region the question names runs from its heading over its points onto the next page
    doc = "0123456789abcdef"
    art17 = [
        ("Article 17", "heading"),
        ("Right to erasure", "heading"),
        "1. The data subject shall have the right to obtain the erasure of personal data:",
        "(a) the personal data are no longer necessary in relation to the purposes;",
        ("(b) the data subject withdraws consent.", "heading"),
    ]
    page2 = [
        "2. Paragraph 1 shall not apply to the extent that processing is necessary:",
        "(a) for exercising the right of freedom of expression and information;",
        ("Article 18", "heading"),
        "The data subject shall have the right to obtain restriction of processing.",
    ]
    toc = [
        {"doc_id": doc, "toc_id": "a17", "level": 1, "number": None, "title": "Article 17",
         "page_start": 2, "line_start": 1, "page_end": 3, "line_end": 2},
        {"doc_id": doc, "toc_id": "p17b", "level": 2, "number": "(b)", "title": "",
         "page_start": 2, "line_start": 5, "page_end": 2, "line_end": 5},
        {"doc_id": doc, "toc_id": "a18", "level": 1, "number": None, "title": "Article 18",
         "page_start": 3, "line_start": 3, "page_end": 3, "line_end": 4},
    ]  # fmt: skip
    tables = make_tables({1: FILLER, 2: art17, 3: page2}, toc=toc)
    from docintel.retrieval.named import named_regions

    found = [r for r in named_regions(tables, parse_question("What does Article 17 say?")) if r.passages]
    assert found, "the question's region resolves"
    text = "\n".join(p.text for p in found[0].passages)
    assert "no longer necessary" in text and "freedom of expression" in text
    assert "restriction of processing" not in text


def test_length_questions_and_ordinal_seconds_are_not_durations():
    # nist-rv-length: "How long must the random value rv be ...?" asks for a length, and
    # "a second preimage" is an ordinal, not a time
    from docintel.questions.parse import answer_type
    from docintel.text import STATED_DURATION

    q = "How long must the random value rv be when randomized hashing is used for digital signatures?"
    assert answer_type("How long should an authorization code live?") == "duration"
    assert answer_type("How long must the random value rv be?") is None and answer_type(q) is None
    assert answer_type("How long must incident records be kept?") == "duration"
    assert not STATED_DURATION.search("resistance to a second preimage attack")
    for text in ("10 minutes", "60 calendar days", "thirty (30) days", "72 hours", "an hour", "several days"):
        assert STATED_DURATION.search(text), text
    tables = make_tables(
        {1: ["The random value rv shall be at least 80 bits long for randomized hashing signatures."],
         2: ["A random value is refreshed once a year; randomized hashing signatures use it."],
         **{p: FILLER for p in range(3, 8)}}
    )  # fmt: skip
    cands = retrieve(parse_question(q), tables)
    assert not any("answer type" in r for c in cands for r in c.reasons)


def test_short_subsection_headings_are_not_pointers():
    # SAML core: a page of short sub-sections, each heading opening with its own number (after a
    # margin line number); the matrix's bare number cells still count
    doc = "0123456789abcdef"
    nums = ["2.2.5", "2.3.1", "2.3.2", "2.3.3", "2.3.4", "2.3.5"]
    toc = [
        {"doc_id": doc, "toc_id": f"s{i}", "level": 3, "number": n, "title": f"Element {i}",
         "page_start": 9, "line_start": 1, "page_end": 9}
        for i, n in enumerate(nums)
    ]  # fmt: skip
    headings = [f"{500 + i} {n} Element <Item{i}>" for i, n in enumerate(nums)]
    cells = [n for n in nums]
    tables = make_tables({1: headings + FILLER, 2: cells + ["Matrix"] * 2}, toc=toc)
    assert overview_pages(tables) == {2}
