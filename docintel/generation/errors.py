"""Model-endpoint errors, by whose fault they are. All are :class:`docintel.errors.LLMError`.

They live here until the shared ``docintel/errors.py`` adopts them; import them from this module.
"""

from __future__ import annotations

from docintel.errors import LLMError, LLMOutputError

__all__ = ["LLMAuthError", "LLMError", "LLMOutputError", "LLMTimeoutError", "LLMUnreachableError"]


class LLMAuthError(LLMError):
    """The endpoint refused the API key (HTTP 401/403); the message names the setting to fix."""


class LLMTimeoutError(LLMError):
    """The endpoint did not answer within the timeout."""


class LLMUnreachableError(LLMError):
    """No connection to the endpoint (wrong base_url, server down)."""
