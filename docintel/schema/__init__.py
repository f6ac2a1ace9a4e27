"""Contracts as data: table schemas, kinds, the answer model, the loop's records, the trace.

Importable without pandas or pyarrow: ``DocTables`` and the table specs only touch them
when a frame is built.
"""

from docintel.schema.answer import (
    Citation,
    ExternalReference,
    PendingReference,
    ReferenceAwareAnswer,
    UnresolvedReference,
)
from docintel.schema.document import DocTables
from docintel.schema.loop import CallInfo, Decision, Generation, Instruction, Resolution
from docintel.schema.result import AskResult
from docintel.schema.tables import SCHEMA_VERSION, TABLES

__all__ = [
    "SCHEMA_VERSION",
    "TABLES",
    "AskResult",
    "CallInfo",
    "Citation",
    "Decision",
    "DocTables",
    "ExternalReference",
    "Generation",
    "Instruction",
    "PendingReference",
    "ReferenceAwareAnswer",
    "Resolution",
    "UnresolvedReference",
]
