"""What flows between bricks: the parsed question, retrieval candidates, evidence passages."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

AnswerShape = Literal["fact", "comparison", "list", "definition", "yes_no", "procedure", "number", "overview"]
#: What a question asks for beyond its topic words: a time span ("How soon ...", "within what
#: time") or a recurrence ("How often ..."); ``None``: no answer type is read from the question.
AnswerType = Literal["duration", "frequency"]
ScopeKind = Literal["section", "page", "table", "figure", "equation", "appendix", "annex", "clause"]


class Scope(BaseModel):
    """A region the question names: 'in Table 2', 'in Section 3', 'on page 8'."""

    kind: ScopeKind
    target: str = Field(..., description="'2', '3.1', 'A', '8' (a printed page label for pages)")
    text: str = Field(..., description="The scope as written in the question.")


class ParsedQuestion(BaseModel):
    """The question, parsed into a retrieval brief and a generation brief."""

    text: str
    keywords: list[str] = Field(default_factory=list, description="Content words, lower-cased.")
    phrases: list[str] = Field(default_factory=list, description="Multi-word phrases / quoted terms.")
    numbers: list[str] = Field(default_factory=list, description="Numbers written in the question.")
    scope: Scope | None = None
    shape: AnswerShape = "fact"
    defined_term: str | None = Field(
        None, description="For a definition question, the term it asks about ('MCAS'), derived once."
    )
    answer_type: AnswerType | None = Field(
        None, description="The kind of value asked for ('duration': 'How soon ...?'), derived once."
    )


class Candidate(BaseModel):
    """One page retrieval considered, with the reasons it scored as it did."""

    page: int
    score: float
    scores: dict[str, float] = Field(default_factory=dict, description="Per-signal scores.")
    reasons: list[str] = Field(default_factory=list)
    chosen: bool = False


class EvidenceLine(BaseModel):
    page: int
    line: int
    text: str
    role: str = "body"


class Passage(BaseModel):
    """A contiguous run of lines given to generation, with why it is there."""

    doc_id: str
    page: int
    line_start: int
    line_end: int
    lines: list[EvidenceLine]
    retrieved_via: Literal["primary", "reference", "definition", "scope", "baseline"] = "primary"
    referenced_from: tuple[int, int] | None = None
    reference_text: str | None = None
    note: str = Field("", description="e.g. 'pulled in because of Table 3 row (E) on page 6, line 28'")

    @property
    def text(self) -> str:
        return "\n".join(ln.text for ln in self.lines)

    def to_json_dict(self) -> dict:
        return {
            "page": self.page,
            "line_start": self.line_start,
            "line_end": self.line_end,
            "text": self.text,
            "retrieved_via": self.retrieved_via,
            "referenced_from": list(self.referenced_from) if self.referenced_from else None,
            "reference_text": self.reference_text,
            "note": self.note,
        }
