"""The LLM router: a model proposes the same :class:`~docintel.corpus.router.RouteProposal`.

Opt-in (``Corpus.ask(..., router="llm")``, ``DOCINTEL_ROUTER=llm``) and only with a model
backend that has a structured-output call; the rules stay the default because they are
measured (BENCHMARKS.md) and a small local model routes worse than they do. Whatever the model
proposes goes through :func:`~docintel.corpus.router.validate_route` (unknown record type ->
search, filters only on the type's fields), and a failing model falls back to the rules, said in
the route span.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

ROUTERS = ("rules", "llm")

_SYSTEM = (
    "You route a question over a corpus of documents to one answer path. "
    "search: the best passages answer it (one fact, one rule, a definition, a 'which <singular>'). "
    "list: it needs every matching record of a known type ('list every', 'how many', 'which "
    "<plural>'); give record_type (one of the known types) and filters (field -> value) only then. "
    "follow: it asks what a piece of evidence applies to, which documents use, cite or depend on "
    "something. agent: several dependent steps, each needing what the one before found. "
    "Reply with the path, record_type, filters and a short reason."
)


@dataclass
class BackendRouter:
    """:class:`~docintel.corpus.router.LLMRouter` over a generation backend's ``_call``."""

    backend: Any
    max_tokens: int = 160

    def __call__(self, question: str, record_types: Mapping[str, str]) -> Mapping[str, Any]:
        from docintel.corpus.router import RouteProposal

        known = "; ".join(f"{name} ({label})" for name, label in record_types.items())
        messages = [
            {"role": "system", "content": _SYSTEM},
            {"role": "user", "content": f"Known record types: {known}\nQuestion: {question}"},
        ]
        result, _ = self.backend._call(RouteProposal, messages, self.max_tokens)
        return result.model_dump() if hasattr(result, "model_dump") else dict(result)


def llm_router(backend: Any, choice: str | None = None):
    """The LLM router for ``backend`` when ``choice`` (or ``DOCINTEL_ROUTER``) is ``llm``; None:
    the rules. Asking for it without a model backend is an error, not a silent fallback."""
    from docintel.corpus.agent.model import tool_capable
    from docintel.errors import UsageError
    from docintel.settings import env

    choice = (choice or env("router", "rules")).strip().lower()
    if choice not in ROUTERS:
        raise UsageError(f"--router must be one of {', '.join(ROUTERS)}, not {choice!r}")
    if choice == "rules":
        return None
    if not tool_capable(backend):
        raise UsageError("--router llm needs a model backend (--backend openai or local)")
    return BackendRouter(backend)
