"""Contracts: table schemas, the answer model, the trace. No heavy imports."""

from docintel.schema.answer import (
    AskResult,
    Citation,
    ExternalReference,
    PendingReference,
    ReferenceAwareAnswer,
    UnresolvedReference,
)
from docintel.schema.document import DocTables
from docintel.schema.tables import SCHEMA_VERSION, TABLES

__all__ = [
    "SCHEMA_VERSION",
    "TABLES",
    "AskResult",
    "Citation",
    "DocTables",
    "ExternalReference",
    "PendingReference",
    "ReferenceAwareAnswer",
    "UnresolvedReference",
]
