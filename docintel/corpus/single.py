"""The one adapter between corpus mode and the single-document loop.

Corpus paths call :func:`ask_document` only, so the single-document API can change shape
without touching them (the lead re-points this function at merge).
"""

from __future__ import annotations


def ask_document(tables, question: str, *, backend=None, top_k: int | None = None, max_loops: int = 1):
    """Run the existing single-document reference loop over one parsed document (AskResult)."""
    from docintel.api import ask

    return ask(
        tables.path or tables.doc_id,
        question,
        backend=backend,
        tables=tables,
        top_k=top_k,
        max_loops=max_loops,
        write_trace=False,
    )
