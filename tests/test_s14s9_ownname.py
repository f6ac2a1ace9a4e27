"""Session 14 (s9): the document's own name in a question, beyond an acronym.

"Under the Artistic License 2.0, what must I do ...?", "How long does a CC BY 4.0 license last?",
"... under the CERN-OHL-S?": the title's name as a run of capitalised words, its version number,
and an acronym inside a hyphenated short name are the document's name, printed most on its
first page (the preamble), not the provision asked about. Each is left out of the ranking terms
when it is front-loaded; a run the title does not hold stays.
"""

from __future__ import annotations

import pandas as pd

from docintel.questions import parse_question
from docintel.retrieval import retrieve
from docintel.retrieval.ownname import own_name_terms
from docintel.schema.document import DocTables
from docintel.schema.tables import TABLES


def build(pages: list[list[tuple[str, str, float]]]) -> DocTables:
    lines = [
        {"page": p + 1, "line": k + 1, "text": text, "role": role, "size": size}
        for p, rows in enumerate(pages)
        for k, (text, role, size) in enumerate(rows)
    ]
    frame = {"line_df": lines, "page_df": [{"page": p + 1} for p in range(len(pages))]}
    built = {
        n: TABLES[n].conform(pd.DataFrame(frame[n])) if frame.get(n) else TABLES[n].empty() for n in TABLES
    }
    return DocTables(doc_id="d", **built)


DOC = build(
    [
        [
            ("The Artistic License 2.0", "title", 17.0),
            (
                "The Artistic License 2.0 lets the Copyright Holder keep artistic control. Under the",
                "body",
                10.0,
            ),
            (
                "Artistic License 2.0 you may distribute the Package in compiled form or as source;",
                "body",
                10.0,
            ),
            ("this preamble of the Artistic License 2.0 is no term of the licence itself.", "body", 10.0),
        ],
        [
            ("Distribution of Compiled Forms without the Source", "heading", 11.0),
            ("(6) You may Distribute a Modified Version in compiled form without the Source,", "body", 10.0),
            ("provided that you comply with Section 4 with respect to the source.", "body", 10.0),
        ],
        [
            ("General Provisions", "heading", 11.0),
            ("(10) Any use of the Package is governed by this License.", "body", 10.0),
        ],
    ]
)


def test_title_name_and_version_are_not_ranking_terms():
    q = parse_question(
        "Under the Artistic License 2.0, what must I do to distribute a Modified Version in compiled form?"
    )
    own = own_name_terms(q, DOC)
    assert "artist" in own and "2.0" in own
    assert retrieve(q, DOC)[0].page == 2


def test_hyphenated_short_name_part_is_the_documents_acronym():
    doc = build(
        [
            [
                ("CERN Open Hardware Licence Version 2 - Strongly Reciprocal", "title", 17.0),
                ("CERN has developed this licence; the CERN-OHL-S is copyright CERN 2020.", "body", 10.0),
                ("Use of the CERN-OHL-S does not imply endorsement by CERN. CERN-OHL-P and W.", "body", 10.0),
            ],
            [
                (
                    "1.10 'Notice' means copyright notices and modification notices (subsection 3.3(b)).",
                    "body",
                    10.0,
                ),
            ],
            [
                (
                    "b) add a Notice to the modified Covered Source stating that You have modified it,",
                    "body",
                    10.0,
                ),
            ],
        ]
    )
    q = parse_question("What does a modification notice have to say under the CERN-OHL-S?")
    assert {"cern", "ohl"} <= own_name_terms(q, doc)


def test_a_run_the_title_lacks_stays():
    # "Package License" shares "License" with the title, not "Package": no name of this document
    q = parse_question("What does the Package License allow the Copyright Holder to do?")
    own = own_name_terms(q, DOC)
    assert not own & {"packag", "licens", "copyright", "holder"}
