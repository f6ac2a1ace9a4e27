"""The model the agent loop talks to: a protocol, a scripted one for tests, an adapter over the
generation backends (instructor TOOLS mode: the local llama-cpp path and OpenAI-compatible
servers), and a recorder / replayer of real responses.

Every reply is an :class:`AgentStep` (thought, then either a tool and its arguments, or the
answer); the forced synthesis reply is a :class:`Synthesis`. The loop validates the tool
arguments against the tool's own schema, so a model's malformed arguments are a tool error the
loop reports back, never a crash.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field


class AgentStep(BaseModel):
    """One turn: what is missing, then a tool call or the final answer."""

    thought: str = Field("", max_length=600, description="what information is still missing")
    tool: str = Field(description="a tool name, or 'answer' when the evidence is enough")
    #: Flat string values keep the grammar a small model decodes simple; the tool's own schema
    #: validates and converts them ("5" -> 5) when the loop calls it.
    arguments: dict[str, str] = Field(default_factory=dict, description="the tool's arguments")
    answer: str = Field("", max_length=2000, description="with tool 'answer': the answer")
    evidence: list[str] = Field(default_factory=list, description="ledger item ids the answer rests on")


class Synthesis(BaseModel):
    """The answer written from the whole ledger when the turn or call limit is reached."""

    answer: str = Field(max_length=2000)
    evidence: list[str] = Field(default_factory=list, description="ledger item ids used")


@runtime_checkable
class AgentModel(Protocol):
    """What the loop calls: ``step`` per turn, ``synthesize`` when a limit forces the answer."""

    name: str

    def step(self, messages: list[dict]) -> AgentStep: ...
    def synthesize(self, messages: list[dict]) -> Synthesis: ...


Scripted = AgentStep | dict | Callable[[list[dict]], AgentStep | dict] | Exception


@dataclass
class ScriptedModel:
    """Replies in order (an AgentStep, its dict, a callable of the messages, or an exception to
    raise); ``synthesis`` answers the forced synthesis. Records every message list it got."""

    steps: Sequence[Scripted] = ()
    synthesis: Synthesis | dict | Callable[[list[dict]], Synthesis | dict] | None = None
    name: str = "scripted"
    calls: list[list[dict]] = field(default_factory=list)
    synth_calls: list[list[dict]] = field(default_factory=list)

    def step(self, messages: list[dict]) -> AgentStep:
        self.calls.append(list(messages))  # a snapshot: the loop keeps appending
        if len(self.calls) > len(self.steps):
            return AgentStep(thought="script ended", tool="answer", answer="")
        item = self.steps[len(self.calls) - 1]
        if isinstance(item, Exception):
            raise item
        item = item(messages) if callable(item) else item
        return item if isinstance(item, AgentStep) else AgentStep.model_validate(item)

    def synthesize(self, messages: list[dict]) -> Synthesis:
        self.synth_calls.append(messages)
        item = self.synthesis
        if item is None:
            raise RuntimeError("the script has no synthesis")
        item = item(messages) if callable(item) else item
        return item if isinstance(item, Synthesis) else Synthesis.model_validate(item)


def tool_capable(backend: Any) -> bool:
    """Whether ``backend`` can drive the loop: a model backend with a structured-output call."""
    return getattr(backend, "kind", None) == "model" and callable(getattr(backend, "_call", None))


def constrained_step(tool_names: Sequence[str]) -> type[AgentStep]:
    """:class:`AgentStep` with ``tool`` limited to ``tool_names`` + 'answer': a model decoding
    under a grammar (llama.cpp) cannot name a tool that does not exist."""
    from typing import Literal

    from pydantic import create_model

    choice = Literal[tuple([*tool_names, "answer"])]  # type: ignore[valid-type]
    return create_model(
        "AgentStepChoice", __base__=AgentStep, tool=(choice, Field(description="a tool name, or 'answer'"))
    )


@dataclass
class BackendModel:
    """An :class:`AgentModel` over a generation backend's structured call (``_call``)."""

    backend: Any
    max_tokens: int = 300
    tool_names: Sequence[str] | None = None

    def _step_model(self) -> type[AgentStep]:
        if self.tool_names is None:
            from docintel.corpus.tools import TOOLS

            self.tool_names = list(TOOLS)
        return constrained_step(self.tool_names)

    @property
    def name(self) -> str:
        return f"{self.backend.name}:{getattr(self.backend, 'model', '')}"

    def step(self, messages: list[dict]) -> AgentStep:
        result, _ = self.backend._call(self._step_model(), messages, self.max_tokens)
        return AgentStep.model_validate(result.model_dump())

    def synthesize(self, messages: list[dict]) -> Synthesis:
        result, _ = self.backend._call(Synthesis, messages, self.max_tokens * 2)
        return Synthesis.model_validate(result.model_dump())


@dataclass
class RecordingModel:
    """Wraps a model and keeps each reply (or error) in order; :meth:`save` writes them."""

    inner: AgentModel
    replies: list[dict] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.inner.name

    def _keep(self, kind: str, fn, messages):
        try:
            out = fn(messages)
        except Exception as exc:
            self.replies.append({"kind": kind, "error": f"{type(exc).__name__}: {exc}"})
            raise
        self.replies.append({"kind": kind, "reply": out.model_dump()})
        return out

    def step(self, messages: list[dict]) -> AgentStep:
        return self._keep("step", self.inner.step, messages)

    def synthesize(self, messages: list[dict]) -> Synthesis:
        return self._keep("synthesis", self.inner.synthesize, messages)

    def save(self, path: str | Path, **meta: Any) -> None:
        Path(path).write_text(json.dumps({**meta, "model": self.name, "replies": self.replies}, indent=1))


@dataclass
class ReplayModel:
    """Replays a :class:`RecordingModel` file: the same replies, in the same order."""

    path: str | Path
    name: str = "replay"
    _replies: list[dict] = field(default_factory=list)

    def __post_init__(self) -> None:
        data = json.loads(Path(self.path).read_text())
        self.name = f"replay:{data.get('model', '?')}"
        self._replies = list(data["replies"])

    def _next(self, kind: str) -> dict:
        if not self._replies:
            raise RuntimeError("the recording has no more replies")
        item = self._replies.pop(0)
        if item["kind"] != kind:
            raise RuntimeError(f"the recording has a {item['kind']} reply where a {kind} was asked")
        if "error" in item:
            raise RuntimeError(item["error"])
        return item["reply"]

    def step(self, messages: list[dict]) -> AgentStep:
        return AgentStep.model_validate(self._next("step"))

    def synthesize(self, messages: list[dict]) -> Synthesis:
        return Synthesis.model_validate(self._next("synthesis"))
