"""Session 14 (an): a window the line budget cuts a line or two before its sentence ends is finished."""

from docintel.generation.offline.scoring import Term, pick_windows, score_lines
from docintel.schema.evidence import EvidenceLine, Passage

_LINES = [
    "Licence terms are given below and apply to every copy of the Work.",  # 0
    "The licence is granted for the whole term of the copyright in the Work.",  # 1
    "It covers every licence holder and every copy of the Work they make.",  # 2
    "Unrelated text about the fees charged for printing.",  # 3
    "Unrelated text about the format of the notices follows here.",  # 4
    "More unrelated text about where the notices are printed.",  # 5
    "If You bring a patent claim against a licence holder, then the patent",  # 6
    "rights granted to You by that contributor under these terms",  # 7
    "shall terminate as of the date such claim is filed.",  # 8
    "Unrelated closing text.",  # 9
]


_TERMS = [
    Term("licenc", "word", 1.0),
    Term("work", "word", 3.0),
    Term("copi", "word", 1.0),
    Term("patent", "word", 1.0),
    Term("termin", "word", 1.0),
]


def _grouped(terms):
    ev = [EvidenceLine(page=4, line=i + 1, text=t) for i, t in enumerate(_LINES)]
    p = Passage(doc_id="d", page=4, line_start=1, line_end=len(ev), lines=ev)
    return score_lines([p], terms)[0]


def test_a_sentence_cut_by_the_budget_near_its_end_is_finished():
    grouped = _grouped(_TERMS)
    ws = pick_windows(grouped, [0], max_windows=4, max_lines=5, min_ratio=0.1)
    lines = {i for w in ws for i in range(w.start, w.end + 1)}
    assert 6 in lines  # the patent sentence is quoted ...
    assert 8 in lines  # ... to its end ("shall terminate ..."), two lines past the budget


def test_a_sentence_far_past_the_budget_is_still_cut():
    grouped = _grouped(_TERMS)
    ws = pick_windows(grouped, [0], max_windows=4, max_lines=3, min_ratio=0.1)
    lines = {i for w in ws for i in range(w.start, w.end + 1)}
    assert 8 not in lines  # three lines past the budget: not quoted
    assert len(lines) <= 3


def test_a_sentence_ending_inside_the_next_line_is_finished_there():
    lines = list(_LINES)
    lines[7] = "rights granted to You by that contributor shall end. The other"
    lines[8] = "rights of others stay with their holders and heirs"
    ev = [EvidenceLine(page=4, line=i + 1, text=t) for i, t in enumerate(lines)]
    p = Passage(doc_id="d", page=4, line_start=1, line_end=len(ev), lines=ev)
    grouped = score_lines([p], _TERMS)[0]
    ws = pick_windows(grouped, [0], max_windows=4, max_lines=4, min_ratio=0.1)
    lines_in = {i for w in ws for i in range(w.start, w.end + 1)}
    assert 7 in lines_in  # "... shall end." ends inside line 7: quoted through it
    assert 8 not in lines_in


def test_no_window_is_opened_on_the_overrun_alone():
    # the seed ("shall terminate") lies past the budget: finishing a sentence must not open it
    lines = list(_LINES)
    lines[7] = "rights granted to You by that contributor shall terminate. The other"
    lines[8] = "rights of the Work stay with the copyright holder and its heirs"
    ev = [EvidenceLine(page=4, line=i + 1, text=t) for i, t in enumerate(lines)]
    p = Passage(doc_id="d", page=4, line_start=1, line_end=len(ev), lines=ev)
    grouped = score_lines([p], _TERMS)[0]
    assert max(grouped[0], key=lambda r: r.context if r.pos > 5 else 0).pos == 7  # the seed
    ws = pick_windows(grouped, [0], max_windows=4, max_lines=4, min_ratio=0.1)
    assert {i for w in ws for i in range(w.start, w.end + 1)} == {0, 1, 2}
