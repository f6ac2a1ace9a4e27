"""Session 15 (s10): faults question set 10 (unseen contracts, rule books, a NIST guideline) found."""

from __future__ import annotations

import pandas as pd

from docintel.retrieval.resolve_build import section_at
from tests.test_s12rz_named_parts import _appendix_toc


def test_an_appendix_label_that_is_the_last_toc_row_resolves():
    # set 10 (a licence whose last exhibit, "EXHIBIT C", is printed alone on its line and is the
    # toc's last row): the rows after it were an empty string Series, whose mapped stop flags kept
    # a string dtype and could not be or-ed with the level test (TypeError, the whole ask failed)
    obj = pd.Series({"page": 13, "line_start": 1})
    got = section_at(_appendix_toc("APPENDIX F"), obj)
    assert len(got) == 1
    assert got.iloc[0]["title"] == "APPENDIX G"
    assert (int(got.iloc[0]["page_end"]), int(got.iloc[0]["line_end"])) == (13, 2)


def _exhibits() -> object:
    """A licence's last page: its last section, "EXHIBIT A." in the body font (read as a caption,
    with the quoted notice's first line), the notice, then "EXHIBIT B" as a heading (a toc row)."""
    from tests.test_ref_families_s6 import build_rows

    body = [
        (
            1,
            1,
            "2.1 You must include the Object Code Notice set forth in Exhibit A in the about box.",
            "body",
            None,
        ),
        (2, 1, "12.8 Entire Agreement. This License constitutes the entire agreement.", "body", None),
        (2, 2, "EXHIBIT A.", "caption", None),
        (
            2,
            3,
            '"Copyright (c) 2002 Example, Inc. and/or its licensors. All Rights Reserved.',
            "caption",
            None,
        ),
        (2, 4, "The contents of this file are subject to this License.", "body", None),
        (2, 5, "Object Code Notice: Example technology included.", "body", None),
        (2, 6, "EXHIBIT B", "heading", "B"),
        (2, 7, "Compatible Source Licenses: Apache Software License.", "body", "B"),
    ]
    return build_rows(body, [("b", "B", "EXHIBIT B", 1, None, 2, 6)])


def test_an_exhibit_read_as_a_caption_runs_to_the_next_heading():
    # set 10: "EXHIBIT A." and the notice's first line were read as captions, and the target
    # stopped at the next caption line: the exhibit was its label alone, the notice left out
    from docintel.retrieval.resolve import resolve_in_tables
    from tests.test_ref_families_s6 import Q, _ref

    res = resolve_in_tables(_ref("Exhibit A", 1, 1), _exhibits(), question=Q)
    assert res.status == "resolved"
    texts = [ln.text for p in res.passages for ln in p.lines]
    assert texts[0] == "EXHIBIT A."
    assert "Object Code Notice: Example technology included." in texts
    assert not any(t.startswith("Compatible Source Licenses") for t in texts)


def test_lines_without_coordinates_cast_no_vote_for_the_body_margin():
    # session 14's note: x0 was filled with 0.0 before the margin vote, so its "no coordinates"
    # test was dead and lines without coordinates voted for a margin at 0: every "(n)" paragraph
    # at the real margin then read as indented (a list's item) and was no paragraph
    from docintel.retrieval.refparas import numbered_paragraph
    from tests.test_ref_families_s6 import build

    nan = float("nan")
    lines = [
        {"page": 1, "line": k, "text": f"Preamble line {k}.", "role": "body", "x0": nan} for k in range(1, 31)
    ]
    k = 31
    for n in (1, 2, 3, 4):
        for text in (
            f"({n}) You may do thing {n} under these terms,",
            "provided the notice is kept",
            "with it.",
        ):
            lines.append({"page": 2, "line": k, "text": text, "role": "body", "x0": 72.0})
            k += 1
    got = numbered_paragraph(build(lines, []), "2", (1, 1))
    assert got is not None
    assert got[0] == (2, 34)


def _publication(cover: str, role: str = "title") -> object:
    from tests.test_ref_families_s6 import build

    lines = [{"page": 1, "line": 1, "text": cover, "role": role}]
    lines += [{"page": p, "line": 1, "text": f"Body text of page {p}.", "role": "body"} for p in (2, 3)]
    return build(lines, [])


def test_a_publication_number_the_cover_prints_is_the_documents_own_name():
    # set 10: "SP 800-60 says national security information is outside the scope ... How does the
    # guideline define national security information?" asked of SP 800-60 ranked the overview
    # page that lists the SP series first; the number names the document, it is no topic
    from docintel.questions import parse_question
    from docintel.retrieval.ownname import own_name_terms

    q = parse_question("SP 800-60 says national security information is out of scope. How is it defined?")
    assert {"sp", "800", "60"} <= own_name_terms(q, _publication("NIST Special Publication 800-60 Volume II"))
    # another publication's number is a topic ("Which SP 800-53 control ..." asked of SP 800-171)
    assert not own_name_terms(q, _publication("NIST Special Publication 800-171")) & {"800", "60"}


def test_a_year_after_capitals_is_no_publication_number():
    # the dev set's "ILSVRC 2015" asked of a paper whose first page names the contest it won in
    # its body text (a title line holding the acronym is the acronym rule's, not this one's)
    from docintel.questions import parse_question
    from docintel.retrieval.ownname import own_name_terms

    q = parse_question("What error did the ensemble reach on the ILSVRC 2015 classification task?")
    assert not own_name_terms(
        q, _publication("1st place on the ILSVRC 2015 classification task.", "body")
    ) & {"ilsvrc", "2015"}
