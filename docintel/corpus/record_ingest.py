"""Records at ingestion: the ``records`` deriver of :data:`docintel.corpus.derive.DERIVERS`.

For one parsed document: every record :func:`~docintel.corpus.records.extract_records` finds,
each pointing at the block its first line is in (so a list item cites a block like a search hit
does), plus one :data:`~docintel.corpus.records.EVIDENCE` row per record type holding what its
second count saw in the document's lines (so ``docintel records`` reports from the store alone).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pandas as pd

from docintel.corpus.completeness import evidence
from docintel.corpus.records import (
    EVIDENCE,
    RECORD_COLUMNS,
    RECORD_TYPES,
    _frames,
    extract_records,
    record_id,
)


def block_of(blocks: pd.DataFrame, page: int, line: int) -> str | None:
    """The block holding ``page``/``line`` (else the nearest one after it on that page)."""
    if blocks is None or blocks.empty:
        return None
    on_page = blocks[blocks["page"].astype(int) == int(page)]
    if on_page.empty:
        return None
    starts, ends = on_page["line_start"].astype(int), on_page["line_end"].astype(int)
    hit = on_page[(starts <= line) & (ends >= line)]
    if hit.empty:  # the anchor line is page furniture or a contents entry: the next block
        hit = on_page[starts >= line].sort_values("line_start")
    if hit.empty:
        hit = on_page.sort_values("line_start").iloc[[-1]]
    return str(hit.iloc[0]["block_id"])


def derive_records(tables: Any, blocks: pd.DataFrame, doc: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """The ingest deriver of the ``records`` and ``record_evidence`` tables
    (:data:`docintel.corpus.derive.DERIVERS`).

    Every record of one document, each pointing at the block its first line is in; and one
    :data:`EVIDENCE` row per record type whose second count found something in the document.
    """
    recs = extract_records(tables)
    recs["block_id"] = [block_of(blocks, p, n) for p, n in zip(recs["page"], recs["line_start"], strict=True)]
    _, lines, _ = _frames(tables)
    doc_id = str(doc["doc_id"])
    ev = []
    for rt in RECORD_TYPES.values():
        e = evidence(rt, lines)
        if e is None:
            continue
        ev.append(
            {
                "record_id": record_id(doc_id, rt.name, "#evidence"),
                "record_type": rt.name,
                "key": "",
                "fields": json.dumps(e, sort_keys=True),
                "text": "",
                "doc_id": doc_id,
                "page": 0,
                "line_start": 0,
                "page_end": 0,
                "line_end": 0,
                "source": EVIDENCE,
                "note": f"second count: {rt.second_count}",
                "block_id": None,
            }
        )
    recs["doc_id"] = doc_id
    # the second counts go to their own table, so whoever reads ``records`` reads records only
    return {"records": recs, "record_evidence": pd.DataFrame(ev, columns=[*RECORD_COLUMNS, "block_id"])}


def readable_rows(store, user: str | None, where: str = "", params: dict | None = None) -> pd.DataFrame:
    """``records`` plus ``record_evidence`` rows ``user`` may read (None: every row, the builder's
    view), the shape :func:`docintel.corpus.records.split_evidence` takes apart."""
    parts = [
        store.table(name) if user is None and not where else store.rows(name, user, where, params)
        for name in ("records", "record_evidence")
    ]
    return pd.concat([p for p in parts if len(p)] or parts[:1], ignore_index=True)
