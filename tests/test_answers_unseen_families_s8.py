"""Session 8 rules for answers on unseen document families: a bare provision label ("A.") in the
evidence is not the target of "Paragraphs A. and B.", a target is in the evidence only with its
opening line, "get" is the asking verb, a two-page form still ranks by keywords, and a window
that announces a list ("... is necessary:") holds the list."""

from __future__ import annotations

import pandas as pd

from docintel.generation.refdetect import DetectedRef, target_in_evidence
from docintel.questions import parse_question
from docintel.retrieval.covered import target_covered
from docintel.retrieval.firstpass import through_list
from docintel.retrieval.rank import retrieve
from docintel.schema.document import DocTables
from docintel.schema.evidence import EvidenceLine, Passage
from docintel.schema.tables import TABLES


def _build(rows: list[tuple]) -> DocTables:
    lines = [{"page": p, "line": ln, "text": t, "role": r} for p, ln, t, r in rows]
    pages = [{"page": p, "printed_label": str(p)} for p in sorted({ln["page"] for ln in lines})]
    frame = {"line_df": lines, "page_df": pages}
    built = {
        n: TABLES[n].conform(pd.DataFrame(frame[n])) if frame.get(n) else TABLES[n].empty() for n in TABLES
    }
    return DocTables(doc_id="d", **built)


def _passage(page: int, lines: list[tuple[int, str]], role: str = "body") -> Passage:
    ev = [EvidenceLine(page=page, line=n, text=t, role=role) for n, t in lines]
    return Passage(doc_id="d", page=page, line_start=ev[0].line, line_end=ev[-1].line, lines=ev)


# -- a bare label in the evidence -----------------------------------------------------------


def test_a_bare_letter_label_in_the_evidence_is_not_the_pointed_paragraph():
    # clause 2.D says "Paragraphs A. and B." (2.A, 2.B, page 2); the window holds clause 3's "A."
    window = _passage(3, [(3, "D."), (4, "The rights granted in Paragraphs A. and B. allow"), (7, "A."),
                          (8, "Distribution must be made under this Agreement.")])  # fmt: skip
    ref = DetectedRef(raw_text="Paragraphs A", ref_type="section", target="A", page=3, line=4)
    assert not target_in_evidence(ref, [window])
    lettered = DetectedRef(raw_text="paragraph (e)", ref_type="clause", target="(e)", page=3, line=4)
    assert not target_in_evidence(lettered, [_passage(3, [(4, "see paragraph (e)"), (5, "(e) Text.")])])
    # a numbered section's heading in the evidence still is its target
    numbered = DetectedRef(raw_text="Section 3.2", ref_type="section", target="3.2", page=3, line=4)
    assert target_in_evidence(numbered, [_passage(3, [(4, "as in Section 3.2."), (5, "3.2 Scope")])])


# -- a target is in the evidence with its opening line -------------------------------------


def test_a_target_whose_own_row_is_missing_is_not_in_the_evidence():
    have = {(2, n) for n in range(80, 90)}  # the first hop: line 24's row and what follows it
    line_22 = _passage(2, [(n, f"row {n}") for n in range(74, 90)])  # opens at 74, reads on to 89
    assert not target_covered([line_22], have)  # 10 of 16 lines, but not its own row
    inside = _passage(2, [(n, f"row {n}") for n in range(81, 89)])
    assert target_covered([inside], have)
    # two targets: both must be there
    assert not target_covered([inside, line_22], have)
    # nearly all of it (the heading just above the window) counts
    almost = _passage(2, [(n, f"row {n}") for n in range(79, 90)])
    assert target_covered([almost], have)


# -- the question ---------------------------------------------------------------------------


def test_get_is_the_asking_verb_but_a_capital_get_is_a_name():
    assert parse_question("How much of my overpayment can I get refunded?").keywords == [
        "overpayment",
        "refunded",
    ]
    assert "get" in parse_question("What does a GET request return?").keywords
    # opening the question, capitalised, it is still the verb ("long" after "how" asks for a span)
    assert parse_question("Get an extension: how long does it last?").keywords == ["extension", "last"]


# -- a document of two pages ----------------------------------------------------------------


def test_a_two_page_form_ranks_by_keyword_frequency_when_every_term_is_on_every_page():
    form = _build([
        (1, 1, "Filing status and income.", "body"),
        (1, 2, "Changing your choice will not change your refund.", "body"),
        (1, 3, "Wages, salaries and tips.", "body"),
        (2, 1, "Refund", "body"),
        (2, 2, "Refundable credits from Schedule 3.", "body"),
        (2, 3, "Amount of line 34 you want refunded to you.", "body"),
        (2, 4, "Amount you owe: subtract line 33 from line 24.", "body"),
    ])  # fmt: skip
    top = retrieve(parse_question("How much can I have refunded?"), form)
    assert top[0].page == 2 and top[0].scores["bm25"] > top[1].scores["bm25"]


# -- a window that announces a list ----------------------------------------------------------


def test_a_window_ending_on_a_colon_holds_the_list_it_announces():
    rows = [
        (1, 1, "2.", "body"),
        (1, 2, "The controller shall inform the other controllers.", "body"),
        (1, 3, "3.", "body"),
        (1, 4, "Paragraphs 1 and 2 shall not apply to the extent that processing is necessary:", "body"),
        (1, 5, "(a) for exercising the right of freedom of expression;", "list_item"),
        (1, 6, "(b) for compliance with a legal obligation which requires", "list_item"),
        (1, 7, "processing by Union law;", "body"),
        (1, 8, "(c) for archiving purposes in the public interest.", "list_item"),
        (1, 9, "4.", "body"),
        (1, 10, "Another paragraph that is not part of the list.", "body"),
    ]
    tables = _build(rows)
    window = _passage(1, [(n, t) for _, n, t, _ in rows[:4]])
    got = through_list(tables, window)
    assert [ln.line for ln in got.lines] == list(range(1, 9)) and got.line_end == 8
    # a window that ends a sentence is left as it is
    assert through_list(tables, _passage(1, [(2, rows[1][2])])).line_end == 2


# -- a definition question's defining sentence opens the answer --------------------------------


def test_the_defining_sentence_opens_a_definition_answer_and_its_qualification_follows():
    from docintel.generation.offline import OfflineBackend

    body = [
        f"The design change {i} is intended to prevent erroneous MCAS activation and MCAS faults."
        for i in range(8)
    ]
    note = [
        "8 MCAS is a function of the Speed Trim System",
        "(STS), which is part of the flight control",
        "system. The STS provides automatic trim inputs. MCAS is activated only during",
        "manual flight, with flaps up.",
    ]
    window = _passage(2, [(i + 1, t) for i, t in enumerate(body + note)])
    q = parse_question("What is MCAS and when is it active?")
    assert q.shape == "definition" and q.defined_term == "MCAS"
    text = OfflineBackend().generate(q, [window], pass_no=1, instructions=[]).answer.answer
    assert text.startswith("8 MCAS is a function of the Speed Trim System")
    assert "activated only during manual flight" in text


def test_a_term_that_is_part_of_something_is_not_defined_by_it():
    from docintel.generation.offline import OfflineBackend

    lines = [
        "MCAS is part of the flight control software loaded in 2016.",
        *(f"The design change {i} is intended to prevent erroneous MCAS activation." for i in range(8)),
        "MCAS is a function of the Speed Trim System.",
    ]
    window = _passage(2, [(i + 1, t) for i, t in enumerate(lines)])
    q = parse_question("What is MCAS?")
    text = OfflineBackend().generate(q, [window], pass_no=1, instructions=[]).answer.answer
    assert text.startswith("MCAS is a function of the Speed Trim System")


def test_a_definition_site_the_loop_fetched_opens_the_answer():
    from docintel.generation.offline import OfflineBackend

    use = _passage(4, [(i + 1, f"Payment is due within 5 Business Days of invoice {i}.") for i in range(6)])
    # a site as targets.definition_passages gives it: four lines from the defining line
    site = _passage(1, [(8, '"Business Day" means any weekday other than a bank holiday.'),
                        (9, "It excludes Saturdays."), (10, "It also excludes 24 December."),
                        (11, '"Invoice" means a bill.')])  # fmt: skip
    site.retrieved_via = "definition"
    q = parse_question("What is a Business Day?")
    assert q.shape == "definition" and q.defined_term == "Business Day"
    gen = OfflineBackend().generate(q, [use, site], pass_no=2, instructions=[])
    assert gen.answer.answer.startswith(  # first, and whole, as a pulled passage is read
        'Definition (page 1): "Business Day" means any weekday other than a bank holiday. '
        "It excludes Saturdays. It also excludes 24 December."
    )
    assert gen.answer.answer.count("means any weekday") == 1  # the site is not quoted twice


def test_the_defining_sentence_stays_within_the_window_and_line_budget():
    from docintel.generation.offline import OfflineBackend

    filler = [f"Unrelated clause {i} about delivery of goods to the site." for i in range(6)]
    lines = []
    for k in range(3):  # three keyword clusters apart, each a window of its own
        lines += [f"MCAS activation {k} moves the stabilizer and MCAS trim {k} stops.", *filler]
    lines.append("MCAS is a function of the Speed Trim System.")
    window = _passage(2, [(i + 1, t) for i, t in enumerate(lines)])
    q = parse_question("What is MCAS?")
    for max_windows, max_lines in [(3, 14), (2, 14), (3, 2)]:
        gen = OfflineBackend(max_windows=max_windows, max_lines=max_lines).generate(
            q, [window], pass_no=1, instructions=[]
        )
        shown = gen.info.details["windows"]
        assert gen.answer.answer.startswith("MCAS is a function of the Speed Trim System.")
        assert len(shown) <= max_windows
        assert sum(w["lines"][1] - w["lines"][0] + 1 for w in shown) <= max(max_lines, 1)


def test_one_pattern_finds_where_a_term_is_defined_or_introduced():
    from docintel.text import comparison_form, defining_pattern, normalize

    pat, intro = defining_pattern("PII"), defining_pattern("PII", introduced=True)
    for text in ["PII is \u2015any information about an individual", "PII: any information", "12 PII - data",
                 "PII (personal data) means any information"]:  # fmt: skip
        assert pat.search(comparison_form(text)) and intro.search(normalize(text)), text
    for text in ["PII is part of the record", "PII-related incidents", "non-PII is a category"]:
        assert not intro.search(normalize(text)), text
    assert not pat.search("personally identifiable information (PII)")
    assert intro.search("personally identifiable information (PII)")
    assert intro.search("also known as PII") and not pat.search("also known as PII")
    doubled = defining_pattern("authorized project")  # US legislative style doubles the quotes
    assert doubled.search("The term \u2018\u2018authorized project\u2019\u2019 means the measures")


# -- a question the document asks is read with its answer -----------------------------------


def test_a_window_ending_on_a_question_the_document_asks_runs_on_to_its_answer():
    from docintel.generation.offline import OfflineBackend

    lines = [
        "This allows us to answer the following questions:",
        "1. Question: Does the model need so many",
        "pre-training steps for high accuracy?",
        "Answer: Yes, it gains almost 1.0% on the benchmark.",
        "2. Question: Does masked pre-training converge",
        "slower than left-to-right pre-training?",
        "Answer: Yes, by a small margin at first,",
        "and it overtakes almost at once.",
    ]
    window = _passage(16, [(i + 1, t) for i, t in enumerate(lines)])
    q = parse_question("Does masked pre-training converge slower than left-to-right pre-training?")
    text = OfflineBackend().generate(q, [window], pass_no=1, instructions=[]).answer.answer
    assert "Answer: Yes, by a small margin at first, and it overtakes almost at once." in text


# -- an enumeration written inline is read to its end ------------------------------------------


def test_a_window_inside_an_inline_enumeration_runs_on_to_the_sentence_end():
    from docintel.generation.offline import OfflineBackend

    lines = [
        "3 MINIMUM SECURITY REQUIREMENTS",
        "The minimum security requirements cover seventeen security-related areas with regard to",
        "protecting federal information systems. The security-related areas include: (i) access",
        "control; (ii) awareness and training; (iii) audit and accountability; (iv) certification",
        "and security assessments; (v) configuration management; (vi) contingency planning; (vii)",
        "identification and authentication; (viii) incident response; (ix) maintenance; (x) media",
        "protection; (xi) physical and environmental protection; (xii) planning; (xiii) personnel",
        "security; (xiv) risk assessment; (xv) systems and services acquisition; (xvi) system and",
        "communications protection; and (xvii) system and information integrity. The areas form",
        "a balanced program.",
    ]
    window = _passage(8, [(i + 1, t) for i, t in enumerate(lines)])
    window.lines[0].role = "heading"
    q = parse_question("Which security-related areas do the minimum security requirements cover?")
    text = OfflineBackend().generate(q, [window], pass_no=1, instructions=[]).answer.answer
    assert "(xvii) system and information integrity" in text


def test_a_cross_reference_inside_a_sentence_is_no_inline_enumeration():
    from docintel.generation.offline import OfflineBackend

    # a long regulation sentence, cut by the window's forward reach: "paragraph (b) of this
    # section" and "164.502(e) and" are references, not list members, so the window does not run on
    lines = [
        "§ 164.406 Notification to the media.",
        "A covered entity shall notify prominent media outlets serving a State or jurisdiction",
        "following the discovery of a breach as provided in paragraph (b) of this section and the",
        "business associate agreement required by § 164.502(e) and a contract described in",
        "paragraph (c) of this section, where the breach involves more than 500 residents of the",
        "State or jurisdiction, provided that the notice required by paragraph (a) of this section",
        "is made without unreasonable delay and in no case later than 60 calendar days after the",
        "discovery of the breach, except as provided in paragraph (d) of this section and the",
        "notice required by paragraph (e) of this section and the content set out in paragraph (f) of",
        "this section and the delay permitted by § 164.412 (g) of this part when a law enforcement",
        "official states to the covered entity that a notification would impede a criminal",
        "investigation or cause damage to national security in the manner set out in paragraph (h)",
        "of this section and the documentation required by § 164.530(j) and kept as provided in",
        "paragraph (k) of this section FAR-AWAY-LINE and the rest of the paragraph.",
    ]
    window = _passage(8, [(i + 1, t) for i, t in enumerate(lines)])
    window.lines[0].role = "heading"
    q = parse_question("Which media outlets must a covered entity notify?")
    text = OfflineBackend().generate(q, [window], pass_no=1, instructions=[]).answer.answer
    assert "prominent media outlets" in text
    assert "content set out in paragraph (f)" not in text  # 2 lines past the reach
    assert "law enforcement official" not in text
