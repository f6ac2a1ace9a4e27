"""Session 13 (fxa): a held target is quoted only for the document's own numbered paragraph, once
per window; a same-page target's added runs carry their own page and line span."""

from docintel.generation.offline.heldtargets import held_target_windows
from docintel.generation.offline.scoring import ScoredLine, Window
from docintel.schema.evidence import EvidenceLine, Passage


def _rows(lines):
    return [ScoredLine(0, i, EvidenceLine(page=1, line=i + 1, text=t)) for i, t in enumerate(lines)]


def _quoted(lines):
    rows = _rows(lines)
    out = held_target_windows([rows], [Window(0, 0, 0, 0, 1.0, set())])
    return [(w.start, w.end) for w in out[1:]]


_NUMBERED = [
    "4. The Processor keeps records.",
    "5. The Processor may appoint sub-processors only with consent.",
    "6. Audits are annual.",
]


def test_an_own_pointer_quotes_its_numbered_paragraph():
    assert _quoted(["Records are kept as Article 5 requires."] + _NUMBERED) == [(2, 2)]


def test_an_own_pointer_followed_by_a_phrase_is_still_own():
    assert _quoted(["Records are kept under Article 5 to the extent it requires."] + _NUMBERED) == [(2, 2)]
    assert _quoted(["Records are kept under Article 5 of this Agreement."] + _NUMBERED) == [(2, 2)]


def test_a_section_sign_pointer_is_one():
    assert _quoted(["Records are kept as § 5 requires."] + _NUMBERED) == [(2, 2)]


def test_a_pointer_into_another_work_quotes_nothing():
    assert _quoted(["Personal data is processed as Article 5 of the GDPR requires."] + _NUMBERED) == []
    assert _quoted(["Records follow Section 5 of the core specification."] + _NUMBERED) == []


def test_a_line_opening_with_the_number_is_no_label():
    lines = [
        "The Licensee may terminate under Section 3 of this Agreement.",
        "Notice must be given in writing and",
        "3 days before the effective date of termination.",
        "Other text follows here.",
    ]
    assert _quoted(lines) == []


def test_a_line_numbered_draft_quotes_no_margin_number():
    lines = [
        "12 The profile follows Section 14 of this profile.",
        "13 Implementations MUST support the binding.",
        "14. Messages are signed with the key pair described above.",
        "15 and are encrypted when the channel is not secure.",
    ]
    assert _quoted(lines) == []


def test_one_target_per_window():
    assert len(_quoted(["Records are kept as Article 4 and Article 6 require."] + _NUMBERED)) == 1


def _line(page, line):
    return EvidenceLine(page=page, line=line, text=f"cell {page}.{line}", role="table")


def _same_page(target, held):
    from docintel.retrieval.firstpass import same_page_targets
    from docintel.schema.loop import Resolution
    from docintel.schema.trace import Trace

    window = Passage(
        doc_id="d",
        page=held[0][0],
        line_start=held[0][1],
        line_end=held[-1][1],
        lines=[
            EvidenceLine(page=pg, line=ln, text="The limits are in Table 3." if ln == 10 else "held")
            for pg, ln in held
        ],
    )

    def resolve(ref):
        return Resolution(
            ref=ref,
            status="resolved",
            method="registry",
            ref_type="table",
            target="Table 3",
            passages=[target],
        )

    return same_page_targets([window], resolve, Trace(question="q"))[1:]


def test_a_grid_ordered_run_spans_its_lowest_to_highest_line():
    order = [53, 50, 54, 51, 55, 52, 56]
    target = Passage(doc_id="d", page=2, line_start=50, line_end=56, lines=[_line(2, n) for n in order])
    out = _same_page(target, [(2, 10), (2, 52)])
    assert [(p.page, p.line_start, p.line_end) for p in out] == [(2, 50, 55), (2, 56, 56)]


def test_a_run_over_a_page_break_is_one_passage_per_page():
    lines = [_line(2, 40), _line(2, 41), _line(2, 42), _line(3, 1), _line(3, 2)]
    target = Passage(doc_id="d", page=2, line_start=40, line_end=2, lines=lines)
    out = _same_page(target, [(2, 10), (2, 40), (3, 5)])
    assert [(p.page, p.line_start, p.line_end) for p in out] == [(2, 41, 42), (3, 1, 2)]
    assert all({ln.page for ln in p.lines} == {p.page} for p in out)
