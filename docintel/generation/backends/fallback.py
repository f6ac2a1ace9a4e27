"""``--fallback offline``: when the model's output never validates, answer offline, labelled.

``FallbackBackend(primary, offline)`` calls the primary backend; only an
:class:`~docintel.errors.LLMOutputError` (every retry failed validation) switches that one call
to the offline backend. The answer text then starts with a label saying so, and the call record
keeps the model's raw outputs and the error, so the trace shows what the model produced.
Endpoint failures (auth, timeout, unreachable) are not masked: they still raise.
"""

from __future__ import annotations

from docintel.errors import LLMOutputError
from docintel.generation.protocol import LLMBackend
from docintel.schema.evidence import ParsedQuestion, Passage
from docintel.schema.loop import Generation, Instruction

LABEL = "[Offline fallback: the {name} model's output did not validate after {attempts} attempt(s); " "this answer was extracted without the model.]"  # fmt: skip


class FallbackBackend:
    """The primary backend, with an offline answer (labelled) when its output never validates."""

    def __init__(self, primary: LLMBackend, offline: LLMBackend) -> None:
        self.primary = primary
        self.offline = offline
        self.name = getattr(primary, "name", "llm")
        self.kind = primary.kind
        self.fallbacks = 0  # calls answered by the offline backend so far

    def generate(
        self,
        question: ParsedQuestion,
        passages: list[Passage],
        *,
        pass_no: int,
        instructions: list[Instruction],
    ) -> Generation:
        """The primary backend's answer, or the offline one (labelled) after an LLMOutputError."""
        try:
            return self.primary.generate(question, passages, pass_no=pass_no, instructions=instructions)
        except LLMOutputError as exc:
            from docintel.generation.offline.compose import fit  # the offline notes stay whole

            gen = self.offline.generate(question, passages, pass_no=pass_no, instructions=instructions)
            self.fallbacks += 1
            label = LABEL.format(name=self.name, attempts=exc.attempts or len(exc.raw_outputs) or "?")
            answer = gen.answer.model_copy(update={"answer": fit(f"{label} {gen.answer.answer}")})
            failed = {k: v for k, v in exc.call_info.items() if k != "raw_outputs"}
            details = {
                **gen.info.details,
                "fallback": "offline",
                "fallback_reason": str(exc),
                "llm_output_error": {
                    "backend": self.name,
                    "attempts": exc.attempts,
                    "raw_outputs": list(exc.raw_outputs),
                    "primary_call_info": failed,
                },
            }
            return Generation(answer=answer, info=gen.info.model_copy(update={"details": details}))

    def restate(self, text: str, settled: list) -> str:
        """The offline backend's notes on pointers not followed, updated for the ``settled`` ones
        (the loop's triage); a model's own text holds no such note and is returned as it is."""
        restate = getattr(self.offline, "restate", None)
        return restate(text, settled) if restate is not None else text

    def unname(self, text: str, listed: list[str], dropped: set[str]) -> str:
        """The offline backend's note on outside documents without the ``dropped`` names (the
        document's own ids); a model's own text holds no such note and is returned as it is."""
        unname = getattr(self.offline, "unname", None)
        return unname(text, listed, dropped) if unname is not None else text

    def resolve_reference(self, raw_text: str, origin_context: str, sections: list[dict]) -> str | None:
        """The primary backend's pick, or the offline (deterministic) pick after an LLMOutputError."""
        try:
            return self.primary.resolve_reference(raw_text, origin_context, sections)
        except LLMOutputError:
            self.fallbacks += 1
            return self.offline.resolve_reference(raw_text, origin_context, sections)

    def describe(self) -> dict:
        info = dict(self.primary.describe())
        info["fallback"] = {"on": "LLMOutputError", "backend": self.offline.describe()}
        return info
