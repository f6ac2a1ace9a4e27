"""The LLM backend protocol: what the loop may call on any backend."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from docintel.schema.evidence import ParsedQuestion, Passage
from docintel.schema.loop import BackendKind, Generation, Instruction


@runtime_checkable
class LLMBackend(Protocol):
    """Anything that turns a question plus evidence into a typed answer and its call record."""

    name: str
    #: 'model' (a language model), 'rules' (deterministic, e.g. offline) or 'scripted' (tests):
    #: the trace records a 'rules' pick of a reference target as such, not as an LLM's.
    kind: BackendKind

    def generate(
        self,
        question: ParsedQuestion,
        passages: list[Passage],
        *,
        pass_no: int,
        instructions: list[Instruction],
    ) -> Generation:
        """Answer from ``passages`` only. ``instructions`` are extra rules for this pass
        (state conditions explicitly, name external documents). The answer is returned as
        the backend produced it: the loop validates it against the passages, once."""
        ...

    def resolve_reference(self, raw_text: str, origin_context: str, sections: list[dict]) -> str | None:
        """Pick the toc_id that an ambiguous reference ('the previous section') points at,
        from ``sections`` (dicts with toc_id, title, level, parent_id, page_start, line_start;
        the section the reference is written in has ``contains_origin``). None when unsure."""
        ...

    def describe(self) -> dict:
        """Name, model and versions, for the trace."""
        ...
