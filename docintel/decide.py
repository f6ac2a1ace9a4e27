"""The orchestrator: the one module that composes the bricks.

question -> retrieval (top-1) -> generation -> validation -> triage -> ``decide_next_pass`` ->
resolve pending references -> re-retrieve target regions -> generation again, under a loop
budget. The loop is triggered by typed fields of the answer, never by a confidence score.
It reads the tables and never writes them: what it learned (the references it followed) is
in the result, and the API persists it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from docintel.errors import LLMError, LLMOutputError
from docintel.generation.completeness import earn
from docintel.generation.offline.backend import asks_for_sources
from docintel.generation.protocol import LLMBackend
from docintel.generation.refdetect import AUTHOR_YEAR
from docintel.generation.validator import check_generation
from docintel.questions.parse import answer_shape
from docintel.refscan import memo, references_in
from docintel.retrieval import best_passage, count_tokens, retrieve, suggested_top_k
from docintel.retrieval.named import named_regions
from docintel.retrieval.overview import Overview, member_passages, overview_passages
from docintel.retrieval.resolve import model_brief, model_may_help, resolve_in_tables, section_resolution
from docintel.retrieval.targets import (
    definition_passages,
    extend_to_sentence_end,
    listed_object_passages,
    to_passages,
    unread_pages_warning,
)
from docintel.retrieval.windows import citation_entry, cited_line
from docintel.schema.answer import (
    ExternalReference,
    PendingReference,
    ReferenceAwareAnswer,
    UnresolvedReference,
)
from docintel.schema.document import DocTables
from docintel.schema.evidence import ParsedQuestion, Passage
from docintel.schema.kinds import HEADING_ROLES, OFF_PAGE_REF_TYPES
from docintel.schema.loop import (
    CallInfo,
    Decision,
    EvidenceRecord,
    Instruction,
    PartialReason,
    PassRecord,
    Resolution,
)
from docintel.schema.result import AskResult
from docintel.schema.trace import Trace

#: A pending reference whose resolved target lines are at least this share already in the
#: evidence is not worth a pass: the target (Table 1 on the page given) is there. 0.6 keeps a
#: target whose heading and most lines were retrieved and still follows one that only grazes
#: the window (a section whose first line closes the page).
ALREADY_IN_EVIDENCE = 0.6
#: Why a loop that found nothing to add gives up partial, as the user reads it.
NOTHING_ADDED = "no reference target could be retrieved; answer kept from the previous pass"
BUDGET_EXHAUSTED = "loop budget exhausted"
#: Why a pointer inside a followed target was not followed: reported, but the answer the first
#: hop's pointers asked for is there (the target's own pointers are the next hop's business).
NESTED_NOT_FOLLOWED = "loop budget exhausted (a pointer inside a followed target)"


def decide_next_pass(answer: ReferenceAwareAnswer, loop_count: int, max_loops: int = 1) -> Decision:
    """Route on the answer's typed fields: ship it, loop for its references, or give up partial."""
    if answer.answer_completeness == "complete":
        return "return_to_user"
    if answer.answer_completeness == "references_unresolved":
        if loop_count < max_loops and answer.pending_references:
            return "resolve_references"
        return "give_up_partial"
    return "return_to_user"


def _evidence_keys(passages: list[Passage]) -> set[tuple[int, int]]:
    return {(ln.page, ln.line) for p in passages for ln in p.lines}


def _ref_key(ref: PendingReference) -> tuple:
    return (ref.raw_text.strip().lower(), ref.origin_page, ref.origin_line)


def resolve_pending(
    ref: PendingReference,
    tables: DocTables,
    *,
    question: ParsedQuestion,
    backend: LLMBackend | None = None,
    max_lines: int = 40,
) -> Resolution:
    """Resolve one pending reference: the tables first (deterministic), then, for a relative or
    unnumbered section reference, the backend's pick among the toc's sections."""
    res = resolve_in_tables(ref, tables, question=question, max_lines=max_lines)
    if backend is None or not model_may_help(res):
        return res
    brief = model_brief(tables, ref)
    if brief is None:
        return res
    try:
        toc_id = backend.resolve_reference(ref.raw_text, *brief)
    except LLMError as exc:  # a failed resolver call leaves the reference unresolved, not the ask failed
        return Resolution(ref, "unresolved", "llm", "section", reason=f"LLM resolver failed: {exc}"[:300])
    if not toc_id:
        return res
    method = "offline_rules" if backend.kind == "rules" else "llm"
    picked = section_resolution(
        tables, ref, str(toc_id), question=question, max_lines=max_lines, method=method,
        reason=f"{backend.name} chose section {toc_id}",
    )  # fmt: skip
    return picked or res


@dataclass
class _Loop:
    """State of one ask: the evidence so far, resolutions (cached per reference), the trace."""

    tables: DocTables
    q: ParsedQuestion
    backend: LLMBackend
    trace: Trace
    max_lines: int
    resolutions: dict[tuple, Resolution] = field(default_factory=dict)
    instructions: list[Instruction] = field(default_factory=list)
    passes: list[PassRecord] = field(default_factory=list)
    unresolved: list[UnresolvedReference] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    reasons: list[PartialReason] = field(default_factory=list)
    first_keys: set[tuple[int, int]] = field(default_factory=set)

    def nested(self, ref: PendingReference) -> bool:
        """A pointer written in a target the loop followed, outside the first hop's evidence."""
        at = (ref.origin_page, ref.origin_line)
        if at in self.first_keys:
            return False
        return any(
            at in _evidence_keys(r.passages)
            for r in self.resolutions.values()
            if r.status == "resolved" and r.pass_no
        )

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
        if res.status == "unresolved" and ref.ref_type == "bib":
            res = _author_year(self.tables, ref) or res
        self.resolutions[key] = res
        return res

    @property
    def own_ids(self) -> set[str]:
        """The publication ids this document is (its DOI, its running headers), read once."""
        if getattr(self, "_own_ids", None) is None:
            from docintel.identifiers.own import own_ids

            ln = self.tables.line_df
            cols = (ln["page"], ln["role"], ln["text"]) if len(ln) else ((), (), ())
            self._own_ids = own_ids(
                (int(p), str(r or ""), str(t or "")) for p, r, t in zip(*cols, strict=True)
            )
        return self._own_ids

    def opens_heading(self, ref: PendingReference) -> bool:
        """The reference is the label a heading line opens with (the section names itself)."""
        ln = self.tables.line_df
        if ln is None or ln.empty:
            return False
        row = ln[(ln["page"] == ref.origin_page) & (ln["line"] == ref.origin_line)]
        if row.empty or row["role"].iloc[0] not in HEADING_ROLES:
            return False
        text = " ".join(str(row["text"].iloc[0]).split()).lower()
        return text.startswith(" ".join(ref.raw_text.split()).lower())

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
            if res.status == "unresolved" and self.opens_heading(ref):
                # "Subpart D—Notification ..." (a heading the toc lacks) is its own label; a heading
                # that names a provision found elsewhere ("Clause 5.6" over a drafting note) points
                self.trace.event("triage", reference=ref.raw_text, verdict="names_itself")
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
                self.trace.event("triage", reference=ref.raw_text, verdict="external")
                continue
            target = _evidence_keys(res.passages)
            if res.status == "resolved" and (ref.origin_page, ref.origin_line) in target:
                self.trace.event("triage", reference=ref.raw_text, verdict="names_itself", target=res.target)
                continue  # a heading naming its own section or object is not a pointer elsewhere
            if (
                res.status == "resolved"
                and target
                and len(target & have) >= ALREADY_IN_EVIDENCE * len(target)
            ):
                self.trace.event(
                    "triage", reference=ref.raw_text, verdict="already_in_evidence", target=res.target
                )
                continue
            keep.append(ref)
        if externals:  # the identifier grammar is imported only when there is a name to test
            from docintel.identifiers.own import is_own

            externals = [e for e in externals if not is_own(e.name, self.own_ids)]  # not the document itself
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

    def generate(
        self, passages: list[Passage], pass_no: int
    ) -> tuple[ReferenceAwareAnswer, list[str], CallInfo]:
        """One backend call, then the one validation of its answer."""
        with self.trace.stage("generation"):
            try:
                gen = self.backend.generate(
                    self.q, passages, pass_no=pass_no, instructions=list(self.instructions)
                )
            except LLMOutputError as exc:
                self.trace.event(
                    "llm_output_error",
                    pass_no=pass_no,
                    error=str(exc),
                    attempts=exc.attempts,
                    raw_outputs=exc.raw_outputs,
                )
                raise
        with self.trace.stage("validation"):
            checked = check_generation(gen, passages, self.q)
        info = checked.info or gen.info
        answer = checked.answer
        for c in answer.citations:
            c.doc_id = self.tables.doc_id
        return answer, checked.problems, info

    def record_pass(
        self, passages: list[Passage], answer, problems: list[str], info: CallInfo, decision: Decision
    ) -> None:
        pass_no = len(self.passes) + 1
        record = PassRecord(
            pass_no=pass_no,
            evidence=[EvidenceRecord.of(p) for p in passages],
            prompt_tokens=info.prompt_tokens or count_tokens("\n".join(p.text for p in passages)),
            instructions=list(self.instructions),
            validation_problems=problems,
            decision=decision,
        )
        self.passes.append(record)
        self.trace.event(
            "pass", **record.to_json_dict(), answer=answer.model_dump(), backend_info=info.as_dict()
        )
        self.trace.event(
            "decision",
            pass_no=pass_no,
            decision=decision,
            answer_completeness=answer.answer_completeness,
            pending=[r.raw_text for r in answer.pending_references],
        )

    def follow(self, answer: ReferenceAwareAnswer, passages: list[Passage], pass_no: int) -> list[Passage]:
        """Resolve every pending reference of ``answer`` (the LLM may help); the new passages."""
        added: list[Passage] = []
        have = _evidence_keys(passages)
        for ref in answer.pending_references:
            res = self.resolve(ref, allow_llm=True)
            res.pass_no = pass_no
            self.trace.event("resolution", **res.to_dict())
            if res.status == "condition":
                self.instructions.append("state_conditions")
            elif res.status == "resolved":
                new = [p for p in res.passages if not _evidence_keys([p]) <= have]
                added.extend(new)
                have |= _evidence_keys(new)
            else:
                self.unresolved.append(
                    UnresolvedReference(
                        raw_text=ref.raw_text,
                        ref_type=res.ref_type,
                        origin_page=ref.origin_page,
                        origin_line=ref.origin_line,
                        reason=res.reason,
                    )
                )
        return added


def run_loop(
    tables: DocTables,
    q: ParsedQuestion,
    *,
    backend: LLMBackend,
    trace: Trace,
    max_loops: int = 1,
    top_k: int | None = None,
    max_lines: int = 40,
    first_hop: list[Passage] | None = None,
) -> AskResult:
    """Answer ``q`` from ``tables``: pass 1 on the top-k pages (or on ``first_hop``, passages a
    caller already retrieved, e.g. a corpus search), then resolve-and-regenerate while
    ``decide_next_pass`` says so and the loop budget allows. Each evidence line is
    scanned for references once per ask (:func:`docintel.refscan.memo`)."""
    with memo():
        return _run(_Loop(tables, q, backend, trace, max_lines), max_loops, top_k, first_hop)


def _run(loop: _Loop, max_loops: int, top_k: int | None, first_hop: list[Passage] | None = None) -> AskResult:
    overview = _overview(loop) if loop.q.shape == "overview" else None  # may reset loop.q's shape
    tables, q, trace = loop.tables, loop.q, loop.trace
    if overview is not None:  # answered from the structure: nothing to follow
        passages, max_loops = overview.passages, 0
    else:
        # a caller's passages, else the regions the question names, else keyword retrieval
        first = first_hop or _named_first_hop(loop) or first_passages(tables, q, trace, top_k)
        passages = _same_page_targets(loop, first)
    loop.first_keys = _evidence_keys(passages)
    loop_count = 0
    while True:
        answer, problems, info = loop.generate(passages, loop_count + 1)
        answer = loop.triage(answer, passages)
        decision = decide_next_pass(answer, loop_count, max_loops)
        loop.record_pass(passages, answer, problems, info, decision)
        if decision != "resolve_references":
            break
        added = loop.follow(answer, passages, loop_count + 1)
        loop_count += 1
        if not added:
            loop.warnings.append(NOTHING_ADDED)
            loop.reasons.append(PartialReason(code="nothing_added", detail=NOTHING_ADDED))
            answer = answer.model_copy(update={"answer_completeness": "partial"})
            loop.passes[-1].decision = "give_up_partial"
            break
        passages = passages + added
    answer = _finish(loop, answer)
    if overview is not None and overview.missing:
        loop.warnings.extend(overview.missing)
        loop.reasons += [PartialReason(code="overview_part_missing", detail=m) for m in overview.missing]
    answer = _earn_completeness(loop, answer)
    loop.warnings.extend(unread_pages_warning(tables))
    return AskResult(
        question=q.text,
        doc_id=tables.doc_id,
        answer=answer,
        loop_count=loop_count,
        passes=loop.passes,
        evidence=[EvidenceRecord.of(p) for p in passages],
        # the loop's own resolutions; triage and same-page look-ups are in the trace
        resolutions=[r.to_record() for r in loop.resolutions.values() if r.pass_no is not None],
        unresolved=loop.unresolved,
        warnings=loop.warnings,
        completeness_reasons=loop.reasons,
    )


def first_passages(tables: DocTables, q: ParsedQuestion, trace: Trace, top_k: int | None) -> list[Passage]:
    """Pass-1 evidence: the registry's captions for a listing question about an object type,
    else the best window of each of the top-k pages (top-1 by default), to a sentence end."""
    with trace.stage("retrieval"):
        if top_k is None:  # top-1 by default; listing questions get one page per listed object page
            top_k = suggested_top_k(q, tables)
        candidates = retrieve(q, tables, top_k=top_k)
    trace.record("top_k", top_k)
    trace.record("candidates", [c.model_dump() for c in candidates[:10]])
    listed = _listed_objects(tables, q, trace)
    if listed:
        return listed
    members = member_passages(tables, q)
    if members:  # "the four Tiers": the headings "Tier 1: ..." to "Tier 4: ..." are the list
        trace.event("list_path", series=[p.note for p in members])
        return members
    chosen = [c for c in candidates if c.chosen] or candidates[:top_k]
    sources = asks_for_sources(q.text)
    passages = []
    for c in chosen:  # a question asking which source says it keeps the page's citing line
        cited = cited_line(tables, q, c.page) if sources else None
        window = best_passage(tables, q, c.page, include_lines=[cited] if cited else None)
        passages.append(extend_to_sentence_end(tables, window))
    passages = [p for p in passages if p.lines]
    return passages + definition_passages(tables, q, passages)


def _finish(loop: _Loop, answer: ReferenceAwareAnswer) -> ReferenceAwareAnswer:
    """The answer as the user gets it: external references named in its text, and every
    reference still pending reported unresolved (the answer is then partial)."""
    names = [e.name for e in answer.external_references if e.name.lower() not in answer.answer.lower()]
    if names:  # externals are always named in the answer text, whatever the backend wrote
        text = answer.answer.rstrip() + " External reference(s), not fetched: " + "; ".join(names) + "."
        answer = answer.model_copy(update={"answer": text})
    if answer.answer_completeness == "references_unresolved" or loop.unresolved:
        keep: list[PendingReference] = []
        for ref in answer.pending_references:
            nested = loop.nested(ref)
            if not nested:
                keep.append(ref)
            if not any(u.raw_text == ref.raw_text for u in loop.unresolved):
                loop.unresolved.append(
                    UnresolvedReference(
                        raw_text=ref.raw_text,
                        ref_type=ref.ref_type,
                        origin_page=ref.origin_page,
                        origin_line=ref.origin_line,
                        reason=NESTED_NOT_FOLLOWED if nested else BUDGET_EXHAUSTED,
                    )
                )
        # pointers inside the followed targets are reported (unresolved, a warning) but do not
        # make the answer partial: the pointers of the first hop were followed
        later = [u for u in loop.unresolved if u.reason == NESTED_NOT_FOLLOWED]
        if later:
            loop.warnings.append(
                "not followed (loop budget), found in the followed targets: "
                + "; ".join(f"{u.raw_text} (page {u.origin_page})" for u in later)
            )
        first_order = keep or any(u.reason != NESTED_NOT_FOLLOWED for u in loop.unresolved)
        earned = answer.answer_completeness in ("references_unresolved", "complete") and not first_order
        answer = answer.model_copy(
            update={"pending_references": keep, "answer_completeness": "complete" if earned else "partial"}
        )
        if earned and loop.passes and loop.passes[-1].decision == "give_up_partial":
            loop.passes[-1].decision = "return_to_user"
    return answer


def _earn_completeness(loop: _Loop, answer: ReferenceAwareAnswer) -> ReferenceAwareAnswer:
    """ "complete" only when earned (:func:`generation.completeness.earn`)."""
    followed = [r for r in loop.resolutions.values() if r.pass_no is not None]
    unresolved = [u for u in loop.unresolved if u.reason != NESTED_NOT_FOLLOWED]
    answer, loop.reasons, warnings = earn(answer, followed, unresolved, loop.reasons)
    loop.warnings.extend(warnings)
    return answer


def _named_first_hop(loop: _Loop) -> list[Passage]:
    """The regions the question names ("What does Section 5(A) say?"), whole, when they
    resolve (:mod:`docintel.retrieval.named`); [] sends the question to keyword retrieval."""
    with loop.trace.stage("retrieval"):
        found = named_regions(loop.tables, loop.q, max_lines=loop.max_lines)
    passages = [p for res in found if res.status == "resolved" for p in res.passages]
    for res in found:  # earned like any followed target (pass 0: named in the question)
        if res.status == "resolved" and res.passages:
            res.pass_no = 0
            loop.resolutions[_ref_key(res.ref)] = res
    if found:
        loop.trace.event(
            "named_in_question",
            used=bool(passages),
            regions=[{"reference": r.ref.raw_text, "status": r.status, "target": r.target,
                      "pages": r.target_pages, "cut": r.cut, "reason": r.reason} for r in found],
        )  # fmt: skip
    loop.warnings += [
        f"cut by the budget: {'; '.join(r.cut)}" for r in found if r.status == "resolved" and r.cut
    ]
    for res in found:  # named but not found: the answer cannot be complete about it
        if res.status == "unresolved":
            detail = f"the question names {res.ref.raw_text}, which this document's tables do not hold"
            loop.warnings.append(f"{detail}: answered from the best-matching passage")
            loop.reasons.append(
                PartialReason(code="reference_unresolved", reference=res.ref.raw_text, detail=detail)
            )
    return passages


def _overview(loop: _Loop) -> Overview | None:
    """The structure's answer to an overview question; None when the document has no usable
    structure or the named scope is not in the tables: the question is then asked as usual."""
    with loop.trace.stage("retrieval"):
        ov = overview_passages(loop.tables, loop.q)
    used = bool(ov.passages and ov.scope_found)
    loop.trace.event("overview_path", used=used, parts=[p.note for p in ov.passages], missing=ov.missing)
    if not used:
        loop.q = loop.q.model_copy(update={"shape": answer_shape(loop.q.text)})
    return ov if used else None


def _listed_objects(tables: DocTables, q: ParsedQuestion, trace: Trace) -> list[Passage]:
    """A listing question about a registered object type is answered from the registry."""
    otype, keys, passages = listed_object_passages(tables, q)
    if passages:
        trace.event("list_path", object_type=otype, objects=keys)
    return passages


def _same_page_targets(loop: _Loop, passages: list[Passage]) -> list[Passage]:
    """Pointers in the pass-1 window whose target sits on a page already retrieved ("as shown
    in Table 1" with Table 1 on the same page) are part of that page: add their lines now,
    so a second pass is spent only on targets elsewhere."""
    pages = {p.page for p in passages}
    lines = [ln for p in passages for ln in p.lines]
    if not lines:
        return passages
    have = _evidence_keys(passages)
    added: list[Passage] = []
    for r in references_in(lines):
        if r.ref_type in OFF_PAGE_REF_TYPES:
            continue
        ref = PendingReference(
            raw_text=r.raw_text[:200], ref_type="unknown", origin_page=r.page, origin_line=r.line
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


def _author_year(tables: DocTables, ref: PendingReference) -> Resolution | None:
    """An author-year citation ("Hendrycks and Gimpel, 2016") resolved to its entry in the
    document's reference list (author-year lists are not registered objects)."""
    m = AUTHOR_YEAR.match(ref.raw_text.strip("()[] "))
    if not m:
        return None
    rows = citation_entry(tables, m["name"], m["year"])
    if rows.empty:
        return None
    note = f"pulled in because of '{ref.raw_text}' on page {ref.origin_page}, line {ref.origin_line}"
    passages = to_passages(rows, tables.doc_id, retrieved_via="reference", ref=ref, note=note)
    return Resolution(
        ref, "resolved", "reference_list", "bib", target=f"{m['name']} {m['year']}",
        target_pages=sorted({p.page for p in passages}), passages=passages,
        reason=f"reference list: the entry of {m['name']} ({m['year']})",
    )  # fmt: skip


def evidence_token_count(passages: list[Passage]) -> int:
    return count_tokens("\n".join(p.text for p in passages))


__all__ = ["ALREADY_IN_EVIDENCE", "decide_next_pass", "first_passages", "run_loop"]
