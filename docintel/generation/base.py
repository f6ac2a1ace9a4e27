"""The LLM backend protocol and the registry that maps names to factories."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from docintel.errors import UsageError
from docintel.schema.answer import ReferenceAwareAnswer
from docintel.schema.evidence import ParsedQuestion, Passage


@runtime_checkable
class LLMBackend(Protocol):
    """Anything that turns a question plus evidence into a ReferenceAwareAnswer."""

    name: str

    def generate(
        self,
        question: ParsedQuestion,
        passages: list[Passage],
        *,
        pass_no: int,
        instructions: list[str],
    ) -> ReferenceAwareAnswer:
        """Answer from ``passages`` only. ``instructions`` are extra rules for this pass
        (state conditions explicitly, name external documents, ...)."""
        ...

    def resolve_reference(self, raw_text: str, origin_context: str, sections: list[dict]) -> str | None:
        """Pick the toc_id that an ambiguous reference ('the previous section') points at,
        from ``sections`` (dicts with toc_id, title, level, parent_id, page_start, line_start;
        the section the reference is written in has ``contains_origin``). None when unsure."""
        ...

    def describe(self) -> dict:
        """Name, model and versions, for the trace."""
        ...


BACKENDS: dict[str, Callable[..., LLMBackend]] = {}


def register(name: str, factory: Callable[..., LLMBackend]) -> None:
    BACKENDS[name] = factory


def get_backend(name: str, **options) -> LLMBackend:
    """Build the backend called ``name``; unknown names list the known ones."""
    from docintel.generation import registry  # noqa: F401  (fills BACKENDS)

    if name not in BACKENDS:
        raise UsageError(f"unknown backend {name!r}; known backends: {', '.join(sorted(BACKENDS))}")
    return BACKENDS[name](**options)
