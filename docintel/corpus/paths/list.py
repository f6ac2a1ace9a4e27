"""The list path: every readable record that matches the proposal, counted in code, each cited.

No ranking and no k. The records come from the store (``store.rows``: the access filter is part
of the query), plus the curated records of a folder store (``STORE/curated/*.json``) whose
document the user may read. :func:`docintel.corpus.listing.list_records` keeps one item per key
and computes the count; the count goes to the answer as a known fact ("the complete list of
records you can access"), and an empty result says "none that you can access", which claims
nothing about records the user cannot see.
"""

from __future__ import annotations

import time
from pathlib import Path


def readable_records(corpus, user: str | None, record_type: str | None = None):
    """(records, evidence) the user may read: extracted rows of current documents + curated ones."""
    import pandas as pd

    from docintel.corpus.curated import load_curated
    from docintel.corpus.records import split_evidence

    docs = corpus.store.readable_documents(user)
    where, params = ("t.record_type = :rt", {"rt": record_type}) if record_type else ("", {})
    from docintel.corpus.record_ingest import readable_rows

    rows = readable_rows(corpus.store, user, where, params)
    rows, evidence = split_evidence(rows)
    folder = Path(corpus.location) / "curated"
    if folder.is_dir():
        cur = load_curated(folder)
        if record_type:
            cur = cur[cur["record_type"] == record_type]
        rows = pd.concat([df for df in (rows, cur) if len(df)] or [rows], ignore_index=True)
    current = set(docs["doc_id"])  # a superseded version's records are not listed
    rows = rows[rows["doc_id"].isin(current)].reset_index(drop=True)
    return rows, {d: e for d, e in evidence.items() if d in current}, docs


def _citation(item, doc: dict, block_id: str | None) -> dict:
    return {
        "doc_id": item.doc_id,
        "document": doc,
        "page": item.page,
        "line_start": item.line_start,
        "line_end": item.line_end,
        "page_end": item.page_end,
        "block_id": block_id,
        "key": item.key,
        "text": item.text,
        "quote": item.text,
        "source": item.source,
    }


def run(corpus, question: str, user: str | None, *, backend=None, top_k: int | None = None) -> dict:
    """Answer a list question for ``user`` (the ``ask --corpus --json`` object, with ``count``)."""
    from docintel.corpus.listing import list_records, record_vocabulary
    from docintel.corpus.paths.search import doc_info
    from docintel.corpus.router import route

    t0 = time.perf_counter()
    trace: dict = {"route": "list", "events": [], "timings": {}}
    first, _ = route(question)
    records, _, docs = readable_records(corpus, user, first.record_type)
    # Filters are read against the values the user's own records print (category names ...).
    proposal, span = route(question, vocabulary=record_vocabulary(records))
    trace["events"].append({"router_with_vocabulary": span})
    trace["timings"]["records"] = round(time.perf_counter() - t0, 6)
    by_id = docs.set_index("doc_id", drop=False)
    names = dict(zip(docs["doc_id"], docs["file"], strict=False))
    ans = list_records(records, proposal, set(docs["doc_id"]), doc_names=names)
    blocks = {}
    if "block_id" in records:
        blocks = {(r.doc_id, r.key): r.block_id for r in records.itertuples() if isinstance(r.block_id, str)}
    citations = [
        _citation(it, doc_info(by_id.loc[it.doc_id]), blocks.get((it.doc_id, it.key))) for it in ans.items
    ]
    trace["events"].append(
        {"event": "list", "record_type": ans.record_type, "filters": ans.filters, "count": ans.count}
    )
    trace["timings"]["total"] = round(time.perf_counter() - t0, 6)
    return {
        "question": question,
        "route": "list",
        "record_type": ans.record_type,
        "filters": ans.filters,
        "count": ans.count,
        "known_fact": ans.known_fact,
        "answer": ans.answer,
        "items": [it.model_dump() for it in ans.items],
        "citations": citations,
        "doc_id": None,
        "document": None,
        "pending_references": [],
        "external_references": [],
        "corpus_references": [],
        "conditions": [],
        "answer_completeness": "complete" if ans.count else "not_found",
        "loop_count": 0,
        "passes": [],
        "evidence": [
            {**c, "retrieved_via": "records", "note": f"{ans.label}: the complete list"} for c in citations
        ],
        "resolutions": [],
        "unresolved": [],
        "warnings": [],
        "trace": trace,
    }
