"""What ingest derives from each document besides its blocks: one line per corpus table.

A deriver is ``function(tables, blocks, doc) -> DataFrame`` (``tables``: the document's
DocTables; ``blocks``: its blocks, so a row can point at its ``block_id``; ``doc``: its
``documents`` row as a dict, ``doc_id`` included) or ``{table: DataFrame}`` when one reading
of the document fills several tables. It runs where the document is parsed (a Dask
worker or this process), must be a pure function of those three, and returns rows of its table
(``TABLES`` in :mod:`docintel.corpus.store`), each with the document's ``doc_id``. Its version is
part of every document's build, so changing a deriver (bump it) rebuilds every document's rows
on the next ingest, while an unchanged corpus stays a no-op.
"""

from __future__ import annotations

import hashlib
import importlib
from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class Deriver:
    table: str  # the corpus table its rows go to
    function: str  # "module:function", imported when first used
    version: str  # bump when its output changes for the same document


#: Every per-document corpus table ingest fills, besides blocks. Add one line per table.
DERIVERS: tuple[Deriver, ...] = (
    Deriver("records", "docintel.corpus.record_ingest:derive_records", "2"),  # issue 13 (+ record_evidence)
    Deriver("mentions", "docintel.corpus.links:mention_table", "1"),  # issue 14
    Deriver("identities", "docintel.corpus.links:identity_table", "1"),  # issue 14
)


def derivers_version(derivers: tuple[Deriver, ...] | None = None) -> str:
    """A short fingerprint of the derivers and their versions (part of each document's build)."""
    spec = "|".join(
        f"{d.table}={d.function}@{d.version}" for d in (DERIVERS if derivers is None else derivers)
    )
    return hashlib.sha256(spec.encode()).hexdigest()[:8]


def _load(function: str):
    module, _, name = function.partition(":")
    return getattr(importlib.import_module(module), name)


def derive(tables, blocks: pd.DataFrame, doc: dict, derivers: tuple[Deriver, ...] | None = None) -> dict:
    """Every deriver's rows for one document: ``{table: DataFrame}`` (empty frames left out)."""
    out: dict[str, pd.DataFrame] = {}
    for d in DERIVERS if derivers is None else derivers:
        got = _load(d.function)(tables, blocks, doc)
        for table, rows in got.items() if isinstance(got, dict) else [(d.table, got)]:
            if rows is None or rows.empty:
                continue
            rows = rows.copy()
            rows["doc_id"] = doc["doc_id"]
            out[table] = rows if table not in out else pd.concat([out[table], rows], ignore_index=True)
    return out
