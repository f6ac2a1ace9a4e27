"""The ``openai`` backend: instructor + the openai client against any OpenAI-compatible endpoint
(OpenAI, vLLM, llama.cpp server, Ollama) chosen by ``base_url``.

instructor sends ReferenceAwareAnswer's JSON schema (field descriptions included) and, when the
output does not validate, re-asks with the validation error, up to ``max_retries`` times.
Mode TOOLS is the default: with small local models the JSON / MD_JSON modes do not hold the
schema. ``generate`` returns the answer with its call record (a Generation).
"""

from __future__ import annotations

import importlib.metadata
import os
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from docintel.errors import LLMError, LLMOutputError, MissingDependencyError, UsageError
from docintel.generation import prompts
from docintel.generation.errors import LLMAuthError, LLMTimeoutError, LLMUnreachableError
from docintel.generation.safety import as_base, grammar_safe_model
from docintel.schema.answer import ReferenceAwareAnswer
from docintel.schema.evidence import ParsedQuestion, Passage
from docintel.schema.loop import CallInfo, Generation, Instruction
from docintel.settings import pick

INSTALL_HINT = "pip install 'docintel[openai]'"
DEFAULT_MODEL = "gpt-4o-mini"


def _imports() -> tuple[Any, Any]:
    try:
        import instructor
        import openai
    except ImportError as exc:
        raise MissingDependencyError(
            f"the 'openai' backend needs instructor and openai ({exc.name} is missing): {INSTALL_HINT}"
        ) from exc
    return instructor, openai


def _retry_exception() -> type[Exception]:
    """instructor's 'retries exhausted' error (moved to instructor.core in 1.x releases)."""
    try:
        from instructor.core import InstructorRetryException
    except ImportError:  # older instructor
        from instructor.exceptions import InstructorRetryException
    return InstructorRetryException


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _raw_text(completion: Any) -> str:
    """The model's raw output from a chat completion: tool-call arguments, else content."""
    try:
        msg = completion.choices[0].message
    except (AttributeError, IndexError, TypeError):
        return str(completion)[:4000]
    calls = getattr(msg, "tool_calls", None) or []
    if calls:
        return "\n".join(c.function.arguments or "" for c in calls)
    return msg.content or ""


class OpenAIBackend:
    """Structured answers from an OpenAI-compatible chat endpoint."""

    name = "openai"
    kind = "model"

    def __init__(
        self,
        *,
        model: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        mode: str | None = None,
        max_retries: int | None = None,
        timeout: float | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        context_window: int | None = None,
        http_retries: int = 1,
        http_client: Any = None,
    ) -> None:
        self.model = str(pick(model, "model", DEFAULT_MODEL))
        self.base_url = pick(base_url, "base_url", None)
        key = pick(api_key, "api_key", None) or os.environ.get("OPENAI_API_KEY")
        if not key and not self.base_url:
            raise UsageError("the 'openai' backend needs an API key: set DOCINTEL_API_KEY (or OPENAI_API_KEY), "
                             "or point DOCINTEL_BASE_URL at a local OpenAI-compatible server")  # fmt: skip
        self._api_key = key or "not-needed"  # local servers ignore the key but the client wants one
        self.mode_name = str(pick(mode, "instructor_mode", "TOOLS")).upper()
        try:
            self.max_retries = int(pick(max_retries, "max_retries", 2))
            self.timeout = float(pick(timeout, "timeout", 120.0))
            self.max_tokens = int(pick(max_tokens, "max_tokens", 1500))
            self.temperature = float(pick(temperature, "temperature", 0.0))
            self.context_window = int(pick(context_window, "context_window", 8192))
            # llama.cpp servers compile the tool schema to a grammar and crash on long strings.
            self.schema_max_string = int(pick(None, "schema_max_string", 1000))
        except ValueError as exc:
            raise UsageError(f"bad numeric setting for the 'openai' backend: {exc}") from exc
        self.http_retries = http_retries
        self._http_client = http_client
        self._client: Any = None
        self._raw: list[str] = []
        #: Every call's record, oldest first (for inspection; the loop reads the Generation).
        self.history: list[CallInfo] = []

    # -- client ---------------------------------------------------------------------------
    def _instructor(self) -> Any:
        if self._client is not None:
            return self._client
        instructor, openai = _imports()
        try:
            mode = instructor.Mode[self.mode_name]
        except KeyError:
            known = ", ".join(
                m.name for m in instructor.Mode if not m.name.startswith(("ANTHROPIC", "GEMINI"))
            )
            raise UsageError(f"unknown instructor mode {self.mode_name!r}; known: {known}") from None
        kwargs: dict[str, Any] = {
            "api_key": self._api_key,
            "timeout": self.timeout,
            "max_retries": self.http_retries,
        }
        if self.base_url:
            kwargs["base_url"] = self.base_url
        if self._http_client is not None:
            kwargs["http_client"] = self._http_client
        client = instructor.from_openai(openai.OpenAI(**kwargs), mode=mode)
        # Keep every raw output (including the ones that failed validation) for LLMOutputError.
        client.on("completion:response", lambda response: self._raw.append(_raw_text(response)))
        self._client = client
        return client

    def _call(
        self, response_model: type[BaseModel], messages: list[dict], max_tokens: int
    ) -> tuple[Any, Any]:
        """One instructor call with errors translated into LLMError subclasses."""
        _, openai = _imports()
        client = self._instructor()
        self._raw = []
        where = self.base_url or "the OpenAI API"
        try:
            result, completion = client.chat.completions.create_with_completion(
                model=self.model,
                messages=messages,
                response_model=grammar_safe_model(response_model, self.schema_max_string),
                max_retries=self.max_retries,
                max_tokens=max_tokens,
                temperature=self.temperature,
            )
            return as_base(result, response_model), completion
        except Exception as exc:  # classify: API failure (wrapped by instructor or not) vs bad output
            cause: BaseException | None = exc
            while cause is not None and not isinstance(cause, openai.APIError):
                cause = cause.__cause__ or cause.__context__
            if isinstance(cause, openai.AuthenticationError | openai.PermissionDeniedError):
                raise LLMAuthError(f"{where} refused the API key (HTTP {cause.status_code}): "
                                   "check DOCINTEL_API_KEY") from exc  # fmt: skip
            if isinstance(cause, openai.APITimeoutError):
                raise LLMTimeoutError(f"{where} did not answer within {self.timeout:g} s "
                                      "(raise DOCINTEL_TIMEOUT for slow local models)") from exc  # fmt: skip
            if isinstance(cause, openai.APIConnectionError):
                raise LLMUnreachableError(f"cannot reach {where}: check DOCINTEL_BASE_URL and that the server "
                                          "is running") from exc  # fmt: skip
            if isinstance(cause, openai.NotFoundError):
                raise LLMError(
                    f"{where} has no model {self.model!r} (HTTP 404): check DOCINTEL_MODEL"
                ) from exc
            if isinstance(cause, openai.APIStatusError):
                raise LLMError(f"{where} returned HTTP {cause.status_code}: {cause.message}") from exc
            if isinstance(exc, _retry_exception()) or self._raw:
                attempts = getattr(exc, "n_attempts", len(self._raw)) or len(self._raw)
                raise LLMOutputError(
                    f"the model's output did not match the answer schema after {attempts} attempt(s): {exc}",
                    raw_outputs=list(self._raw),
                    attempts=attempts,
                ) from exc
            raise LLMError(f"calling {where} failed: {exc}") from exc

    # -- protocol -------------------------------------------------------------------------
    def generate(
        self,
        question: ParsedQuestion,
        passages: list[Passage],
        *,
        pass_no: int,
        instructions: list[Instruction],
    ) -> Generation:
        """Ask the model for a ReferenceAwareAnswer; the loop validates it and runs the
        reference detector over it (``needs_reference_check``)."""
        messages, details = prompts.build_messages(
            question,
            passages,
            pass_no=pass_no,
            instructions=list(instructions or []),
            context_window=self.context_window,
            max_tokens=self.max_tokens,
        )
        info = CallInfo(backend=self.name, model=self.model, pass_no=pass_no, details=details)
        self.history.append(info)
        try:
            answer, completion = self._call(ReferenceAwareAnswer, messages, self.max_tokens)
        except LLMOutputError as exc:
            exc.call_info = self._finish(info).as_dict()
            raise
        self._finish(info)
        usage = getattr(completion, "usage", None)
        if usage is not None:
            info.details["usage"] = {
                "prompt_tokens": getattr(usage, "prompt_tokens", None),
                "completion_tokens": getattr(usage, "completion_tokens", None),
            }
        doc_ids = {p.doc_id for p in passages}
        if len(doc_ids) == 1:
            doc_id = doc_ids.pop()
            answer = answer.model_copy(
                update={
                    "citations": [
                        c.model_copy(update={"doc_id": c.doc_id or doc_id}) for c in answer.citations
                    ]
                }
            )
        return Generation(answer=answer, info=info, needs_reference_check=True)

    def _finish(self, info: CallInfo) -> CallInfo:
        info.attempts = len(self._raw)
        info.raw_outputs = list(self._raw)
        return info

    def resolve_reference(self, raw_text: str, origin_context: str, sections: list[dict]) -> str | None:
        """Ask which section an ambiguous reference points at; the answer is bounded to the
        given toc_ids (a Literal) or None."""
        ids = [str(s["toc_id"]) for s in sections if s.get("toc_id") is not None][:300]
        if not ids:
            return None
        target = create_model(
            "ReferenceTarget",
            toc_id=(
                Literal[tuple(ids)] | None,  # type: ignore[valid-type]
                Field(
                    None, description="The toc_id of the section the reference points at; null when unsure."
                ),
            ),
            reason=(str, Field("", max_length=200, description="One short sentence: why this section.")),
        )
        listing = "\n".join(
            f"{s['toc_id']}: {s.get('title', '')} (page {s.get('page_start', '?')})" for s in sections
        )
        messages = [
            {
                "role": "system",
                "content": "You map a reference written in a document to one section of that "
                "document's table of contents. Answer null when the context does not make the target clear.",
            },  # fmt: skip
            {
                "role": "user",
                "content": f"Reference: {raw_text}\n\nWhere it is written:\n{origin_context}\n\n"
                f"Sections (toc_id: title (page)):\n{listing}",
            },  # fmt: skip
        ]
        estimate = sum(prompts.estimate_tokens(m["content"]) for m in messages)
        info = CallInfo(backend=self.name, model=self.model, prompt_tokens=estimate,
                        details={"call": "resolve_reference"})  # fmt: skip
        self.history.append(info)
        try:
            result, _ = self._call(target, messages, 200)
        finally:
            self._finish(info)
        return result.toc_id

    def describe(self) -> dict:
        return {
            "name": self.name,
            "model": self.model,
            "base_url": self.base_url,
            "instructor_mode": self.mode_name,
            "max_retries": self.max_retries,
            "context_window": self.context_window,
            "instructor": _version("instructor"),
            "openai": _version("openai"),
        }
