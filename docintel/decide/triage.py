"""Triage of one pass's answer (split from ``docintel/decide``, same behaviour): a pending
reference whose target is already in the evidence, names itself, or is outside the document
is settled here, before ``decide_next_pass`` routes on what is left. Part of the composer: it
reads retrieval's verdicts on the tables and edits generation's answer."""

from __future__ import annotations

from docintel.generation.finish import NOT_IN_DOCUMENT
from docintel.retrieval import pointerfacts as facts
from docintel.retrieval.covered import evidence_keys, target_covered
from docintel.schema.answer import ExternalReference, PendingReference, ReferenceAwareAnswer
from docintel.schema.evidence import Passage


def triage(loop, answer: ReferenceAwareAnswer, passages: list[Passage]) -> ReferenceAwareAnswer:
    """Drop pending references whose target is already in the evidence; externals are named.

    A reference to Table 1 printed on the page already given is not a reason
    for a second pass. This is a deterministic check against the tables. An external that is
    the document itself (its own id) leaves the list and, through the backend's ``unname``,
    the text's note on outside documents, so the two agree.
    """
    have = evidence_keys(passages)
    keep: list[PendingReference] = []
    externals = list(answer.external_references)
    named = {e.name.lower() for e in externals}
    for ref in answer.pending_references:
        res = loop.resolve(ref, allow_llm=False)
        if facts.may_be_elsewhere(res):
            res = loop.resolve(ref, allow_llm=True)  # what pass 2 would try, asked now
            if facts.may_be_elsewhere(res) and not facts.numbers(loop.tables, res.target):
                loop.trace.event("triage", reference=ref.raw_text, verdict="not_in_document")
                loop.report(ref, res.ref_type, NOT_IN_DOCUMENT)
                continue
        if res.status == "unresolved" and facts.opens_heading(loop.tables, ref):
            # "Subpart D—Notification ..." (a heading the toc lacks) is its own label; a heading
            # that names a provision found elsewhere ("Clause 5.6" over a drafting note) points
            loop.trace.event("triage", reference=ref.raw_text, verdict="names_itself")
            continue
        if res.status == "external":
            name = res.target or ref.raw_text
            if name.lower() not in named:
                externals.append(
                    ExternalReference(
                        name=name[:200], origin_page=ref.origin_page, origin_line=ref.origin_line
                    )
                )
                named.add(name.lower())
            loop.trace.event("triage", reference=ref.raw_text, verdict="external")
            continue
        if res.status == "resolved" and facts.labels_itself(ref, res):
            loop.trace.event("triage", reference=ref.raw_text, verdict="names_itself", target=res.target)
            continue  # a heading naming its own section or object is not a pointer elsewhere
        if res.status == "resolved" and target_covered(res.passages, have):
            loop.trace.event(
                "triage", reference=ref.raw_text, verdict="already_in_evidence", target=res.target
            )
            continue
        keep.append(ref)
    text = answer.answer
    if externals:  # the identifier grammar is imported only when there is a name to test
        from docintel.identifiers.own import is_own

        own = {e.name for e in externals if is_own(e.name, loop.own_ids)}  # the document itself
        externals = [e for e in externals if e.name not in own]
        unname = getattr(loop.backend, "unname", None)
        if own and unname is not None:  # a backend whose text names the outside documents
            text = unname(text, [e.name for e in answer.external_references], own)
    completeness = answer.answer_completeness
    if completeness == "references_unresolved" and not keep:
        completeness = "complete"
    restate = getattr(loop.backend, "restate", None)
    still = {(r.raw_text, r.origin_page, r.origin_line) for r in keep}  # one pointer, many targets
    settled = [
        r for r in answer.pending_references if (r.raw_text, r.origin_page, r.origin_line) not in still
    ]
    if settled and restate is not None:  # a backend whose text lists the pointers it left
        text = restate(text, settled)
    return answer.model_copy(
        update={
            "answer": text,
            "pending_references": keep,
            "external_references": externals,
            "answer_completeness": completeness,
        }
    )


__all__ = ["triage"]
