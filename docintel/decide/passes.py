"""A pass's record and the following of its references (split from ``docintel/decide``, same
behaviour): what one pass gave and decided goes to the trace, and each pending reference is
resolved into the passages the next pass adds."""

from __future__ import annotations

from docintel.retrieval import count_tokens
from docintel.retrieval.covered import evidence_keys
from docintel.schema.answer import ReferenceAwareAnswer, UnresolvedReference
from docintel.schema.evidence import Passage
from docintel.schema.loop import CallInfo, Decision, EvidenceRecord, PassRecord


def record_pass(
    loop, passages: list[Passage], answer, problems: list[str], info: CallInfo, decision: Decision
) -> None:
    """Record pass ``len(loop.passes) + 1``: its evidence, prompt size, instructions, validation
    problems and decision, in the loop's passes and as the trace's "pass" and "decision" events."""
    pass_no = len(loop.passes) + 1
    record = PassRecord(
        pass_no=pass_no,
        evidence=[EvidenceRecord.of(p) for p in passages],
        prompt_tokens=info.prompt_tokens or count_tokens("\n".join(p.text for p in passages)),
        instructions=list(loop.instructions),
        validation_problems=problems,
        decision=decision,
    )
    loop.passes.append(record)
    loop.trace.event("pass", **record.to_json_dict(), answer=answer.model_dump(), backend_info=info.as_dict())
    loop.trace.event(
        "decision",
        pass_no=pass_no,
        decision=decision,
        answer_completeness=answer.answer_completeness,
        pending=[r.raw_text for r in answer.pending_references],
    )


def follow(loop, answer: ReferenceAwareAnswer, passages: list[Passage], pass_no: int) -> list[Passage]:
    """Resolve every pending reference of ``answer`` (the LLM may help); the new passages."""
    added: list[Passage] = []
    have = evidence_keys(passages)
    for ref in answer.pending_references:
        res = loop.resolve(ref, allow_llm=True)
        res.pass_no = pass_no
        loop.trace.event("resolution", **res.to_dict())
        if res.status == "condition":
            loop.instructions.append("state_conditions")
        elif res.status == "resolved":
            new = [p for p in res.passages if not evidence_keys([p]) <= have]
            added.extend(new)
            have |= evidence_keys(new)
        else:
            loop.unresolved.append(
                UnresolvedReference(
                    raw_text=ref.raw_text,
                    ref_type=res.ref_type,
                    origin_page=ref.origin_page,
                    origin_line=ref.origin_line,
                    reason=res.reason,
                )
            )
    return added


__all__ = ["follow", "record_pass"]
