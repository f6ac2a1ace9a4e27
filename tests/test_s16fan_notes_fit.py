"""Session 16 (fan): the closing notes of an answer near its 4,000-character limit stay whole.

``--fallback offline`` put its label before a composed offline answer and sliced the result to
4,000 characters, and the loop's budget note ("Not given in full (budget): ...") was appended
and sliced the same way: the slice cut the notes off the end (dev csf-r1 under the fallback lost
its "Relies on documents outside this PDF" note; offline, its budget note read "Not given in full
(budg"). The quoted text before the notes is clipped instead."""

from __future__ import annotations

from docintel.generation.backends.fallback import FallbackBackend
from docintel.generation.completeness import earn
from docintel.generation.offline import OfflineBackend
from docintel.generation.offline.compose import ANSWER_CHARS, fit
from docintel.schema.answer import ReferenceAwareAnswer
from docintel.schema.evidence import EvidenceLine, ParsedQuestion, Passage
from tests.test_fallback import Failing

_NOTE = "Relies on documents outside this PDF (named, not fetched): SP 800-53 Rev. 4."


def test_fit_clips_the_quoted_text_not_the_notes():
    body = "quoted words " * 400
    text = f"{body}\n{_NOTE}\nNot yet followed: Table 1 (page 2, line 3); the complete answer may be there."
    out = fit(text)
    assert len(out) <= ANSWER_CHARS
    assert out.endswith(text.split("\n", 1)[1])  # both notes whole
    assert out.startswith("quoted words") and "..." in out
    assert fit("short\n" + _NOTE) == "short\n" + _NOTE  # within the limit: as it is
    assert len(fit("x " * 3000)) <= ANSWER_CHARS  # no notes: clipped as before


def test_the_budget_note_is_not_cut():
    class Followed:
        cut = ["section A: 133 of its 1349 lines given"]
        status = "external"  # not a followed target the completeness checks read

    text = ("quoted words " * 300).strip() + "\n" + _NOTE
    answer = ReferenceAwareAnswer(answer=text, answer_completeness="complete")
    out, _, _ = earn(answer, [Followed()], [], [])
    assert out.answer.endswith(
        f"{_NOTE}\nNot given in full (budget): section A: 133 of its 1349 lines given."
    )
    assert len(out.answer) <= ANSWER_CHARS


def test_the_fallback_label_does_not_cut_the_offline_notes():
    lines = [f"The widget rule {k} applies to every widget family as SP 800-99 requires." for k in range(90)]
    passage = Passage(
        doc_id="d", page=3, line_start=1, line_end=len(lines),
        lines=[EvidenceLine(page=3, line=k + 1, text=t) for k, t in enumerate(lines)],
    )  # fmt: skip
    q = ParsedQuestion(
        text="Which widget rule applies to every widget family?", keywords=["widget", "rule", "family"]
    )
    offline = OfflineBackend().generate(q, [passage], pass_no=1, instructions=[]).answer.answer
    fb = FallbackBackend(Failing(), OfflineBackend()).generate(q, [passage], pass_no=1, instructions=[])
    text = fb.answer.answer
    assert text.startswith("[Offline fallback:") and len(text) <= ANSWER_CHARS
    note = offline.rsplit("\n", 1)[-1]
    assert note.startswith("Relies on documents outside this PDF") and text.endswith(note)
