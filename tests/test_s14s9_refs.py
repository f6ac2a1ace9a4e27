"""Session 14 (s9): references of question set 9's families (licences, a constitution).

Each test stands for one rule, and fails without it:
- a clause whose body holds an indented list "1.", "2." is still the run's clause 6 (LPPL);
- paragraphs numbered "(1)", "(2)", ... are the targets of "Section 4" (Artistic License 2.0);
- "§4.2.1" is item 1 of section 4.2, "§A.5" the appendix section "A.5." (Debian Constitution);
- "section 6 of the GNU GPL" names another work, unless the acronym is the document's own (the
  resolver decides: it knows the document's titles);
- "Section 3(a)" is not in the evidence because a list item "3. If ..." is.
"""

from __future__ import annotations

import pandas as pd

from docintel.generation.refdetect import DetectedRef, target_in_evidence
from docintel.parsing.refpatterns import find_references
from docintel.retrieval.resolve import resolve_in_tables
from docintel.schema.answer import PendingReference
from docintel.schema.document import DocTables
from docintel.schema.evidence import EvidenceLine, ParsedQuestion, Passage
from docintel.schema.tables import TABLES

Q = ParsedQuestion(text="")


def build(pages: list[list], roles: dict | None = None) -> DocTables:
    """Lines given as text, or (text, x0) for an indented one."""
    lines = []
    for p, texts in enumerate(pages):
        for k, item in enumerate(texts):
            text, x0 = (item, 72.0) if isinstance(item, str) else item
            role = (roles or {}).get((p + 1, k + 1), "body")
            lines.append({"page": p + 1, "line": k + 1, "text": text, "role": role, "x0": x0})
    frame = {"line_df": lines, "page_df": [{"page": p + 1} for p in range(len(pages))]}
    built = {
        n: TABLES[n].conform(pd.DataFrame(frame[n])) if frame.get(n) else TABLES[n].empty() for n in TABLES
    }
    return DocTables(doc_id="d", **built)


def _ref(raw: str, page: int, line: int) -> PendingReference:
    return PendingReference(raw_text=raw, ref_type="unknown", origin_page=page, origin_line=line)


def _text(res) -> str:
    return " ".join(ln.text for p in res.passages for ln in p.lines)


CLAUSES = [
    [
        "CONDITIONS ON DISTRIBUTION AND MODIFICATION",
        "5. If you are not the Current Maintainer of the Work, you may modify your copy of the",
        "Work, thus creating a Derived Work based on the Work, and compile this Derived Work,",
        "thus creating a Compiled Work based on the Derived Work.",
        "6. If you are not the Current Maintainer of the Work, you may distribute a Derived Work",
        "provided the following conditions are met for every component of the Work unless that",
        "component clearly states in the copyright notice that it is exempt from that condition.",
        ("d. You distribute at least one of the following with the Derived Work:", 90.0),
        ("1. A complete, unmodified copy of the Work; if your distribution of a modified", 110.0),
        ("component is made by offering access to copy the modified component from a", 122.0),
        ("2. Information that is sufficient to obtain a complete, unmodified copy of the", 110.0),
        ("Work.", 122.0),
        "7. If you are not the Current Maintainer of the Work, you may distribute a Compiled Work",
        "generated from a Derived Work, as long as the conditions of Clause 6, above, are met with",
        "regard to the Derived Work.",
        "8. The conditions above are not intended to prohibit, and hence do not apply to, the",
        "modification, by any method, of any component so that it becomes identical to an updated",
    ]
]


def test_clause_holding_an_indented_list_is_still_the_clause():
    # the "1." under "d." restarted the run and ended it: clause 6 had no next sibling, and the
    # reference (in clause 7) looked written inside it
    res = resolve_in_tables(_ref("Clause 6", 1, 14), build(CLAUSES), question=Q)
    assert res.status == "resolved"
    text = _text(res)
    assert "provided the following conditions are met" in text
    assert "Compiled Work" not in text.split("Work.")[-1]  # stops before clause 7


ARTISTIC = [
    [
        "Permissions for Redistribution of the Standard Version",
        "(2) You may Distribute verbatim copies of the Source form of the Standard Version of this",
        "Package in any medium without restriction, either gratis or for a Distributor Fee.",
        "(3) You may apply any bug fixes, portability changes, and other modifications made",
        "available from the Copyright Holder. The resulting Package will still be the Standard",
        "(4) You may Distribute your Modified Version as Source provided that you clearly document",
        "how it differs from the Standard Version, and provided that you do at least ONE of the",
        "following: make the Modified Version available to the Copyright Holder.",
        "(5) You may Distribute Compiled forms of the Standard Version without the Source, provided",
        "that you include complete instructions on how to get the Source of the Standard Version.",
        "(6) You may Distribute a Modified Version in Compiled form without the Source, provided that you",
        "comply with Section 4 with respect to the Source of the Modified Version.",
    ]
]


def test_parenthesised_paragraph_numbers_are_sections():
    res = resolve_in_tables(_ref("Section 4", 1, 12), build(ARTISTIC), question=Q)
    assert res.status == "resolved"
    text = _text(res)
    assert "clearly document how it differs" in text.replace("document\nhow", "document how")
    assert "Compiled forms of the Standard Version" not in text


CONSTITUTION = [
    [
        "4.1. Powers",
        "Together, the Developers may:",
        "1. Appoint or recall the Project Leader.",
        "2. Amend this constitution, provided they agree with a 3:1 majority.",
        "4.2. Procedure",
        "1. The Developers follow the Standard Resolution Procedure, below. A resolution is",
        "introduced if proposed by any Developer and sponsored by at least K other Developers.",
        "2. Delaying a decision by the Project Leader or their Delegate.",
        "5. Project Leader",
        "5.1. Powers",
        "1. Propose General Resolutions. When proposed by the Project Leader, sponsors are",
        "not required; see §4.2.1. The decision is made by the method of §A.5.",
    ],
    [
        "A. Standard Resolution Procedure",
        "A.4. Voting procedure",
        "1. Options which do not have an explicit supermajority requirement have a 1:1 majority.",
        "A.5. Vote Counting",
        "1. Each voter's ballot ranks the options being voted on. Not all options need be ranked.",
        "2. If the ballot has a quorum requirement R any options other than the default option",
    ],
]
HEADS = {(1, 1): "heading", (1, 5): "heading", (1, 9): "heading", (1, 10): "heading"}
HEADS |= {(2, 1): "heading", (2, 2): "heading", (2, 4): "heading"}


def test_three_part_id_is_an_item_of_its_section():
    res = resolve_in_tables(_ref("§4.2.1", 1, 12), build(CONSTITUTION, HEADS), question=Q)
    assert res.status == "resolved"
    assert "sponsored by at least K other Developers" in _text(res)


def test_appendix_lettered_section_id_is_its_heading():
    res = resolve_in_tables(_ref("§A.5", 1, 12), build(CONSTITUTION, HEADS), question=Q)
    assert res.status == "resolved"
    assert "Each voter's ballot ranks the options" in _text(res)


def test_section_of_an_acronym_named_work_is_external():
    # the grammar keeps it internal ("Section 2 of the NDA" may be the document's own name)
    rows = find_references("information under section 6 of the GNU GPL, and only to the extent")
    assert rows and rows[0]["family"] != "external"
    lesser = [
        [
            "GNU LESSER GENERAL PUBLIC LICENSE",
            "4. Combined Works. Provide Installation Information, but only if required under",
            "section 6 of the GNU GPL for conveying Corresponding Source.",
            "5. Combined Libraries. You may place library facilities side by side.",
            "6. Revised Versions of the GNU Lesser General Public License. The Free Software",
        ]
    ]
    doc = build(lesser, {(1, 1): "title"})
    assert resolve_in_tables(_ref("section 6 of the GNU GPL", 1, 3), doc, question=Q).status == "external"
    # the loop's pending reference is the grammar's span, "section 6": the words after it decide
    assert resolve_in_tables(_ref("section 6", 1, 3), doc, question=Q).status == "external"


def test_section_of_the_documents_own_acronym_stays_internal():
    gpl = [
        [
            "GNU GENERAL PUBLIC LICENSE",
            "5. Conveying Modified Source Versions.",
            "You may convey a work based on the Program under section 6 of the GPL.",
            "6. Conveying Non-Source Forms.",
            "You may convey a covered work in object code form under the terms of sections 4 and 5.",
        ]
    ]
    roles = {(1, 1): "title", (1, 2): "heading", (1, 4): "heading"}
    res = resolve_in_tables(_ref("section 6 of the GPL", 1, 3), build(gpl, roles), question=Q)
    assert res.status == "resolved"
    assert "object code form" in _text(res)


def test_list_item_with_the_number_is_not_the_sub_unit():
    lines = [
        EvidenceLine(
            page=4, line=1, text="3. If requested by the Licensor, You must remove any of the", role="body"
        ),
        EvidenceLine(
            page=4, line=2, text="c. You must comply with the conditions in Section 3(a) if You", role="body"
        ),
    ]
    passages = [Passage(doc_id="d", page=4, line_start=1, line_end=2, lines=lines, retrieved_via="primary")]
    ref = DetectedRef("Section 3(a)", "section", "3", 4, 2, sub_selector="paragraph (a)")
    assert not target_in_evidence(ref, passages)


def test_validator_keeps_a_sub_unit_pointer_whose_section_number_opens_a_list_item():
    from docintel.generation.validator import validate_answer
    from docintel.schema.answer import ReferenceAwareAnswer

    lines = [
        EvidenceLine(
            page=4, line=1, text="3. If requested by the Licensor, You must remove any of the", role="body"
        ),
        EvidenceLine(
            page=4, line=2, text="c. You must comply with the conditions in Section 3(a) if You", role="body"
        ),
    ]
    passages = [Passage(doc_id="d", page=4, line_start=1, line_end=2, lines=lines, retrieved_via="primary")]
    pending = [PendingReference(raw_text="Section 3(a)", ref_type="section", origin_page=4, origin_line=2)]
    answer = ReferenceAwareAnswer(
        answer="You must comply with the conditions in Section 3(a).",
        pending_references=pending,
        answer_completeness="references_unresolved",
    )
    checked, _problems = validate_answer(answer, passages)
    assert [r.raw_text for r in checked.pending_references] == ["Section 3(a)"]


def test_indented_parenthesised_items_are_no_sections():
    # a bill's definitions "(1)" ... "(6)" indented under its section: "section 6 of the Forest ..."
    # is another Act's section, not item (6)
    body = [("SEC. 3. DEFINITIONS.", 72.0), ("In this title:", 72.0)]
    items = []
    for n in range(1, 7):
        items += [(f"({n}) The term number {n} means a thing defined here for the", 92.0)]
        items += [("purposes of this title and of no other title of this Act, as", 92.0)]
        items += [("amended, and of the rules made under it.", 92.0)]
    tail = [("This text runs at the body's margin, as the rest of the bill does.", 72.0)] * 50
    tail += [("described in section 3(1)(A) under section 6 of the Forest Act.", 72.0)]
    doc = build([body + items + tail])
    res = resolve_in_tables(_ref("section 6", 1, len(body + items + tail)), doc, question=Q)
    assert res.status != "resolved"
