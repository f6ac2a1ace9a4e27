"""The question's words no chosen window holds get one sentence window (session 15, an).

A phrase repeated on every other line ("recovery metrics") wins every window by context score;
the sentence holding the question's other words ("sharing ... only with the approval of ...") was
left out though it is the answer.
"""

from __future__ import annotations

from docintel.generation.offline.coverage import COVER_LINES, cover_window
from docintel.generation.offline.scoring import ScoredLine, Window
from docintel.schema.evidence import EvidenceLine

TEXTS = [
    ("Recovery metrics help improve recovery.", {"recoveri", "metric"}),
    ("Recovery metrics are collected during recovery.", {"recoveri", "metric"}),
    ("The majority of recovery metrics improve actions.", {"recoveri", "metric"}),
    ("Other metrics are used for reporting to an outside authority.", {"metric"}),
    ("Sharing of metrics should occur only with the approval of", {"share", "metric", "approv"}),
    ("appropriate stakeholders, including senior managers.", set()),
    ("Organizations decide when to use metrics.", {"metric"}),
]
WEIGHTS = {"recoveri": 1.6, "metric": 1.7, "share": 2.7, "approv": 3.4}
KINDS = {k: "word" for k in WEIGHTS}


def _rows(texts):
    rows = [
        ScoredLine(0, i, EvidenceLine(page=27, line=i + 1, text=t), hits=set(h))
        for i, (t, h) in enumerate(texts)
    ]
    for r in rows:
        r.score = sum(WEIGHTS[h] for h in r.hits)
        r.context = r.score
    return [rows]


def test_the_uncovered_words_get_their_sentence():
    grouped = _rows(TEXTS)
    first = Window(0, 0, 2, 1, 6.0, {"recoveri", "metric"})
    out = cover_window(grouped, [first], WEIGHTS, KINDS)
    assert len(out) == 2
    added = out[1]
    assert added.start <= 4 <= added.end and added.end == 5  # the sentence, to its end
    assert added.end - added.start + 1 <= COVER_LINES


def test_one_uncovered_word_adds_nothing():
    texts = [(t, h - {"approv"}) for t, h in TEXTS]
    grouped = _rows(texts)
    first = Window(0, 0, 2, 1, 6.0, {"recoveri", "metric"})
    assert cover_window(grouped, [first], WEIGHTS, KINDS) == [first]


def test_a_document_question_line_seeds_nothing():
    texts = [(t.replace("approval of", "approval of?"), h) for t, h in TEXTS]
    grouped = _rows(texts)
    first = Window(0, 0, 2, 1, 6.0, {"recoveri", "metric"})
    assert cover_window(grouped, [first], WEIGHTS, KINDS) == [first]


def test_a_grid_line_seeds_nothing():
    grouped = _rows(TEXTS)
    grouped[0][4].ln = EvidenceLine(page=27, line=5, text=TEXTS[4][0], role="table")
    first = Window(0, 0, 2, 1, 6.0, {"recoveri", "metric"})
    assert cover_window(grouped, [first], WEIGHTS, KINDS) == [first]
