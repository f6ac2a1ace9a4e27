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


def test_a_name_printed_all_through_the_document_is_its_topic_and_stays():
    # a paper's model: "BERT" on every page is what the pages are about, not a preamble's name
    paper = build(
        [
            [
                ("BERT: Pre-training of Deep Bidirectional Transformers", "title", 17.0),
                ("We introduce BERT.", "body", 10.0),
            ],
            *[
                [(f"BERT uses layer {k}. The GELU activation replaces ReLU in BERT.", "body", 10.0)]
                for k in range(4)
            ],
        ]
    )
    assert (
        own_name_terms(parse_question("Which activation function does BERT use instead of ReLU?"), paper)
        == set()
    )


#: Page 1 of the CDDL 1.0 as a word-processed PDF prints it (text, role, size, bold): the title
#: with "(CDDL)", the definitions, then section 2.1 whose first line holds the condition.
CDDL_PAGE_1 = [
    ("COMMON DEVELOPMENT AND DISTRIBUTION LICENSE", "heading", 15.0, True),
    ("(CDDL) Version 1.0", "heading", 15.0, True),
    ("1. Deﬁnitions.", "heading", 10.0, True),
    (
        "1.1. “Contributor” means each individual or entity that creates or contributes to the creation of",
        "body",
        10.0,
        False,
    ),
    ("Modiﬁcations.", "body", 10.0, False),
    (
        "1.2. “Contributor Version” means the combination of the Original Software, prior Modiﬁcations used",
        "body",
        10.0,
        False,
    ),
    (
        "by a Contributor (if any), and the Modiﬁcations made by that particular Contributor.",
        "body",
        10.0,
        False,
    ),
    (
        "1.3. “Covered Software” means (a) the Original Software, or (b) Modiﬁcations, or (c) the combination",
        "body",
        10.0,
        False,
    ),
    (
        "of ﬁles containing Original Software with ﬁles containing Modiﬁcations, in each case including",
        "body",
        10.0,
        False,
    ),
    ("portions thereof.", "body", 10.0, False),
    ("1.4. “Executable” means the Covered Software in any form other than Source Code.", "body", 10.0, False),
    (
        "1.5. “Initial Developer” means the individual or entity that ﬁrst makes Original Software available",
        "body",
        10.0,
        False,
    ),
    ("under this License.", "body", 10.0, False),
    (
        "1.6. “Larger Work” means a work which combines Covered Software or portions thereof with code",
        "body",
        10.0,
        False,
    ),
    ("not governed by the terms of this License.", "body", 10.0, False),
    ("1.7. “License” means this document.", "body", 10.0, True),
    (
        "1.8. “Licensable” means having the right to grant, to the maximum extent possible, whether at the",
        "body",
        10.0,
        False,
    ),
    (
        "time of the initial grant or subsequently acquired, any and all of the rights conveyed herein.",
        "body",
        10.0,
        False,
    ),
    (
        "1.9. “Modiﬁcations” means the Source Code and Executable form of any of the following:",
        "body",
        10.0,
        False,
    ),
    (
        "A. Any ﬁle that results from an addition to, deletion from or modiﬁcation of the contents of a ﬁle",
        "body",
        10.0,
        False,
    ),
    ("containing Original Software or previous Modiﬁcations;", "body", 10.0, False),
    (
        "B. Any new ﬁle that contains any part of the Original Software or previous Modiﬁcation; or",
        "body",
        10.0,
        False,
    ),
    (
        "C. Any new ﬁle that is contributed or otherwise made available under the terms of this License.",
        "body",
        10.0,
        False,
    ),
    (
        "1.10. “Original Software” means the Source Code and Executable form of computer software code",
        "body",
        10.0,
        False,
    ),
    ("that is originally released under this License.", "body", 10.0, False),
    (
        "1.11. “Patent Claims” means any patent claim(s), now owned or hereafter acquired, including without",
        "body",
        10.0,
        False,
    ),
    (
        "limitation, method, process, and apparatus claims, in any patent Licensable by grantor.",
        "body",
        10.0,
        False,
    ),
    (
        "1.12. “Source Code” means (a) the common form of computer software code in which modiﬁcations",
        "body",
        10.0,
        False,
    ),
    ("are made and (b) associated documentation included in or with such code.", "body", 10.0, False),
    (
        "1.13. “You” (or “Your”) means an individual or a legal entity exercising rights under, and complying",
        "body",
        10.0,
        False,
    ),
    (
        "with all of the terms of, this License. For legal entities, “You” includes any entity which controls, is",
        "body",
        10.0,
        False,
    ),
    (
        "controlled by, or is under common control with You. For purposes of this deﬁnition, “control” means",
        "body",
        10.0,
        False,
    ),
    (
        "(a) the power, direct or indirect, to cause the direction or management of such entity, whether by",
        "list_item",
        10.0,
        False,
    ),
    (
        "contract or otherwise, or (b) ownership of more than ﬁfty percent (50%) of the outstanding shares or",
        "body",
        10.0,
        False,
    ),
    ("beneﬁcial ownership of such entity.", "body", 10.0, False),
    ("2. License Grants.", "heading", 10.0, True),
    ("2.1. The Initial Developer Grant.", "heading", 10.0, True),
    (
        "Conditioned upon Your compliance with Section 3.1 below and subject to third party intellectual",
        "body",
        10.0,
        False,
    ),
    ("1", "page_number", 9.0, False),
]


def test_the_window_of_the_chosen_page_skips_the_name_too():
    from docintel.retrieval.firstpass import first_passages
    from docintel.schema.trace import Trace

    page1 = [
        {"page": 1, "line": k + 1, "text": t, "role": r, "size": z, "bold": b}
        for k, (t, r, z, b) in enumerate(CDDL_PAGE_1)
    ]
    # the definitions again on pages 2-4, as the rest of a licence uses the same words (no "CDDL")
    lines = page1 + [{**d, "page": p} for p in (2, 3, 4) for d in page1[3:30]]
    frame = {"line_df": lines, "page_df": [{"page": p} for p in (1, 2, 3, 4)]}
    doc = DocTables(
        doc_id="c",
        **{n: TABLES[n].conform(pd.DataFrame(frame[n])) if n in frame else TABLES[n].empty() for n in TABLES},
    )
    q = parse_question("What is the Initial Developer's licence grant under the CDDL conditioned on?")
    text = " ".join(ln.text for p in first_passages(doc, q, Trace(question=q.text), None) for ln in p.lines)
    assert "Conditioned upon Your compliance with Section 3.1" in text


def _titled_doc(title: str, body: str) -> DocTables:
    return build(
        [
            [(title, "title", 17.0), (body, "body", 10.0), ("Sharing is described below.", "body", 10.0)],
            [("Other page about threats and sharing of data.", "body", 10.0)],
        ]
    )


def test_a_part_of_the_titles_initials_is_no_name():
    # "Guide to Cyber Threat Information Sharing": "CTI" is inside its initials, not them
    doc = _titled_doc("Guide to Cyber Threat Information Sharing", "Share CTI with partners, CTI feeds.")
    q = parse_question("How should an organisation share CTI with partners?")
    assert own_name_terms(q, doc) == set()


def test_initials_the_document_never_prints_name_nothing():
    q = parse_question("What does the GPL say about sublicensing of works?")
    only_title = _titled_doc("GNU General Public License", "Developers use this licence to protect you.")
    assert own_name_terms(q, only_title) == set()
    printed = _titled_doc("GNU General Public License", "Developers use the GPL to protect you.")
    assert own_name_terms(q, printed) == {"gpl"}


def test_the_initials_stop_where_the_edition_begins():
    doc = _titled_doc(
        "GNU General Public License Version 3, 29 June", "Developers use the GPL to protect you."
    )
    q = parse_question("What does the GPL say about sublicensing of works?")
    assert own_name_terms(q, doc) == {"gpl"}
