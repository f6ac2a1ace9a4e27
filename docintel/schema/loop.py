"""Contracts of the loop: a backend's call record, decisions, instructions, resolutions, passes.

Everything ``decide`` exchanges with the bricks is typed here, so a new backend or a new
instruction is a change to one Literal, not a free string somewhere. Pure pydantic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from docintel.schema.answer import PendingReference, ReferenceAwareAnswer
from docintel.schema.evidence import Passage

#: What ``decide_next_pass`` may say after a pass.
Decision = Literal["return_to_user", "resolve_references", "give_up_partial"]
#: Extra rules the loop adds to a later pass; every backend knows every one of them.
Instruction = Literal["state_conditions", "name_external"]
INSTRUCTIONS: tuple[str, ...] = ("state_conditions", "name_external")

#: Outcome of following one pending reference.
ResolutionStatus = Literal["resolved", "external", "condition", "unresolved"]
#: How the target was found: a table look-up, a page label, a model's pick ('llm'), a
#: deterministic backend's rule-based pick ('offline_rules'), an author-year citation's entry
#: in the document's reference list ('reference_list'), or nothing.
ResolutionMethod = Literal[
    "toc_df",
    "object_registry",
    "page_label",
    "physical_page",
    "llm",
    "offline_rules",
    "reference_list",
    "external",
    "condition",
    "none",
]
#: Why a final answer is "partial" (``docintel.generation.completeness``): a claim without a
#: citation, a followed target that gave only its heading or none of whose lines is cited, a
#: reference left pending or unresolved, a pass that found nothing to add, a missing part of
#: an overview.
PartialCode = Literal[
    "uncited",
    "target_heading_only",
    "target_not_cited",
    "reference_pending",
    "reference_unresolved",
    "nothing_added",
    "overview_part_missing",
    "target_ends_open",
]
#: What a backend is: a language model, deterministic rules, or a test script.
BackendKind = Literal["model", "rules", "scripted"]


class CallInfo(BaseModel):
    """The record of one generation call, returned with its answer (never read off the backend)."""

    model_config = ConfigDict(extra="forbid")

    backend: str = Field(..., description="Name of the backend that answered.")
    pass_no: int | None = Field(None, description="The loop pass the call answered.")
    model: str | None = Field(None, description="Model name, for model backends.")
    attempts: int | None = Field(None, description="Requests sent (1 + re-asks after invalid output).")
    prompt_tokens: int | None = Field(None, description="Prompt size as the backend measured it.")
    raw_outputs: list[str] = Field(default_factory=list, description="The model's raw outputs, in order.")
    details: dict[str, Any] = Field(
        default_factory=dict,
        description="Backend-specific report (offline scoring windows, usage, fallback reason...).",
    )

    def as_dict(self) -> dict[str, Any]:
        """The flat form written to the trace's ``backend_info``."""
        out: dict[str, Any] = {"backend": self.backend, "pass_no": self.pass_no}
        for key in ("model", "attempts", "prompt_tokens"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.raw_outputs:
            out["raw_outputs"] = list(self.raw_outputs)
        return {**out, **self.details}


class Generation(BaseModel):
    """What ``generate`` returns: the answer (not yet validated: the loop validates, once)
    and the record of the call."""

    answer: ReferenceAwareAnswer
    info: CallInfo
    #: The backend's own reference flags are unreliable (small models): after validation the
    #: loop adds the references the deterministic detector finds in the cited lines.
    needs_reference_check: bool = False


@dataclass
class Resolution:
    """Where one pending reference leads, how that was found, and what pass 2 adds."""

    ref: PendingReference
    status: ResolutionStatus
    method: ResolutionMethod
    ref_type: str
    target: str | None = None
    sub_selector: str | None = None
    target_pages: list[int] = field(default_factory=list)
    reason: str = ""
    passages: list[Passage] = field(default_factory=list)
    pass_no: int | None = None  # the pass whose answer flagged the reference
    cut: list[str] = field(default_factory=list)  # what the budget left out of the target

    def to_record(self) -> ResolutionRecord:
        return ResolutionRecord(
            pass_no=self.pass_no,
            reference=self.ref.raw_text,
            origin=(self.ref.origin_page, self.ref.origin_line),
            ref_type=self.ref_type,
            status=self.status,
            method=self.method,
            target=self.target,
            sub_selector=self.sub_selector,
            target_pages=list(self.target_pages),
            reason=self.reason,
            passages=[(p.page, p.line_start, p.line_end) for p in self.passages],
            cut=list(self.cut),
        )

    def to_dict(self) -> dict:
        return self.to_record().to_json_dict()


class _Record(BaseModel):
    """A JSON record that still reads like the dict it used to be (``r["status"]``)."""

    model_config = ConfigDict(populate_by_name=True)

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)

    def __getitem__(self, key: str) -> Any:
        return self.to_json_dict()[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.to_json_dict().get(key, default)


class ResolutionRecord(_Record):
    """One resolution as the user sees it in ``ask --json``."""

    pass_no: int | None = Field(None, alias="pass", description="Pass whose answer flagged it.")
    reference: str = Field(..., description="The reference as written.")
    origin: tuple[int, int] = Field(..., description="(page, line) where it is written.")
    ref_type: str
    status: ResolutionStatus
    method: ResolutionMethod
    target: str | None = None
    sub_selector: str | None = None
    target_pages: list[int] = Field(default_factory=list)
    reason: str = ""
    passages: list[tuple[int, int, int]] = Field(
        default_factory=list, description="(page, line_start, line_end) of each pulled-in passage."
    )
    cut: list[str] = Field(
        default_factory=list, description="What the pass-2 budget left out of the target, named."
    )


class PartialReason(_Record):
    """One reason an answer is partial, as ``ask`` prints it and ``ask --json`` lists it."""

    code: PartialCode
    detail: str = Field("", description="What failed, for the user.")
    reference: str | None = Field(None, description="The reference concerned, as written.")


class EvidenceRecord(_Record):
    """One evidence passage as the user sees it."""

    page: int
    line_start: int
    line_end: int
    text: str
    retrieved_via: str
    referenced_from: list[int] | None = None
    reference_text: str | None = None
    note: str = ""

    @classmethod
    def of(cls, p: Passage) -> EvidenceRecord:
        return cls.model_validate(p.to_json_dict())


class PassRecord(_Record):
    """One pass of the loop as the user sees it: what went in and what was decided."""

    pass_no: int = Field(..., alias="pass")
    evidence: list[EvidenceRecord] = Field(default_factory=list)
    prompt_tokens: int = 0
    instructions: list[Instruction] = Field(default_factory=list)
    validation_problems: list[str] = Field(default_factory=list)
    decision: Decision
