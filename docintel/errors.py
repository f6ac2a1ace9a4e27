"""One base error; subclasses say whose fault it is.

Only the ``cli`` package turns these into ``Error: ...`` and exit code 1.
"""

from __future__ import annotations


class DocintelError(Exception):
    """Base of every error docintel raises on purpose."""


class UsageError(DocintelError):
    """Bad input or configuration from the user; the message says how to fix it."""


class MissingDependencyError(UsageError):
    """An optional extra is not installed; the message names the pip command."""


class DocumentError(DocintelError):
    """The document itself cannot be used (not a PDF, corrupt, encrypted, empty...)."""


class EncryptedDocumentError(DocumentError):
    """The PDF is encrypted and no (correct) password was given."""


class LLMError(DocintelError):
    """The model endpoint failed (auth, timeout, unreachable)."""


class LLMOutputError(LLMError):
    """The model's output never validated, after every retry."""

    def __init__(
        self,
        message: str,
        *,
        raw_outputs: list[str] | None = None,
        attempts: int = 0,
        call_info: dict | None = None,
    ):
        super().__init__(message)
        self.raw_outputs = raw_outputs or []
        self.attempts = attempts
        #: The failed call's record (prompt size, cut lines ...), for the trace.
        self.call_info = call_info or {}


class StorageError(DocintelError):
    """The tables could not be written (a full disk, no permission); earlier tables are untouched."""


class BudgetError(DocumentError):
    """Parsing the document went over its time or memory budget (a hostile or pathological file)."""
