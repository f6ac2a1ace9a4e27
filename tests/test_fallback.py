"""--fallback offline (labelled, raw outputs kept), the detector safety net for references a model
missed, and the grammar-safe schema. No model and no server: the primary backend is scripted."""

from __future__ import annotations

import json

import pytest

from docintel.errors import LLMOutputError
from docintel.generation.backends.fallback import FallbackBackend
from docintel.generation.errors import LLMTimeoutError
from docintel.generation.offline import OfflineBackend
from docintel.generation.safety import (
    GRAMMAR_MAX_STRING,
    as_base,
    grammar_safe_model,
    merge_detected_references,
)
from docintel.generation.validator import generate_checked
from docintel.schema.answer import Citation, PendingReference, ReferenceAwareAnswer
from docintel.schema.evidence import EvidenceLine, ParsedQuestion, Passage

TEXTS = [
    "We also experimented with using learned positional embeddings [9] instead, and found that the two",
    "versions produced nearly identical results (see Table 3 row (E)). We chose the sinusoidal version",
    "because it may allow the model to extrapolate to sequence lengths longer than the ones encountered.",
    "The random numbers are generated as specified in SP 800-90.",
]
PAGE6 = Passage(
    doc_id="d", page=6, line_start=26, line_end=29,
    lines=[EvidenceLine(page=6, line=26 + i, text=t) for i, t in enumerate(TEXTS)],
)  # fmt: skip
Q = ParsedQuestion(
    text="Do learned positional embeddings give results similar to the sinusoidal version?",
    keywords=["learned", "positional", "embeddings", "sinusoidal"],
)
RAW = ['{"answer": "loops loops loops', '{"answer": 12}']


class Failing:
    """A primary backend whose output never validates (or that fails with ``error``)."""

    name = "local"
    kind = "model"

    def __init__(self, error: Exception | None = None):
        self.error = error or LLMOutputError("did not validate", raw_outputs=RAW, attempts=2)

    def generate(self, question, passages, *, pass_no, instructions):
        raise self.error

    def resolve_reference(self, raw_text, origin_context, sections):
        raise self.error

    def describe(self):
        return {"name": self.name, "model": "tiny"}


def test_output_error_falls_back_to_offline_with_a_label_and_the_raw_outputs():
    fb = FallbackBackend(Failing(), OfflineBackend())
    checked = generate_checked(fb, Q, [PAGE6], pass_no=1, instructions=[])
    ans = checked.answer
    assert ans.answer.startswith("[Offline fallback: the local model's output did not validate after 2")
    assert ans.citations and ans.citations[0].page == 6  # a real offline answer follows the label
    info = checked.info.as_dict()
    assert info["fallback"] == "offline" and fb.fallbacks == 1
    assert info["llm_output_error"]["raw_outputs"] == RAW
    assert fb.describe()["fallback"]["backend"]["name"] == "offline"


def test_endpoint_failures_are_not_masked_by_the_fallback():
    fb = FallbackBackend(Failing(LLMTimeoutError("no answer within 5 s")), OfflineBackend())
    with pytest.raises(LLMTimeoutError):
        answer_of(fb, Q, [PAGE6], pass_no=1, instructions=[])
    assert fb.fallbacks == 0


def test_resolver_falls_back_to_the_deterministic_pick():
    fb = FallbackBackend(Failing(), OfflineBackend())
    sections = [{"toc_id": "3.2", "title": "Attention", "page_start": 3}]
    assert fb.resolve_reference("as described in Section 3.2", "ctx", sections) == "3.2"
    assert fb.fallbacks == 1


def test_ask_with_fallback_labels_the_answer_and_traces_the_raw_outputs(nist_pdf, tmp_path):
    from docintel.api import ask

    trace = tmp_path / "trace.json"
    result = ask(
        nist_pdf,
        "What is the purpose of randomized hashing for digital signatures?",
        backend=FallbackBackend(Failing(), OfflineBackend()),
        out_dir=tmp_path / "art",
        trace_path=trace,
    )
    assert result.answer.answer.startswith("[Offline fallback:")
    passes = [e for e in json.loads(trace.read_text())["events"] if e.get("kind") == "pass"]
    assert passes and passes[0]["backend_info"]["llm_output_error"]["raw_outputs"] == RAW


def _answer(**kw) -> ReferenceAwareAnswer:
    base = {"answer": "They gave nearly identical results.", "answer_completeness": "complete"}
    return ReferenceAwareAnswer(**{**base, **kw})


def test_detector_adds_the_reference_a_model_cited_but_did_not_flag():
    ans = _answer(citations=[Citation(page=6, line_start=27, line_end=28, quote="nearly identical results")])
    merged, added = merge_detected_references(ans, [PAGE6], Q)
    assert [r.raw_text for r in merged.pending_references] == ["Table 3 row (E)"]
    assert merged.answer_completeness == "references_unresolved"
    assert added["pending"] == ["Table 3 row (E)"]
    assert "[9]" not in added["pending"]  # bracketed sources are not followed unasked
    assert "SP 800-90" in added["external"]  # line 29 is a neighbour of the citation: named


def test_detector_leaves_flagged_or_present_targets_alone():
    flagged = _answer(
        citations=[Citation(page=6, line_start=27, line_end=27)],
        pending_references=[
            PendingReference(raw_text="Table 3 row (E)", ref_type="table", origin_page=6, origin_line=27)
        ],  # fmt: skip
        answer_completeness="references_unresolved",
    )
    merged, added = merge_detected_references(flagged, [PAGE6], Q)
    assert len(merged.pending_references) == 1 and added["pending"] == []
    table = Passage(doc_id="d", page=9, line_start=1, line_end=1, retrieved_via="reference",
                    reference_text="Table 3 row (E)", referenced_from=(6, 27),
                    lines=[EvidenceLine(page=9, line=1, text="Table 3: Variations", role="caption")])  # fmt: skip
    ans = _answer(citations=[Citation(page=6, line_start=27, line_end=27)])
    merged, added = merge_detected_references(ans, [PAGE6, table], Q)
    assert added["pending"] == [] and merged.answer_completeness == "complete"


def test_detector_reads_line_tags_in_the_text_and_falls_back_to_question_lines():
    tagged = _answer(answer="Nearly identical [p6 l27].", answer_completeness="not_found")
    merged, _ = merge_detected_references(tagged, [PAGE6], Q)
    assert merged.answer_completeness == "references_unresolved"
    bare = _answer(answer="Nearly identical.")
    merged, added = merge_detected_references(bare, [PAGE6], Q)
    assert added["pending"] == ["Table 3 row (E)"]


def test_grammar_safe_schema_caps_lengths_and_parses_raw_newlines():
    safe = grammar_safe_model(ReferenceAwareAnswer)
    assert safe.__name__ == "ReferenceAwareAnswer"  # the tool name the server sees is unchanged
    props = safe.model_json_schema()["properties"]
    assert props["answer"]["maxLength"] == GRAMMAR_MAX_STRING
    assert ReferenceAwareAnswer.model_json_schema()["properties"]["answer"]["maxLength"] == 4000
    parsed = safe.model_validate_json('{"answer": "two\nlines", "answer_completeness": "complete"}')
    base = as_base(parsed, ReferenceAwareAnswer)
    assert type(base) is ReferenceAwareAnswer and base.answer == "two\nlines"
    with pytest.raises(ValueError):  # bounds still hold: validation uses the real model
        safe.model_validate_json(json.dumps({"answer": "x" * 4001, "answer_completeness": "complete"}))


def answer_of(backend, question, passages, **kw):
    """The answer as the loop sees it: generated, then validated once."""
    return generate_checked(backend, question, passages, **kw).answer
