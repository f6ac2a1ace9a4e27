"""Fill the backend registry: importing this module registers every built-in backend.

Factories import their module lazily, so registering 'openai' costs nothing until used.
"""

from __future__ import annotations

from docintel.generation.base import LLMBackend, register


def _offline(**options) -> LLMBackend:
    from docintel.generation.offline import OfflineBackend

    return OfflineBackend(**options)


def _openai(**options) -> LLMBackend:
    from docintel.generation.openai_backend import OpenAIBackend

    return OpenAIBackend(**options)


def _local(**options) -> LLMBackend:
    from docintel.generation.local_backend import LocalBackend

    return LocalBackend(**options)


def _fake(**options) -> LLMBackend:
    from docintel.generation.fakes import FakeBackend

    return FakeBackend(**options)


register("offline", _offline)
register("openai", _openai)
register("local", _local)
register("fake", _fake)


def default_backend_name() -> str:
    """'openai' when an endpoint or model is configured (DOCINTEL_BASE_URL / DOCINTEL_MODEL),
    else 'offline', so asking always works without a server."""
    from docintel.settings import env

    return "openai" if env("base_url") or env("model") else "offline"
