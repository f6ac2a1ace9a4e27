"""Session 13 (s8): the document's own short name in a question does not steer page ranking.

"Why is sublicensing not needed under the GPL?" asked of the GPL: its preamble page prints "GPL"
most, the provision once or never. The acronym the title holds (as a word or as its initials)
is left out of the ranking terms; an acronym the title does not hold stays a search term.
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
            ("GNU GENERAL PUBLIC LICENSE", "title", 17.0),
            ("The GPL is a free licence. The GPL protects users. Developers that use the GPL", "body", 10.0),
            ("assert copyright. The GPL explains there is no warranty for this free software.", "body", 10.0),
            ("Some devices refuse to run modified versions; the GPL forbids that, as needed.", "body", 10.0),
        ],
        [
            ("2. Basic Permissions.", "heading", 11.0),
            (
                "Conveying under any other circumstances is permitted solely under the conditions",
                "body",
                10.0,
            ),
            ("stated below. Sublicensing is not allowed; section 10 makes it unnecessary.", "body", 10.0),
        ],
        [
            ("10. Automatic Licensing of Downstream Recipients.", "heading", 11.0),
            (
                "Each time you convey a covered work, the recipient automatically receives a license.",
                "body",
                10.0,
            ),
        ],
    ]
)


def test_the_documents_acronym_is_its_name_not_a_term():
    q = parse_question("Why is sublicensing not needed under the GPL?")
    assert own_name_terms(q, DOC) == {"gpl"}
    assert retrieve(q, DOC)[0].page == 2


def test_an_acronym_the_title_does_not_hold_stays_a_term():
    q = parse_question("Why is sublicensing not allowed under the MIT licence?")
    assert own_name_terms(q, DOC) == set()
