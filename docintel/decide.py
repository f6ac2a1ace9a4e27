"""The orchestrator: the one module that composes the bricks.

question -> retrieval (top-1) -> generation -> ``decide_next_pass`` -> resolve
pending references -> re-retrieve target regions -> generation again, under a
loop budget. The loop is triggered by typed fields of the answer, never by a
confidence score.
"""

from __future__ import annotations

import logging
from typing import Literal

from docintel.errors import LLMOutputError
from docintel.regions import evidence_lines, extend_to_sentence_end
from docintel.resolve import Resolution, resolve_pending
from docintel.schema.answer import (
    AskResult,
    ExternalReference,
    PendingReference,
    ReferenceAwareAnswer,
    UnresolvedReference,
)
from docintel.schema.document import DocTables
from docintel.schema.evidence import ParsedQuestion, Passage
from docintel.schema.trace import Trace

log = logging.getLogger(__name__)

Decision = Literal["return_to_user", "resolve_references", "give_up_partial"]


def decide_next_pass(answer: ReferenceAwareAnswer, loop_count: int, max_loops: int = 1) -> Decision:
    """Route on the answer's typed fields: ship it, loop for its references, or give up partial."""
    if answer.answer_completeness == "complete":
        return "return_to_user"
    if answer.answer_completeness == "references_unresolved":
        if loop_count < max_loops and answer.pending_references:
            return "resolve_references"
        return "give_up_partial"
    return "return_to_user"


def _tokens(text: str) -> int:
    from docintel.retrieval import count_tokens

    return count_tokens(text)


def _evidence_keys(passages: list[Passage]) -> set[tuple[int, int]]:
    return {(ln.page, ln.line) for p in passages for ln in p.lines}


def _ref_key(ref: PendingReference) -> tuple:
    return (ref.raw_text.strip().lower(), ref.origin_page, ref.origin_line)


class _Loop:
    """State of one ask: evidence so far, resolutions (cached per reference), the trace."""

    def __init__(self, tables: DocTables, q: ParsedQuestion, backend, trace: Trace, max_lines: int):
        self.tables, self.q, self.backend, self.trace = tables, q, backend, trace
        self.max_lines = max_lines
        self.resolutions: dict[tuple, Resolution] = {}

    def resolve(self, ref: PendingReference, *, allow_llm: bool) -> Resolution:
        key = _ref_key(ref)
        cached = self.resolutions.get(key)
        if cached is not None and (cached.status != "unresolved" or not allow_llm):
            return cached
        with self.trace.stage("resolve"):
            res = resolve_pending(
                ref,
                self.tables,
                question=self.q,
                backend=self.backend if allow_llm else None,
                max_lines=self.max_lines,
            )
        self.resolutions[key] = res
        return res

    def triage(self, answer: ReferenceAwareAnswer, passages: list[Passage]) -> ReferenceAwareAnswer:
        """Drop pending references whose target is already in the evidence; externals are named.

        A reference to Table 1 printed on the page already given is not a reason
        for a second pass. This is a deterministic check against the tables.
        """
        have = _evidence_keys(passages)
        keep: list[PendingReference] = []
        externals = list(answer.external_references)
        named = {e.name.lower() for e in externals}
        for ref in answer.pending_references:
            res = self.resolve(ref, allow_llm=False)
            if res.status == "external":
                if (res.target or ref.raw_text).lower() not in named:
                    externals.append(
                        ExternalReference(
                            name=(res.target or ref.raw_text)[:200],
                            origin_page=ref.origin_page,
                            origin_line=ref.origin_line,
                        )
                    )
                self.trace.event("triage", reference=ref.raw_text, verdict="external")
                continue
            target = _evidence_keys(res.passages)
            if res.status == "resolved" and target and len(target & have) >= 0.6 * len(target):
                self.trace.event(
                    "triage", reference=ref.raw_text, verdict="already_in_evidence", target=res.target
                )
                continue
            keep.append(ref)
        completeness = answer.answer_completeness
        if completeness == "references_unresolved" and not keep:
            completeness = "complete"
        return answer.model_copy(
            update={
                "pending_references": keep,
                "external_references": externals,
                "answer_completeness": completeness,
            }
        )


def _generate(loop: _Loop, passages: list[Passage], pass_no: int, instructions: list[str]):
    from docintel.generation.validator import validate_answer

    with loop.trace.stage("generation"):
        try:
            answer = loop.backend.generate(loop.q, passages, pass_no=pass_no, instructions=instructions)
        except LLMOutputError as exc:
            loop.trace.event(
                "llm_output_error",
                pass_no=pass_no,
                error=str(exc),
                attempts=exc.attempts,
                raw_outputs=exc.raw_outputs,
            )
            raise
    info = dict(getattr(loop.backend, "last_call_info", None) or {})
    with loop.trace.stage("validation"):
        answer, problems = validate_answer(answer, passages)
    for c in answer.citations:
        c.doc_id = loop.tables.doc_id
    return answer, problems, info


def run_loop(
    tables: DocTables,
    q: ParsedQuestion,
    *,
    backend,
    trace: Trace,
    max_loops: int = 1,
    top_k: int | None = None,
    max_lines: int = 40,
) -> AskResult:
    """Answer ``q`` from ``tables``: pass 1 on the top-k pages, then resolve-and-regenerate
    while ``decide_next_pass`` says so and the loop budget allows."""
    from docintel.retrieval import best_passage, retrieve, suggested_top_k

    with trace.stage("retrieval"):
        if top_k is None:  # top-1 by default; listing questions get one page per listed object page
            top_k = suggested_top_k(q, tables)
        candidates = retrieve(q, tables, top_k=top_k)
    trace.record("top_k", top_k)
    trace.record("candidates", [c.model_dump() for c in candidates[:10]])
    chosen = [c for c in candidates if c.chosen] or candidates[:top_k]
    passages = _listed_objects(tables, q, trace)
    if not passages:
        passages = [extend_to_sentence_end(tables, best_passage(tables, q, c.page)) for c in chosen]
        passages = [p for p in passages if p.lines]
    loop = _Loop(tables, q, backend, trace, max_lines)
    passages = _same_page_targets(loop, passages)
    instructions: list[str] = []
    loop_count = 0
    passes: list[dict] = []
    unresolved: list[UnresolvedReference] = []
    warnings: list[str] = []
    while True:
        answer, problems, info = _generate(loop, passages, loop_count + 1, instructions)
        answer = loop.triage(answer, passages)
        decision = decide_next_pass(answer, loop_count, max_loops)
        evidence = [p.to_json_dict() for p in passages]
        record = {
            "pass": loop_count + 1,
            "evidence": evidence,
            "prompt_tokens": info.get("prompt_tokens") or _tokens("\n".join(p.text for p in passages)),
            "instructions": list(instructions),
            "answer": answer.model_dump(),
            "validation_problems": problems,
            "decision": decision,
            "backend_info": {k: v for k, v in info.items() if k != "raw_output"},
        }
        passes.append(record)
        trace.event("pass", **record)
        trace.event(
            "decision",
            pass_no=loop_count + 1,
            decision=decision,
            answer_completeness=answer.answer_completeness,
            pending=[r.raw_text for r in answer.pending_references],
        )
        if decision != "resolve_references":
            break
        added: list[Passage] = []
        have = _evidence_keys(passages)
        for ref in answer.pending_references:
            res = loop.resolve(ref, allow_llm=True)
            res.pass_no = loop_count + 1
            trace.event("resolution", **res.to_dict())
            if res.status == "condition":
                instructions.append("state_conditions")
            elif res.status == "resolved":
                new = [p for p in res.passages if not _evidence_keys([p]) <= have]
                added.extend(new)
                have |= _evidence_keys(new)
            else:
                unresolved.append(
                    UnresolvedReference(
                        raw_text=ref.raw_text,
                        ref_type=res.ref_type,
                        origin_page=ref.origin_page,
                        origin_line=ref.origin_line,
                        reason=res.reason,
                    )
                )
        _record_regex_rows(tables, answer.pending_references, loop.resolutions)
        loop_count += 1
        if not added:
            warnings.append("no reference target could be retrieved; answer kept from the previous pass")
            answer = answer.model_copy(update={"answer_completeness": "partial"})
            passes[-1]["decision"] = "give_up_partial"
            break
        passages = passages + added
        if any(r.ref_type == "definition" for r in answer.pending_references):
            instructions.append("use_definitions")
    if answer.external_references and "name_external" not in instructions:
        # Externals are always named in the answer text, whatever the backend wrote.
        names = [e.name for e in answer.external_references if e.name.lower() not in answer.answer.lower()]
        if names:
            answer = answer.model_copy(
                update={
                    "answer": answer.answer.rstrip() + " External reference(s), not"
                    " fetched: " + "; ".join(names) + "."
                }
            )
    if answer.answer_completeness == "references_unresolved" or unresolved:
        for ref in answer.pending_references:
            if not any(u.raw_text == ref.raw_text for u in unresolved):
                unresolved.append(
                    UnresolvedReference(
                        raw_text=ref.raw_text,
                        ref_type=ref.ref_type,
                        origin_page=ref.origin_page,
                        origin_line=ref.origin_line,
                        reason="loop budget exhausted",
                    )
                )
        answer = answer.model_copy(update={"answer_completeness": "partial"})
    return AskResult(
        question=q.text,
        doc_id=tables.doc_id,
        answer=answer,
        loop_count=loop_count,
        passes=[
            {
                k: v
                for k, v in p.items()
                if k
                in ("pass", "evidence", "prompt_tokens", "decision", "instructions", "validation_problems")
            }
            for p in passes
        ],
        evidence=[p.to_json_dict() for p in passages],
        # the loop's own resolutions; triage and same-page look-ups are in the trace
        resolutions=[r.to_dict() for r in loop.resolutions.values() if r.pass_no is not None],
        unresolved=unresolved,
        warnings=warnings,
    )


def _listed_objects(tables: DocTables, q: ParsedQuestion, trace: Trace) -> list[Passage]:
    """A listing question about a registered object type ("how many tables...") is answered
    from the registry: every such object's caption, not the best-matching page."""
    from docintel.regions import caption_passages
    from docintel.retrieval.rank import query_terms
    from docintel.retrieval.regions import listed_object_type

    if q.shape != "list":
        return []
    otype = listed_object_type(query_terms(q))
    reg = tables.object_registry
    objs = reg[reg["object_type"] == otype] if otype else reg.iloc[0:0]
    if objs.empty:
        return []
    trace.event("list_path", object_type=otype, objects=objs["object_key"].tolist())
    return caption_passages(tables, objs, note=f"every {otype} in object_registry ({len(objs)})")


def _same_page_targets(loop: _Loop, passages: list[Passage]) -> list[Passage]:
    """Pointers in the pass-1 window whose target sits on a page already retrieved ("as shown
    in Table 1" with Table 1 on the same page) are part of that page: add their lines now,
    so a second pass is spent only on targets elsewhere."""
    import pandas as pd

    from docintel.parsing.crossrefs import extract_references
    from docintel.schema.answer import PendingReference

    pages = {p.page for p in passages}
    lines = [{"page": ln.page, "line": ln.line, "text": ln.text} for p in passages for ln in p.lines]
    if not lines:
        return passages
    found = extract_references(pd.DataFrame(lines), loop.tables.doc_id)
    have = _evidence_keys(passages)
    added: list[Passage] = []
    for r in found.itertuples(index=False):
        if r.ref_type in ("external", "bib"):
            continue
        ref = PendingReference(
            raw_text=str(r.anchor_text)[:200],
            ref_type="unknown",
            origin_page=int(r.origin_page),
            origin_line=int(r.origin_line),
        )
        res = loop.resolve(ref, allow_llm=False)
        if res.status != "resolved" or not res.passages or {p.page for p in res.passages} - pages:
            continue
        if (ref.origin_page, ref.origin_line) in _evidence_keys(res.passages):
            continue  # a caption naming its own table is not a pointer elsewhere
        for p in res.passages:
            if not _evidence_keys([p]) <= have:
                added.append(
                    p.model_copy(
                        update={
                            "retrieved_via": "primary",
                            "referenced_from": None,
                            "reference_text": None,
                            "note": f"on the retrieved page, pointed to by '{ref.raw_text}' (line {ref.origin_line})",
                        }
                    )
                )
                have |= _evidence_keys([p])
        loop.trace.event(
            "same_page_target",
            reference=ref.raw_text,
            target=res.target,
            pages=sorted({p.page for p in res.passages}),
        )
    return passages + added


def _record_regex_rows(tables: DocTables, refs: list[PendingReference], resolutions: dict) -> None:
    """Append what the loop learned to cross_ref_df (source regex / llm), so the cache grows."""
    import pandas as pd

    from docintel.parsing import store

    rows = []
    for ref in refs:
        res = resolutions.get(_ref_key(ref))
        if res is None:
            continue
        rows.append(
            {
                "doc_id": tables.doc_id,
                "origin_page": ref.origin_page,
                "origin_line": ref.origin_line,
                "anchor_text": ref.raw_text,
                "ref_type": res.ref_type,
                "ref_target": res.target,
                "sub_selector": res.sub_selector,
                "target_page": res.target_pages[0] if res.target_pages else None,
                "source": "llm" if res.method == "llm" else "regex",
            }
        )
    if rows:
        try:
            store.append_cross_refs(tables, pd.DataFrame(rows))
        except OSError as exc:  # a read-only cache must not fail the answer
            log.warning("could not append to cross_ref_df cache: %s", exc)


def evidence_token_count(passages: list[Passage]) -> int:
    return _tokens("\n".join(p.text for p in passages))


__all__ = ["decide_next_pass", "evidence_lines", "run_loop"]
