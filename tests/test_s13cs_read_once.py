"""Session 13 (cs): the corpus ask's extractive backend reads each first-hop line once. The loop
adds a same-page target whole when it adds any line; on a corpus ask the target often repeats a
first-hop passage, and the answer quoted the same paragraph twice."""

from __future__ import annotations

from docintel.corpus.single import _budgeted, read_once
from docintel.questions.parse import parse_question
from docintel.schema.evidence import EvidenceLine, Passage

PARAGRAPH = [
    "Reference packages are reviewed by the archive office in Denver.",
    "The archive office posts each package for a public review.",
    "Staff meet on Mondays to plan the week.",
]


def _passage(lines: list[int], via: str = "primary", texts: dict | None = None) -> Passage:
    texts = texts or {}
    ev = [
        EvidenceLine(page=4, line=n, text=texts.get(n, f"filler line {n} about gardens"), role="body")
        for n in lines
    ]
    return Passage(
        doc_id="d", page=4, line_start=min(lines), line_end=max(lines), lines=ev, retrieved_via=via
    )


def test_read_once_leaves_out_lines_an_earlier_primary_passage_holds():
    first = _passage([3, 1, 2, 4])  # a grid read cell by cell: its own order is kept
    target = _passage([1, 2, 3, 4, 5, 6])  # the same-page target, added whole
    inside = _passage([2, 3])
    pulled = _passage([1, 2], via="reference")  # a pulled-in target is the loop's, left alone
    out = read_once([first, target, inside, pulled])
    assert [[ln.line for ln in p.lines] for p in out] == [[3, 1, 2, 4], [5, 6], [1, 2]]
    assert (out[1].line_start, out[1].line_end) == (5, 6)


def test_the_corpus_backend_quotes_a_repeated_paragraph_once(monkeypatch):
    for name in ("DOCINTEL_BACKEND", "DOCINTEL_MODEL", "DOCINTEL_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    texts = dict(enumerate(PARAGRAPH, start=1))
    first = _passage([1, 2, 3], texts=texts)
    target = _passage([1, 2, 3, 4], texts=texts)
    q = parse_question("Who reviews the reference packages, and is there a public review?")
    answer = _budgeted(None, 1).generate(q, [first, target], pass_no=1, instructions=[]).answer.answer
    assert answer.count("archive office in Denver") == 1, answer
