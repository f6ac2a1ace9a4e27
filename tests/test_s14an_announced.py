"""Session 14 (an): "the following notice," announced inside a sentence is read below it."""

from docintel.generation.offline.scoring import ScoredLine
from docintel.generation.offline.spans import announced_below
from docintel.schema.evidence import EvidenceLine

_LINES = [
    "To use the template for your report, fill in the following cover sheet, with the fields",  # 0
    "in square brackets replaced by your own details. (Keep the headings!)",  # 1
    "The sheet should open the report. We also recommend that the report's title be",  # 2
    "repeated on the sheet's first line for easier filing.",  # 3
    "Report title: [title]",  # 4
    "Submitted by [name] to the review board on [date]",  # 5
]


def _rows(hit_at):
    return [
        ScoredLine(0, i, EvidenceLine(page=3, line=i + 1, text=t), hits={"board"} if i in hit_at else set())
        for i, t in enumerate(_LINES)
    ]


def test_a_sentence_announcing_the_following_item_mid_sentence_reads_on():
    assert announced_below(_rows({5}), 0, 1) == 5


def test_no_read_on_without_a_question_word_below_or_an_announcement():
    assert announced_below(_rows(set()), 0, 1) == 1
    rows = _rows({5})
    rows[0].ln.text = "To use the template for your report, fill in the cover sheet, with the fields"
    assert announced_below(rows, 0, 1) == 1
