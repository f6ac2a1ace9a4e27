"""A scripted backend for unit tests of the loop (llm's mock model, paper-qa's fake agent).

``FakeBackend([answer1, answer2])`` returns the scripted answers in order, one per
``generate`` call; an entry may be a callable ``(question, passages, pass_no, instructions)
-> ReferenceAwareAnswer`` to compute the answer from what it was given. Every call is
recorded in ``calls`` so tests can assert what the loop sent. The loop validates the
answers, as it does any backend's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from docintel.errors import UsageError
from docintel.schema.answer import ReferenceAwareAnswer
from docintel.schema.evidence import ParsedQuestion, Passage
from docintel.schema.loop import BackendKind, CallInfo, Generation, Instruction

Script = ReferenceAwareAnswer | Callable[..., ReferenceAwareAnswer]


@dataclass
class FakeCall:
    question: ParsedQuestion
    passages: list[Passage]
    pass_no: int
    instructions: list[Instruction]


@dataclass
class FakeBackend:
    """Returns scripted answers in order and records each call."""

    answers: Sequence[Script] = ()
    resolutions: dict[str, str | None] = field(default_factory=dict)
    name: str = "fake"
    kind: BackendKind = "scripted"
    calls: list[FakeCall] = field(default_factory=list)
    resolve_calls: list[tuple[str, str, list[dict]]] = field(default_factory=list)

    def enqueue(self, *answers: Script) -> FakeBackend:
        """Append answers to the script (llm's ``MockModel.enqueue``)."""
        self.answers = [*self.answers, *answers]
        return self

    def generate(
        self,
        question: ParsedQuestion,
        passages: list[Passage],
        *,
        pass_no: int,
        instructions: list[Instruction],
    ) -> Generation:
        """The next scripted answer, as written (the loop validates it)."""
        n = len(self.calls)
        self.calls.append(FakeCall(question, list(passages), pass_no, list(instructions)))
        if n >= len(self.answers):
            raise UsageError(
                f"FakeBackend: no scripted answer for call {n + 1} (script has {len(self.answers)})"
            )
        item = self.answers[n]
        answer = item(question, passages, pass_no, instructions) if callable(item) else item
        info = CallInfo(backend=self.name, pass_no=pass_no, details={"call": n + 1})
        return Generation(answer=answer, info=info)

    def resolve_reference(self, raw_text: str, origin_context: str, sections: list[dict]) -> str | None:
        """The scripted toc_id for ``raw_text`` (None when not scripted)."""
        self.resolve_calls.append((raw_text, origin_context, list(sections)))
        return self.resolutions.get(raw_text)

    def describe(self) -> dict:
        return {"name": self.name, "model": None, "scripted_answers": len(self.answers)}
