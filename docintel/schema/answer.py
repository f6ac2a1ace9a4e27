"""The answer contract: what generation returns and what decide reads.

The field descriptions are part of the prompt (instructor sends the JSON
schema), so they are written for the model as much as for the reader.
Lengths and value sets are bounded so that small models cannot loop.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from docintel.schema.kinds import RefType, RetrievedVia

Completeness = Literal["complete", "references_unresolved", "partial", "not_found"]


class Citation(BaseModel):
    """Line-level provenance of one piece of the answer."""

    doc_id: str = Field("", description="Document id (filled in by the pipeline).", max_length=64)
    page: int = Field(..., ge=1, description="Physical page (1-based) of the cited lines.")
    line_start: int = Field(..., ge=1, description="First cited line on that page (1-based).")
    line_end: int = Field(..., ge=1, description="Last cited line on that page (inclusive).")
    quote: str = Field(
        "",
        max_length=600,
        description="A short verbatim quote copied from the cited lines that supports the answer.",
    )
    retrieved_via: RetrievedVia = Field(
        "primary",
        description="'primary' for the first-pass evidence, 'reference' for evidence pulled in "
        "by following a reference, 'definition' for a pulled-in definition.",
    )
    referenced_from: tuple[int, int] | None = Field(
        None, description="(page, line) of the reference that led to this evidence, if any."
    )
    reference_text: str | None = Field(
        None, max_length=200, description="The reference as written, e.g. 'Table 3 row (E)'."
    )


class PendingReference(BaseModel):
    """A pointer in the evidence whose target was not in the evidence."""

    raw_text: str = Field(
        ...,
        max_length=200,
        description="The reference exactly as written in the evidence, e.g. 'Table 3 row (E)', "
        "'Section 5.2', '[18]', 'SP 800-90'.",
    )
    ref_type: RefType = Field(
        "unknown",
        description="What the reference points at: section, table, figure, equation, annex, "
        "appendix, bib (a bibliography entry like [18]), external (another document), clause, "
        "definition, page, footnote, condition (an 'applies only if' clause), unknown.",
    )
    origin_page: int = Field(..., ge=1, description="Page where the reference is written.")
    origin_line: int = Field(..., ge=1, description="Line where the reference is written.")


class ExternalReference(BaseModel):
    """A document outside the corpus that the answer depends on (named, never fetched)."""

    name: str = Field(..., max_length=200, description="The external document as written.")
    origin_page: int = Field(..., ge=1)
    origin_line: int = Field(..., ge=1)
    context: str = Field("", max_length=400, description="The sentence that names it.")


class ReferenceAwareAnswer(BaseModel):
    """The typed answer. decide routes on its fields, never on a confidence score."""

    answer: str = Field(
        ...,
        max_length=4000,
        description="The answer in prose, using only the evidence. If the evidence does not "
        "answer the question, say so and set answer_completeness to 'not_found'.",
    )
    citations: list[Citation] = Field(
        default_factory=list,
        max_length=20,
        description="The evidence lines that support the answer, with a verbatim quote each.",
    )
    pending_references: list[PendingReference] = Field(
        default_factory=list,
        max_length=10,
        description="References in the cited evidence whose target is NOT in the evidence and "
        "would change or complete the answer if followed (e.g. 'see Table 3 row (E)').",
    )
    external_references: list[ExternalReference] = Field(
        default_factory=list,
        max_length=10,
        description="Documents outside this PDF that the answer relies on (e.g. 'SP 800-90'): "
        "name them; they are not fetched.",
    )
    conditions: list[str] = Field(
        default_factory=list,
        max_length=10,
        description="Conditions the answer depends on ('applies only if ...'), stated explicitly.",
    )
    answer_completeness: Completeness = Field(
        ...,
        description="'complete' when the evidence fully answers; 'references_unresolved' when a "
        "pending reference would complete it; 'partial' when something is missing that no "
        "reference explains; 'not_found' when the evidence does not answer the question.",
    )


class UnresolvedReference(BaseModel):
    """A pending reference the loop could not resolve, reported to the user."""

    raw_text: str
    ref_type: str
    origin_page: int
    origin_line: int
    reason: str
