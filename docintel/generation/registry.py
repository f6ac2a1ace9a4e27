"""The backend registry: a plain dict from names to factories, filled with the built-in backends.

Factories import their module lazily, so registering 'openai' costs nothing until used.
"""

from __future__ import annotations

from collections.abc import Callable

from docintel.errors import UsageError
from docintel.generation.protocol import LLMBackend
from docintel.settings import env

BACKENDS: dict[str, Callable[..., LLMBackend]] = {}


def register(name: str, factory: Callable[..., LLMBackend]) -> None:
    """Make ``name`` buildable by :func:`get_backend`."""
    BACKENDS[name] = factory


def get_backend(name: str, **options) -> LLMBackend:
    """Build the backend called ``name``; unknown names list the known ones."""
    if name not in BACKENDS:
        raise UsageError(f"unknown backend {name!r}; known backends: {', '.join(sorted(BACKENDS))}")
    return BACKENDS[name](**options)


def _offline(**options) -> LLMBackend:
    from docintel.generation.offline import OfflineBackend

    return OfflineBackend(**options)


def _openai(**options) -> LLMBackend:
    from docintel.generation.backends.openai_backend import OpenAIBackend

    return OpenAIBackend(**options)


def _local(**options) -> LLMBackend:
    from docintel.generation.backends.local_backend import LocalBackend

    return LocalBackend(**options)


def _fake(**options) -> LLMBackend:
    from docintel.generation.backends.fakes import FakeBackend

    return FakeBackend(**options)


register("offline", _offline)
register("openai", _openai)
register("local", _local)
register("fake", _fake)


def default_backend_name() -> str:
    """'openai' when an endpoint or model is configured (DOCINTEL_BASE_URL / DOCINTEL_MODEL),
    else 'offline', so asking always works without a server."""
    return "openai" if env("base_url") or env("model") else "offline"


#: Backends that take no model options (a model name or endpoint means nothing to them).
MODEL_FREE = ("offline", "fake")


def backend_name(name: str | None = None) -> str:
    """The backend an ask uses: ``name``, else the ``DOCINTEL_BACKEND`` setting, else the default."""
    return name or env("backend") or default_backend_name()


def build_backend(name: str | None = None, *, fallback: str = "none", **options) -> LLMBackend:
    """The backend called ``name`` (default: :func:`default_backend_name`), wrapped so that an
    output that never validates is answered offline, labelled, when ``fallback='offline'``.
    Model options are dropped for the model-free backends."""
    name = backend_name(name)
    if fallback not in ("none", "offline"):
        raise UsageError(f"unknown fallback {fallback!r}; known: none, offline")
    backend = get_backend(name, **({} if name in MODEL_FREE else options))
    if fallback == "offline" and name != "offline":
        from docintel.generation.backends.fallback import FallbackBackend

        backend = FallbackBackend(backend, get_backend("offline"))
    return backend
