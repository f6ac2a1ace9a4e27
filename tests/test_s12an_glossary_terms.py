"""Session 12: a glossary read column by column (NISTIR 7298: the terms of a page, then their
definitions) gives the offline answer a term line followed by other terms; the window on it is the
term alone, so the definition the question's words also find is what the answer reads."""

from __future__ import annotations

from docintel.generation.offline import OfflineBackend
from docintel.questions import parse_question
from docintel.schema.evidence import EvidenceLine, Passage

_PAGE = [
    "Responsible Individual –",
    "Responsibility to Provide –",
    "Restricted Data –",
    "Revoke a Certificate –",
    "A trustworthy person designated by a sponsoring organization to",
    "authenticate individual applicants seeking certificates on the basis of",
    "their affiliation with the sponsor.",
    "An information distribution approach whereby relevant essential",
    "information is made readily available to the broadest pool of users.",
    "All data concerning (i) design, manufacture, or utilization of atomic",
    "weapons; (ii) the production of special nuclear material, but shall",
    "not include data declassified or removed from the Restricted Data",
    "category pursuant to Section 142 [of the Atomic Energy Act of 1954].",
    "To prematurely end the operational period of a certificate.",
]


def _answer(lines: list[str], question: str) -> str:
    ev = [EvidenceLine(page=165, line=i + 2, text=t) for i, t in enumerate(lines)]
    p = Passage(doc_id="d", page=165, line_start=2, line_end=len(lines) + 1, lines=ev)
    return OfflineBackend().generate(parse_question(question), [p], pass_no=1, instructions=[]).answer.answer


def test_a_term_in_a_column_of_terms_is_answered_by_its_definition_not_the_next_terms():
    text = _answer(_PAGE, "What counts as Restricted Data?")
    assert "utilization of atomic weapons" in text
    assert "Revoke a Certificate" not in text
    assert "A trustworthy person" not in text


def test_a_term_and_definition_on_one_line_still_reads_on():
    from docintel.generation.offline.scoring import ScoredLine
    from docintel.generation.offline.spans import grow_window, term_column

    lines = ["Restricted Data – All data concerning (i) design of atomic", "weapons.", "Risk – The level of"]
    ev = [EvidenceLine(page=1, line=i + 1, text=t) for i, t in enumerate(lines)]
    rows = [ScoredLine(0, i, ln) for i, ln in enumerate(ev)]
    assert not term_column(rows, 0)
    assert grow_window(rows, 0) == (0, 1)
    alone = [
        EvidenceLine(page=1, line=1, text="Restricted Data –"),
        EvidenceLine(page=1, line=2, text="weapons."),
    ]
    rows = [ScoredLine(0, i, ln) for i, ln in enumerate(alone)]
    assert not term_column(rows, 0)  # a single dangling term: its definition may well follow
