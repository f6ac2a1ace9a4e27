"""Session 13 (s8): references into a word-processed contract whose articles are body text.

Real licences typed in a word processor (EUPL-1.2, OSL-3.0) print "2.Scope of the rights ..."
and "1) Grant of Copyright License. ..." in the body font: no toc row, no heading role. A
reference to "Article 2" or "Section 1(c)" must still reach that paragraph, told from a short
numbered list by its run of siblings; "the appendix" reaches the one "Appendix" line.
"""

from __future__ import annotations

import pandas as pd

from docintel.retrieval.resolve import resolve_in_tables
from docintel.schema.answer import PendingReference
from docintel.schema.document import DocTables
from docintel.schema.evidence import ParsedQuestion
from docintel.schema.tables import TABLES

Q = ParsedQuestion(text="")


def build(texts_by_page: list[list[str]], roles: dict | None = None) -> DocTables:
    lines = [
        {"page": p + 1, "line": k + 1, "text": text, "role": (roles or {}).get((p + 1, k + 1), "body")}
        for p, texts in enumerate(texts_by_page)
        for k, text in enumerate(texts)
    ]
    pages = [{"page": p + 1} for p in range(len(texts_by_page))]
    frame = {"line_df": lines, "page_df": pages}
    built = {
        n: TABLES[n].conform(pd.DataFrame(frame[n])) if frame.get(n) else TABLES[n].empty() for n in TABLES
    }
    return DocTables(doc_id="d", **built)


def _ref(raw: str, page: int, line: int) -> PendingReference:
    return PendingReference(raw_text=raw, ref_type="unknown", origin_page=page, origin_line=line)


def _text(res) -> str:
    return " ".join(ln.text for p in res.passages for ln in p.lines)


LICENCE = [
    [
        "This Licence applies to the Work as defined below.",
        "1.Definitions",
        "In this Licence, the following terms have the following meaning:",
        "2. Source code means the form for making changes.",  # a list item, not Article 2
        "3. Executable code means the compiled form.",
        "2.Scope of the rights granted by the Licence",
        "The Licensor hereby grants You a worldwide licence to do the following:",
    ],
    [
        "— modify the Work, and make Derivative Works based upon the Work,",
        "— distribute the Work or copies thereof.",
        "3.Communication of the Source Code",
        "The Licensor may provide the Work in Source Code.",
        "4.Acceptance of the Licence",
        "You accept this Licence by exercising any rights granted to You by Article 2 of this Licence.",
        "The compatible licences are listed in the appendix attached to this Licence.",
        "5.Applicable law",
        "This Licence is governed by the law of the Member State.",
    ],
    [
        "Appendix",
        "Compatible Licences according to Article 5 are:",
        "— GNU General Public License (GPL) v. 2, v. 3",
    ],
]


def test_article_in_the_body_font_is_the_run_not_the_list_item():
    res = resolve_in_tables(_ref("Article 2", 2, 6), build(LICENCE), question=Q)
    assert res.status == "resolved"
    text = _text(res)
    # the article, over its page break, up to the next article; not the definitions' item "2."
    assert "grants You a worldwide licence" in text and "make Derivative Works" in text
    assert "Source code means" not in text and "Communication of the Source Code" not in text


def test_closing_paren_article_and_its_lettered_item():
    doc = [
        [
            "1) Grant of Copyright License. Licensor grants You a licence to do the following:",
            "a) to reproduce the Original Work in copies;",
            "b) to translate or modify the Original Work;",
            "c) to distribute copies, with the proviso that copies shall be licensed under this License;",
            "d) to perform the Original Work publicly.",
            "2) Grant of Patent License. Licensor grants You a patent licence.",
            "3) Grant of Source Code License. Licensor provides the Source Code.",
        ],
        [
            "4) Termination. This License terminates upon your failure to honor the conditions in Section 1(c).",
        ],
    ]
    res = resolve_in_tables(_ref("Section 1(c)", 2, 1), build(doc), question=Q)
    assert res.status == "resolved"
    assert "with the proviso that copies shall be licensed" in _text(res)


def test_a_short_numbered_list_is_no_article():
    doc = [["Steps:", "1. Open the box.", "2. Take the Work out.", "Follow Section 2 of the guide."]]
    res = resolve_in_tables(_ref("Section 2", 1, 4), build(doc), question=Q)
    assert res.status != "resolved"


def test_the_appendix_is_the_one_appendix_line():
    res = resolve_in_tables(_ref("the appendix", 2, 7), build(LICENCE), question=Q)
    assert res.status == "resolved"
    assert "GNU General Public License (GPL) v. 2, v. 3" in _text(res)


def test_two_appendix_lines_leave_the_appendix_unsaid():
    doc = [*LICENCE, ["Appendix", "Another list."]]
    res = resolve_in_tables(_ref("the appendix", 2, 7), build(doc), question=Q)
    assert res.status != "resolved"


def test_numbered_notes_and_one_line_lists_are_no_articles():
    # a legal history citing a constitution's "article 5": its own footnotes run 1, 2, 3 ... and
    # a one-line-per-item list runs 1. 2. 3.; neither is the article
    doc = [
        ["The constitution declared Islam the state religion (article 5) and Arabic official."]
        + [f"{k} Author {k}, Title of a book, at {k}." for k in range(1, 8)],
        [
            "Tiers:",
            "1. First Tier",
            "2. Second Tier",
            "3. Third Tier",
            "4. Fourth Tier",
            "See Section 2 of the Act.",
        ],
    ]
    t = build(doc, roles={(1, k): "footnote" for k in range(2, 9)})
    assert resolve_in_tables(_ref("article 5", 1, 1), t, question=Q).status != "resolved"
    assert resolve_in_tables(_ref("Section 2", 2, 6), t, question=Q).status != "resolved"


def test_a_heading_naming_itself_points_nowhere_else():
    doc = [
        ["Sección 2. Revisión del Empleador", "Complete within 3 days."],
        ["1. Uno.", "x", "2. Dos.", "y", "3. Tres.", "z"],
    ]
    assert resolve_in_tables(_ref("Sección 2", 1, 1), build(doc), question=Q).status != "resolved"


def test_a_reference_wrapped_onto_the_start_of_a_line_is_still_followed():
    doc = [
        [
            "1) Grant of Copyright License. Licensor grants You a licence to do the following:",
            "a) to reproduce the Original Work;",
            "c) to distribute copies, with the proviso that copies shall be licensed under this License;",
            "2) Grant of Patent License. Licensor grants You a patent licence.",
            "3) External Deployment. You must treat any External Deployment as a distribution under",
            "section 1(c).",
            "4) Attribution Rights. You must retain the notices.",
        ]
    ]
    res = resolve_in_tables(_ref("section 1(c)", 1, 6), build(doc), question=Q)
    assert res.status == "resolved" and "with the proviso" in _text(res)
