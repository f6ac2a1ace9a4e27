"""Stored answers: save one per corpus ask, list, show, trace and check them.

Saving is append-only and short: the ask runs with no lock held, then one commit of the
answer row and its edges (:mod:`docintel.corpus.provenance`) under the store's writer lock.
Every read goes through ``store.rows`` with the user, so an answer whose sources the user
cannot all read is neither listed, shown nor traced, and neither are its edges.
"""

from __future__ import annotations

import json
import time

import pandas as pd

from docintel.corpus import provenance
from docintel.corpus.store import Change
from docintel.errors import UsageError

#: How long a save waits for another committer (an ingest) before giving up with a warning:
#: an answer is a few rows, so a short wait covers another answer's commit, not a long ingest.
LOCK_WAIT_SECONDS = 10.0


def _conversation_head(store, conversation: str, user: str | None) -> tuple[int, str | None]:
    """(next turn, previous answer id) of ``conversation``; refused when it is someone else's."""
    rows = store.table("answers")
    rows = rows[rows["conversation"] == conversation] if not rows.empty else rows
    if rows.empty:
        return 1, None
    if set(rows["usr"]) - {user or ""}:
        raise UsageError(f"conversation {conversation!r} belongs to another user; start a new one")
    last = rows.sort_values("turn").iloc[-1]
    return int(last["turn"]) + 1, str(last["answer_id"])


def save(store, out: dict, user: str | None, *, conversation: str | None = None, backend=None) -> dict:
    """Store ``out`` (one corpus ask's output) with its provenance; returns the answer row.

    The turn is read and the rows written under the writer lock, so two answers chained to one
    conversation at once still get consecutive turns; the ask itself ran before, unlocked."""
    sources = provenance.source_doc_ids(out)
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while True:
        try:
            with store.writer_lock():
                turn, prev = _conversation_head(store, conversation, user) if conversation else (1, None)
                records = store.table("records") if sources else None
                if records is not None and not records.empty:
                    records = records[records["doc_id"].isin(sources)]
                row, edges = provenance.build_record(
                    out,
                    user=user,
                    groups=store.user_groups(user),
                    documents=store.table("documents"),
                    blocks=store.doc_blocks(sources) if sources else pd.DataFrame(columns=["doc_id"]),
                    records=records,
                    conversation=conversation,
                    turn=turn,
                    prev_answer=prev,
                    backend=backend,
                )
                store.commit(Change(rows={"answers": pd.DataFrame([row]), "answer_edges": edges}))
            return row
        except UsageError as exc:
            if "another" not in str(exc) or "writing" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def get(store, answer_id: str, user: str | None) -> pd.Series:
    rows = store.rows("answers", user, "t.answer_id = :a", {"a": answer_id})
    if rows.empty:  # the same words whether it does not exist or is not readable
        raise UsageError(f"no stored answer {answer_id!r} you can read")
    return rows.iloc[0]


def edges(store, answer_id: str, user: str | None) -> pd.DataFrame:
    return store.rows(
        "answer_edges", user, "t.answer_id = :a", {"a": answer_id}, order="t.kind, t.created_at"
    )


def about_keys(ident: str) -> list[str]:
    """The ABOUT targets ``ident`` may be stored as: identifier, record or term key, or as given."""
    from docintel.corpus.identifiers import normalize
    from docintel.text import comparison_form

    keys = [ident, f"term:{comparison_form(ident)}"]
    from docintel.corpus.identity import canonical

    found = normalize(ident)
    if found is not None:
        keys.append(f"ident:{found.canonical}")
    pub = canonical(ident)
    if pub:
        keys.append(f"ident:{pub[0]}")
    if ident.count(":") >= 1 and not ident.startswith(("ident:", "record:", "term:")):
        keys.append(f"record:{ident}")
    return keys


def list_answers(store, user: str | None, *, about: str | None = None) -> pd.DataFrame:
    """The stored answers ``user`` may read (newest first), only those ABOUT ``about`` if given."""
    where, params = "", {}
    if about:
        hits = store.rows(
            "answer_edges",
            user,
            "t.kind = 'ABOUT' AND t.target = ANY(:keys)",
            {"keys": about_keys(about)},
        )
        if hits.empty:
            return store.rows("answers", user, "1 = 0")
        where, params = "t.answer_id = ANY(:ids)", {"ids": sorted(set(hits["answer_id"]))}
    return store.rows("answers", user, where, params, order="t.created_at DESC, t.answer_id")


def passage_texts(store, user: str | None, cites: pd.DataFrame) -> dict[str, str]:
    """edge_id -> the cited passage's text: the store's block, else the version's parse cache."""
    ids = [b for b in cites["block_id"].dropna().unique()]
    blocks = store.blocks(user, ids).set_index("block_id") if ids else pd.DataFrame()
    out = {}
    for e in cites.itertuples(index=False):
        if isinstance(e.block_id, str) and e.block_id in blocks.index:
            out[e.edge_id] = str(blocks.loc[e.block_id, "text"])
        else:
            out[e.edge_id] = _cached_lines(store, user, e) or ""
    return out


def _cached_lines(store, user, e) -> str | None:
    """The cited lines from the (older) version's per-document parse cache, when it is still there."""
    from docintel.parsing import store as cache

    docs = store.rows("documents", user, "t.doc_id = :d", {"d": e.doc_id})
    if docs.empty or not isinstance(docs.iloc[0]["cache_dir"], str):
        return None
    try:
        tables = cache.load(docs.iloc[0]["cache_dir"])
    except Exception:  # a damaged or pruned cache: the stored quote stands in
        return None
    if tables is None:
        return None
    ln = tables.line_df
    sel = ln[(ln["page"] == int(e.page)) & ln["line"].between(int(e.line_start), int(e.line_end))]
    return " ".join(sel["text"].astype(str)) or None


def show(store, answer_id: str, user: str | None) -> dict:
    """The stored answer with each citation (every edge status) and its passage text."""
    a = get(store, answer_id, user)
    e = edges(store, answer_id, user)
    cites = e[e["kind"] == "CITES"]
    texts = passage_texts(store, user, cites) if not cites.empty else {}
    return {
        **_answer_dict(a),
        "citations": [
            {**_edge_dict(c), "passage": texts.get(c["edge_id"], "")} for c in cites.to_dict("records")
        ],
        "edges": {k: int(n) for k, n in e["kind"].value_counts().sort_index().items()},
    }


def trace(store, answer_id: str, user: str | None) -> dict:
    """answer -> documents -> passages, plus every turn of its conversation the user may read."""
    a = get(store, answer_id, user)
    e = edges(store, answer_id, user)
    cites = e[e["kind"] == "CITES"]
    texts = passage_texts(store, user, cites) if not cites.empty else {}
    docs = []
    for s in e[e["kind"] == "SOURCED_FROM"].to_dict("records"):
        mine = cites[cites["doc_id"] == s["doc_id"]]
        docs.append(
            {
                **_edge_dict(s),
                "passages": [
                    {**_edge_dict(c), "passage": texts.get(c["edge_id"], "")} for c in mine.to_dict("records")
                ],
            }
        )
    turns = store.rows("answers", user, "t.conversation = :c", {"c": a["conversation"]}, order="t.turn")
    return {
        **_answer_dict(a),
        "about": sorted(e.loc[e["kind"] == "ABOUT", "target"]),
        "documents": docs,
        "via": [_edge_dict(v) for v in e[e["kind"] == "VIA"].to_dict("records")],
        "visited": [_edge_dict(v) for v in e[e["kind"] == "VISITED"].to_dict("records")],
        "turns": [
            {
                "turn": int(t["turn"]),
                "answer_id": t["answer_id"],
                "question": t["question"],
                "prev_answer": _clean(t["prev_answer"]),
            }
            for t in turns.to_dict("records")
        ],
    }


def check(store) -> dict:
    """Re-anchor every stored citation whose document has a new version or was removed."""
    with store.writer_lock():
        rows, report = provenance.check_edges(
            store.table("answer_edges"), store.table("documents"), store.doc_blocks
        )
        if not rows.empty:
            store.commit(Change(rows={"answer_edges": rows}))
    counts = {f: sum(r["fate"] == f for r in report) for f in provenance.FATES}
    return {"checked": len(report), **counts, "citations": report}


def _clean(v):
    if v is None or (isinstance(v, float) and v != v):
        return None
    if hasattr(v, "item"):
        return v.item()
    return v


def _answer_dict(a) -> dict:
    d = {k: _clean(v) for k, v in dict(a).items()}
    for k in ("groups", "versions", "payload"):
        if isinstance(d.get(k), str):
            d[k] = json.loads(d[k])
    d.pop("source_docs", None)
    d["payload"] = d.get("payload") or {}
    return d


def _edge_dict(e: dict) -> dict:
    d = {k: _clean(v) for k, v in e.items() if k not in ("source_docs", "usr", "answer_id")}
    if isinstance(d.get("detail"), str):
        d["detail"] = json.loads(d["detail"])
    return {k: v for k, v in d.items() if v is not None}
