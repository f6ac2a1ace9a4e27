"""Session 12 (cs): the corpus scorer names what the evidence held but the answer text lost."""

from __future__ import annotations

from docintel.corpus.evaluate import score


def test_answer_missing_lists_strings_in_the_evidence_but_not_the_answer():
    q = {"id": "q", "answer_must_contain": ["at least annually", "Change in owner", "absent"]}
    out = {
        "answer": "Plans are reviewed at least  annually.",
        "evidence": [{"text": "reviewed AT LEAST annually. Items: change in owner;", "page": 3}],
    }
    s = score(out, q, [])
    assert s["missing"] == ["absent"]
    assert s["answer_missing"] == ["Change in owner"]
    assert not s["evidence_complete"] and not s["answer_complete"]
