"""rank's per-page candidates: a page no signal touches is built unvalidated, identical to a validated one."""

from __future__ import annotations

import pytest

from docintel.api import ensure_index, parse
from docintel.questions import parse_question
from docintel.retrieval import rank
from docintel.schema.evidence import Candidate

QUESTIONS = [
    "How is the rv_length_indicator computed?",
    "What does Section 3 say about randomization?",
    "What is defined as a hash function?",
    "Which tables list the test results?",
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_quiet_pages_match_validated_candidates(nist_pdf, artifacts, monkeypatch, question):
    tables = parse(nist_pdf, out_dir=artifacts, layout="never", ocr="never")
    ensure_index(tables)
    q = parse_question(question)
    fast = rank.retrieve(q, tables, top_k=2)
    quiet = [c for c in fast if not c.reasons and not any(c.scores.values())]
    assert quiet  # the fast path is exercised
    monkeypatch.setattr(Candidate, "model_construct", classmethod(lambda cls, **kw: cls(**kw)))
    slow = rank.retrieve(q, tables, top_k=2)
    assert [c.model_dump() for c in fast] == [c.model_dump() for c in slow]
    assert [c.model_dump_json() for c in fast] == [c.model_dump_json() for c in slow]
    assert [c.model_fields_set for c in fast] == [c.model_fields_set for c in slow]
