"""Contracts are data: every backend honours the protocol, kinds are declared once, and
``ask --json`` keeps its shape."""

from __future__ import annotations

import typing

from docintel.generation.backends.fakes import FakeBackend
from docintel.generation.backends.fallback import FallbackBackend
from docintel.generation.offline import OfflineBackend
from docintel.generation.protocol import LLMBackend
from docintel.schema import kinds, loop, tables
from docintel.schema.answer import PendingReference, ReferenceAwareAnswer
from docintel.schema.evidence import Passage
from docintel.schema.result import AskResult


def test_every_built_in_backend_is_an_llm_backend():
    for b in (OfflineBackend(), FakeBackend(), FallbackBackend(FakeBackend(), OfflineBackend())):
        assert isinstance(b, LLMBackend), type(b).__name__
        assert b.kind in typing.get_args(loop.BackendKind)


def test_kinds_are_declared_once_and_read_everywhere():
    assert tables.REF_TYPES == kinds.TABLE_REF_TYPES and tables.LINE_ROLES == kinds.LINE_ROLES
    assert set(typing.get_args(PendingReference.model_fields["ref_type"].annotation)) == set(kinds.REF_TYPES)
    assert set(typing.get_args(Passage.model_fields["retrieved_via"].annotation)) >= {"primary", "reference"}
    assert kinds.FURNITURE_ROLES < kinds.NON_EVIDENCE_ROLES < kinds.UNINDEXED_ROLES
    assert typing.get_args(loop.Instruction) == loop.INSTRUCTIONS


def test_ask_json_keeps_its_shape():
    a = ReferenceAwareAnswer(answer="x", answer_completeness="complete")
    res = AskResult(
        question="q",
        doc_id="d",
        answer=a,
        passes=[{"pass": 1, "evidence": [], "prompt_tokens": 3, "decision": "return_to_user"}],
        resolutions=[
            {
                "pass": 1,
                "reference": "Table 3",
                "origin": [2, 5],
                "ref_type": "table",
                "status": "resolved",
                "method": "object_registry",
                "target": "table:3",
                "target_pages": [4],
                "passages": [[4, 1, 9]],
            }
        ],  # fmt: skip
    )
    out = res.to_json_dict()
    assert list(out) == [
        "question", "doc_id", "answer", "citations", "pending_references", "external_references",
        "conditions", "answer_completeness", "completeness_reasons", "loop_count", "passes", "evidence",
        "resolutions", "unresolved", "warnings", "trace_path",
    ]  # fmt: skip
    assert out["completeness_reasons"] == []
    assert out["passes"] == [
        {"pass": 1, "evidence": [], "prompt_tokens": 3, "instructions": [], "validation_problems": [],
         "decision": "return_to_user"}
    ]  # fmt: skip
    r = out["resolutions"][0]
    assert list(r) == ["pass", "reference", "origin", "ref_type", "status", "method", "target",
                       "sub_selector", "target_pages", "reason", "passages", "cut"]  # fmt: skip
    assert r["origin"] == [2, 5] and r["passages"] == [[4, 1, 9]]
    # records still read like the dicts they were
    assert res.resolutions[0]["status"] == "resolved" and res.passes[0]["decision"] == "return_to_user"


def test_trace_file_name_is_stable_across_runs():
    import hashlib
    import subprocess
    import sys

    from docintel.api import trace_file_name

    digest = hashlib.sha256(b"What is MCAS?").hexdigest()[:8]
    assert trace_file_name("What is MCAS?", 0) == f"19700101T000000-{digest}.json"
    # another interpreter (another hash() salt) names it the same
    code = "from docintel.api import trace_file_name; print(trace_file_name('What is MCAS?', 0))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert other.stdout.strip() == f"19700101T000000-{digest}.json"
