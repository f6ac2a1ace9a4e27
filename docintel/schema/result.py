"""What ``ask`` returns: the final answer plus the loop's record, every part typed."""

from __future__ import annotations

from pydantic import BaseModel, Field

from docintel.schema.answer import ReferenceAwareAnswer, UnresolvedReference
from docintel.schema.loop import EvidenceRecord, PartialReason, PassRecord, ResolutionRecord


class AskResult(BaseModel):
    """What ``ask`` returns. ``to_json_dict`` is the object ``ask --json`` prints."""

    question: str
    doc_id: str
    answer: ReferenceAwareAnswer
    loop_count: int = 0
    passes: list[PassRecord] = Field(default_factory=list)
    evidence: list[EvidenceRecord] = Field(default_factory=list)
    resolutions: list[ResolutionRecord] = Field(default_factory=list)
    unresolved: list[UnresolvedReference] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    #: Why the answer is partial (empty when it is complete or not found).
    completeness_reasons: list[PartialReason] = Field(default_factory=list)
    trace_path: str | None = None

    def to_json_dict(self) -> dict:
        """The object ``ask --json`` prints."""
        a = self.answer
        return {
            "question": self.question,
            "doc_id": self.doc_id,
            "answer": a.answer,
            "citations": [c.model_dump() for c in a.citations],
            "pending_references": [p.model_dump() for p in a.pending_references],
            "external_references": [e.model_dump() for e in a.external_references],
            "conditions": list(a.conditions),
            "answer_completeness": a.answer_completeness,
            "completeness_reasons": [r.to_json_dict() for r in self.completeness_reasons],
            "loop_count": self.loop_count,
            "passes": [p.to_json_dict() for p in self.passes],
            "evidence": [e.to_json_dict() for e in self.evidence],
            "resolutions": [r.to_json_dict() for r in self.resolutions],
            "unresolved": [u.model_dump() for u in self.unresolved],
            "warnings": self.warnings,
            "trace_path": self.trace_path,
        }
