"""``--fallback offline``: when the model's output never validates, answer offline, labelled.

``FallbackBackend(primary, offline)`` calls the primary backend; only an
:class:`~docintel.errors.LLMOutputError` (every retry failed validation) switches that one call
to the offline backend. The answer text then starts with a label saying so, and
``last_call_info`` keeps the model's raw outputs and the error, so the trace shows what the
model produced. Endpoint failures (auth, timeout, unreachable) are not masked: they still raise.
"""

from __future__ import annotations

from docintel.errors import LLMOutputError
from docintel.generation.base import LLMBackend
from docintel.schema.answer import ReferenceAwareAnswer
from docintel.schema.evidence import ParsedQuestion, Passage

LABEL = "[Offline fallback: the {name} model's output did not validate after {attempts} attempt(s); " "this answer was extracted without the model.]"  # fmt: skip


class FallbackBackend:
    """The primary backend, with an offline answer (labelled) when its output never validates."""

    def __init__(self, primary: LLMBackend, offline: LLMBackend) -> None:
        self.primary = primary
        self.offline = offline
        self.name = getattr(primary, "name", "llm")
        self.last_call_info: dict = {}
        self.fallbacks = 0  # calls answered by the offline backend so far

    def generate(
        self,
        question: ParsedQuestion,
        passages: list[Passage],
        *,
        pass_no: int,
        instructions: list[str],
    ) -> ReferenceAwareAnswer:
        """The primary backend's answer, or the offline one (labelled) after an LLMOutputError."""
        try:
            answer = self.primary.generate(question, passages, pass_no=pass_no, instructions=instructions)
        except LLMOutputError as exc:
            failed = dict(getattr(self.primary, "last_call_info", None) or {})
            answer = self.offline.generate(question, passages, pass_no=pass_no, instructions=instructions)
            self.fallbacks += 1
            label = LABEL.format(name=self.name, attempts=exc.attempts or len(exc.raw_outputs) or "?")
            answer = answer.model_copy(update={"answer": f"{label} {answer.answer}"[:4000]})
            self.last_call_info = {
                **dict(getattr(self.offline, "last_call_info", None) or {}),
                "fallback": "offline",
                "fallback_reason": str(exc),
                "llm_output_error": {
                    "backend": self.name,
                    "attempts": exc.attempts,
                    "raw_outputs": list(exc.raw_outputs),
                    "primary_call_info": {k: v for k, v in failed.items() if k != "raw_outputs"},
                },
            }
            return answer
        self.last_call_info = dict(getattr(self.primary, "last_call_info", None) or {})
        return answer

    def resolve_reference(self, raw_text: str, origin_context: str, sections: list[dict]) -> str | None:
        """The primary backend's pick, or the offline (deterministic) pick after an LLMOutputError."""
        try:
            toc_id = self.primary.resolve_reference(raw_text, origin_context, sections)
        except LLMOutputError as exc:
            toc_id = self.offline.resolve_reference(raw_text, origin_context, sections)
            self.fallbacks += 1
            self.last_call_info = {
                "call": "resolve_reference",
                "fallback": "offline",
                "fallback_reason": str(exc),
                "llm_output_error": {"attempts": exc.attempts, "raw_outputs": list(exc.raw_outputs)},
            }
            return toc_id
        self.last_call_info = dict(getattr(self.primary, "last_call_info", None) or {})
        return toc_id

    def describe(self) -> dict:
        info = dict(self.primary.describe())
        info["fallback"] = {"on": "LLMOutputError", "backend": self.offline.describe()}
        return info
