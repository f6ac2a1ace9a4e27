"""The orchestrator: the one module that composes the bricks.

question -> retrieval (top-1) -> generation -> validation -> triage -> ``decide_next_pass`` ->
resolve pending references -> re-retrieve target regions -> generation again, under a loop
budget. The loop is triggered by typed fields of the answer, never by a confidence score.
It reads the tables and never writes them: what it learned (the references it followed) is
in the result, and the API persists it.

A package: :mod:`.triage` (settling a pass's pending references) and :mod:`.passes` (a pass's
record, following its references) are parts of this one composer, imported by it alone
(``tests/test_architecture``); ``docintel.decide`` keeps every public name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from docintel.errors import LLMOutputError
from docintel.generation.finish import (
    BUDGET_EXHAUSTED,
    NESTED_NOT_FOLLOWED,
    earn_completeness,
    finish,
)
from docintel.generation.offline.backend import asks_for_sources
from docintel.generation.protocol import LLMBackend
from docintel.generation.refdetect import AUTHOR_YEAR
from docintel.generation.validator import check_generation
from docintel.questions.parse import answer_shape
from docintel.refscan import memo
from docintel.retrieval import firstpass
from docintel.retrieval import pointerfacts as facts
from docintel.retrieval.ambiguity import first_page_warning
from docintel.retrieval.covered import ALREADY_IN_EVIDENCE, evidence_keys
from docintel.retrieval.firstpass import same_page_targets
from docintel.retrieval.named import named_first_hop
from docintel.retrieval.overview import Overview, overview_passages
from docintel.retrieval.resolve_build import OffPages, near
from docintel.retrieval.resolve_pages import off_pages
from docintel.retrieval.targets import unread_pages_warning
from docintel.schema.answer import (
    PendingReference,
    ReferenceAwareAnswer,
    UnresolvedReference,
)
from docintel.schema.document import DocTables
from docintel.schema.evidence import ParsedQuestion, Passage
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

from . import passes, triage

#: Why a loop that found nothing to add gives up partial, as the user reads it.
NOTHING_ADDED = "no reference target could be retrieved; answer kept from the previous pass"


def decide_next_pass(answer: ReferenceAwareAnswer, loop_count: int, max_loops: int = 1) -> Decision:
    """Route on the answer's typed fields: ship it, loop for its references, or give up partial."""
    if answer.answer_completeness == "complete":
        return "return_to_user"
    if answer.answer_completeness == "references_unresolved":
        if loop_count < max_loops and answer.pending_references:
            return "resolve_references"
        return "give_up_partial"
    return "return_to_user"


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
    """Resolve one pending reference (:func:`docintel.retrieval.pointerfacts.resolve_with`)."""
    return facts.resolve_with(ref, tables, question=question, backend=backend, max_lines=max_lines)


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
    deferred: dict[tuple, PendingReference] = field(default_factory=dict)  # see resolve_near
    asked: set[tuple] = field(default_factory=set)  # keys resolved with the model allowed

    def nested(self, ref: PendingReference) -> bool:
        """A pointer written in a target the loop followed, outside the first hop's evidence."""
        at = (ref.origin_page, ref.origin_line)
        if at in self.first_keys:
            return False
        return any(
            at in evidence_keys(r.passages)
            for r in self.resolutions.values()
            if r.status == "resolved" and r.pass_no
        )

    def resolve_near(self, ref: PendingReference, pages: set[int]) -> Resolution:
        """:meth:`resolve` without a model for the first hop's same-page check, except that a
        pointer whose target is surely off ``pages`` (a control's region, :func:`off_pages`; a
        section target's lines, :func:`near`: no passage built) is only noted, and resolved as it
        would have been here if the loop meets it again."""
        key = _ref_key(ref)
        if key in self.deferred:
            return self.resolutions[key]
        if key in self.resolutions:
            return self.resolve(ref, allow_llm=False)
        try:
            if off_pages(self.tables, ref, pages):  # a control's region, from the memos
                raise OffPages
            with near(pages):  # a section target off the pages stops before its passages
                return self.resolve(ref, allow_llm=False)
        except OffPages:
            self.deferred[key] = ref
            # a placeholder holds the reference's place in the order of resolutions (unresolved,
            # of no pass: nothing reads it before it is resolved)
            self.resolutions[key] = Resolution(ref, "unresolved", "none", "unknown", reason="off the pages")
            return self.resolutions[key]

    def resolve(self, ref: PendingReference, *, allow_llm: bool) -> Resolution:
        key = _ref_key(ref)
        if key in self.deferred:  # the first hop's, as it would have been resolved then
            self._resolve_now(self.deferred.pop(key), key, allow_llm=False)
        cached = self.resolutions.get(key)
        # the same reference, tables, question and backend give the same answer: a reference the
        # model already failed to place is not asked again (it was, per pass, ~23 ms on 600 pages)
        if cached is not None and (cached.status != "unresolved" or not allow_llm or key in self.asked):
            return cached
        return self._resolve_now(ref, key, allow_llm=allow_llm)

    def _resolve_now(self, ref: PendingReference, key: tuple, *, allow_llm: bool) -> Resolution:
        with self.trace.stage("resolve"):
            res = resolve_pending(
                ref,
                self.tables,
                question=self.q,
                backend=self.backend if allow_llm else None,
                max_lines=self.max_lines,
            )
        if res.status == "unresolved" and ref.ref_type == "bib":
            res = facts.author_year(self.tables, ref, AUTHOR_YEAR) or res
        self.resolutions[key] = res
        if allow_llm:
            self.asked.add(key)
        return res

    @property
    def own_ids(self) -> set[str]:
        """The publication ids this document is (its DOI, its running headers), read once."""
        if getattr(self, "_own_ids", None) is None:
            self._own_ids = facts.own_ids(self.tables)
        return self._own_ids

    def report(self, ref: PendingReference, ref_type: str, reason: str) -> None:
        """Record ``ref`` as unresolved for ``reason`` (once per reference text)."""
        if not any(u.raw_text == ref.raw_text for u in self.unresolved):
            self.unresolved.append(
                UnresolvedReference(
                    raw_text=ref.raw_text,
                    ref_type=ref_type,
                    origin_page=ref.origin_page,
                    origin_line=ref.origin_line,
                    reason=reason,
                )  # fmt: skip
            )

    def triage(self, answer: ReferenceAwareAnswer, passages: list[Passage]) -> ReferenceAwareAnswer:
        """:func:`docintel.decide.triage.triage` of this ask's answer."""
        return triage.triage(self, answer, passages)

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
        """:func:`docintel.decide.passes.record_pass` on this ask's state."""
        passes.record_pass(self, passages, answer, problems, info, decision)

    def follow(self, answer: ReferenceAwareAnswer, passages: list[Passage], pass_no: int) -> list[Passage]:
        """:func:`docintel.decide.passes.follow` on this ask's state."""
        return passes.follow(self, answer, passages, pass_no)


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
        pages = {p.page for p in first}
        passages = same_page_targets(first, lambda ref: loop.resolve_near(ref, pages), trace)
    loop.first_keys = evidence_keys(passages)
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
    if overview is None and not first_hop:  # a first page the keyword ranking chose by a hair
        listed = any(e["kind"] == "list_path" for e in trace.data["events"])  # not the ranking's page
        ranked = None if listed else trace.data.get("candidates")
        loop.warnings.extend(first_page_warning(tables, q, ranked, {p.page for p in passages}, pages))
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
    """Pass-1 evidence (:func:`docintel.retrieval.firstpass.first_passages`); a question asking
    which source says it keeps each page's citing line."""
    return firstpass.first_passages(tables, q, trace, top_k, sources=asks_for_sources(q.text))


def _named_first_hop(loop: _Loop) -> list[Passage]:
    """The regions the question names, whole (:func:`docintel.retrieval.named.named_first_hop`);
    those that resolved are recorded as followed in pass 0."""
    passages, followed, warnings, reasons = named_first_hop(
        loop.tables, loop.q, loop.trace, max_lines=loop.max_lines
    )
    for res in followed:
        res.pass_no = 0
        loop.resolutions[_ref_key(res.ref)] = res
    loop.warnings += warnings
    loop.reasons += reasons
    return passages


def _finish(loop: _Loop, answer: ReferenceAwareAnswer) -> ReferenceAwareAnswer:
    """:func:`docintel.generation.finish.finish` on the loop's state."""
    return finish(answer, loop.unresolved, loop.warnings, loop.passes, loop.nested, tables=loop.tables)


def _earn_completeness(loop: _Loop, answer: ReferenceAwareAnswer) -> ReferenceAwareAnswer:
    """ "complete" only when earned (:func:`docintel.generation.finish.earn_completeness`)."""
    followed = [r for r in loop.resolutions.values() if r.pass_no is not None]
    answer, loop.reasons = earn_completeness(answer, followed, loop.unresolved, loop.reasons, loop.warnings)
    return answer


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


__all__ = [
    "ALREADY_IN_EVIDENCE",
    "BUDGET_EXHAUSTED",
    "NESTED_NOT_FOLLOWED",
    "NOTHING_ADDED",
    "decide_next_pass",
    "first_passages",
    "resolve_pending",
    "run_loop",
]
