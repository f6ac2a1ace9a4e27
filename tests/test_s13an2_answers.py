"""Session 13 (an2): answer-side rules found by round 1 (glossary entries, acronyms, possessive
phrases, same-page targets)."""

from docintel.generation.offline.backend import OfflineBackend
from docintel.generation.offline.scoring import ScoredLine
from docintel.generation.offline.spans import grow_window
from docintel.questions import parse_question
from docintel.schema.evidence import EvidenceLine, Passage

# A glossary page whose term lines are interleaved with their definitions (NISTIR 7298 r2 p165 shape).
_ENTRIES = [
    "Responsibility to Provide –",
    "An information distribution approach whereby relevant essential",
    "information is made readily available and discoverable to the",
    "broadest possible pool of potential users.",
    "SOURCE: CNSSI-4009",
    "Restricted Data –",
    "All data concerning (i) design, manufacture, or utilization of atomic",
    "weapons; (ii) the production of special nuclear material; or (iii) the",
    "use of special nuclear material in the production of energy, but shall",
    "not include data declassified or removed from the Restricted Data",
    "category pursuant to Section 142 [of the Atomic Energy Act of",
    "1954].",
    "SOURCE: SP 800-53; Atomic Energy Act of 1954",
    "Revoke a Certificate –",
    "To prematurely end the operational period of a certificate effective at",
    "a specific date and time.",
    "SOURCE: SP 800-32",
]


def _rows(lines):
    return [ScoredLine(0, i, EvidenceLine(page=1, line=i + 1, text=t)) for i, t in enumerate(lines)]


def _answer(lines, question):
    ev = [EvidenceLine(page=165, line=i + 2, text=t) for i, t in enumerate(lines)]
    p = Passage(doc_id="d", page=165, line_start=2, line_end=len(lines) + 1, lines=ev)
    return OfflineBackend().generate(parse_question(question), [p], pass_no=1, instructions=[]).answer.answer


def test_a_glossary_window_stops_at_the_term_lines_around_its_entry():
    rows = _rows(_ENTRIES)
    # seeded inside the definition: back to its own term line, not into the previous entry's SOURCE
    start, end = grow_window(rows, 7)
    assert start == 5
    assert end < 13  # never into "Revoke a Certificate –"


def test_a_definition_answer_is_its_entry_alone():
    text = _answer(_ENTRIES, "What counts as Restricted Data?")
    assert "utilization of atomic weapons" in text
    assert "CNSSI-4009" not in text  # the previous entry's source
    assert "Revoke a Certificate" not in text
    assert "prematurely" not in text


def _passage(page, first, texts, via="primary"):
    lines = [EvidenceLine(page=page, line=first + i, text=t) for i, t in enumerate(texts)]
    return Passage(
        doc_id="d",
        page=page,
        line_start=first,
        line_end=first + len(texts) - 1,
        lines=lines,
        retrieved_via=via,
    )


def test_a_same_page_target_adds_only_the_lines_the_window_lacks():
    from docintel.retrieval.firstpass import same_page_targets
    from docintel.schema.loop import Resolution
    from docintel.schema.trace import Trace

    window = _passage(
        4, 10, ["The limits are listed in Table 3 below."] + [f"body {i}." for i in range(11, 20)]
    )
    target = _passage(4, 16, [f"body {i}." for i in range(16, 20)] + ["Table 3 row one.", "Table 3 row two."])

    def resolve(ref):
        return Resolution(
            ref=ref,
            status="resolved",
            method="registry",
            ref_type="table",
            target="Table 3",
            passages=[target],
        )

    out = same_page_targets([window], resolve, Trace(question="q"))
    keys = [(ln.page, ln.line) for p in out for ln in p.lines]
    assert len(keys) == len(set(keys))  # no line twice
    assert [ln.line for ln in out[-1].lines] == [20, 21]
    assert (out[-1].line_start, out[-1].line_end) == (20, 21)


def test_a_possessive_phrase_also_gives_the_phrase_after_the_owner():
    q = parse_question("What changed in the Framework's access control category between version 1.0 and 1.1?")
    assert "access control category" in q.phrases  # the text prints "Access Control Category"
    assert "framework access control category" in q.phrases
    q = parse_question("What are the licensors’ patent rights?")
    assert "patent rights" in q.phrases
    assert parse_question("Where is the user's guide?").phrases == ["user guide"]  # one word after: no phrase


_ARTICLES = [
    "Article 3 - ACCEPTANCE",
    "3.1 The Licensee shall be deemed as having accepted the terms and",
    "conditions of this Agreement upon the occurrence of the first of the following events:",
    "* (i) loading the Software by any or all means, notably, by downloading from a",
    "remote server, or by loading from a physical medium;",
    "* (ii) the first time the Licensee exercises any of the rights granted hereunder.",
    "3.2 One copy of the Agreement has been provided to the Licensee prior to its acceptance.",
    "Article 4 - EFFECTIVE DATE AND TERM",
    "4.1 EFFECTIVE DATE",
    "The Agreement shall become effective on the date when it is accepted by the Licensee as",
    "set forth in Article 3.1.",
    "4.2 TERM",
    "The Agreement shall remain in force for the entire legal term of protection of the economic",
    "rights over the Software.",
]


def test_a_pointer_whose_target_the_passage_holds_quotes_the_target():
    text = _answer(_ARTICLES, "When does the agreement become effective?")
    assert "become effective on the date" in text
    assert "loading the Software by any or all means" in text  # Article 3.1, six lines above
    assert "3.2 One copy" not in text
