"""A scripted backend for unit tests of the loop (llm's mock model, paper-qa's fake agent).

``FakeBackend([answer1, answer2])`` returns the scripted answers in order, one per
``generate`` call; an entry may be a callable ``(question, passages, pass_no, instructions)
-> ReferenceAwareAnswer`` to compute the answer from what it was given. Every call is
recorded in ``calls`` so tests can assert what the loop sent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from docintel.errors import UsageError
from docintel.generation.validator import validate_answer
from docintel.schema.answer import ReferenceAwareAnswer
from docintel.schema.evidence import ParsedQuestion, Passage

Script = ReferenceAwareAnswer | Callable[..., ReferenceAwareAnswer]


@dataclass
class FakeCall:
    question: ParsedQuestion
    passages: list[Passage]
    pass_no: int
    instructions: list[str]


@dataclass
class FakeBackend:
    """Returns scripted answers in order and records each call."""

    answers: Sequence[Script] = ()
    resolutions: dict[str, str | None] = field(default_factory=dict)
    validate: bool = True
    name: str = "fake"
    calls: list[FakeCall] = field(default_factory=list)
    resolve_calls: list[tuple[str, str, list[dict]]] = field(default_factory=list)
    last_call_info: dict = field(default_factory=dict)

    def generate(
        self,
        question: ParsedQuestion,
        passages: list[Passage],
        *,
        pass_no: int,
        instructions: list[str],
    ) -> ReferenceAwareAnswer:
        """The next scripted answer (validated against ``passages`` unless ``validate=False``)."""
        n = len(self.calls)
        self.calls.append(FakeCall(question, list(passages), pass_no, list(instructions)))
        if n >= len(self.answers):
            raise UsageError(
                f"FakeBackend: no scripted answer for call {n + 1} (script has {len(self.answers)})"
            )
        item = self.answers[n]
        answer = item(question, passages, pass_no, instructions) if callable(item) else item
        problems: list[str] = []
        if self.validate:
            answer, problems = validate_answer(answer, passages)
        self.last_call_info = {"backend": self.name, "pass_no": pass_no, "call": n + 1,
                               "validation_problems": problems}  # fmt: skip
        return answer

    def resolve_reference(self, raw_text: str, origin_context: str, sections: list[dict]) -> str | None:
        """The scripted toc_id for ``raw_text`` (None when not scripted)."""
        self.resolve_calls.append((raw_text, origin_context, list(sections)))
        return self.resolutions.get(raw_text)

    def describe(self) -> dict:
        return {"name": self.name, "model": None, "scripted_answers": len(self.answers)}
