"""Provenance of a stored answer: the answer row and its edges, and re-anchoring them.

One corpus ask becomes one ``answers`` row and its ``answer_edges`` (both declared in
:data:`docintel.corpus.store.TABLES`):

- ``ABOUT``: what the answer is about, by keys that survive re-parsing: ``ident:<canonical id>``
  (identifiers in the question, the answer and its quotes), ``record:<type>:<key>`` (records whose
  lines the answer cites), ``term:<comparison form>`` (pulled-in definitions).
- ``SOURCED_FROM``: each source document, ``target`` its publication identity (publication id,
  else file name), with its ``doc_id`` and ``sha256``.
- ``CITES``: each citation: ``block_id``, page, lines, the quote and ``quote_sha`` (sha256 of
  the quote's comparison form).
- ``VIA``: the reference or corpus link that brought a passage in (``detail.cites`` names the
  CITES edge).
- ``VISITED``: the agent path's steps, when the answer carries them (``visited``).
- ``NEXT_TURN``: the previous answer of the same conversation.

Edges are never deleted: ``status`` is ``current``, ``superseded`` (a newer edge ``replaces``
it after re-ingestion) or ``removed`` (its document was removed); ``fate`` says what
:func:`check_edges` found (found / moved / gone / removed).
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid

import pandas as pd

from docintel.corpus.store import ANSWERS_FORMAT_KEY, TABLE_COLUMNS

EDGE_KINDS = ("ABOUT", "SOURCED_FROM", "CITES", "VIA", "VISITED", "NEXT_TURN")
STATUSES = ("current", "superseded", "removed")
FATES = ("found", "moved", "gone", "removed")
#: ``documents.superseded_by`` of a removed document (its row stays as a tombstone, so the
#: answers that cite it keep its access groups).
REMOVED = "removed"
#: The stored-answer format :func:`build_record` writes (``versions[ANSWERS_FORMAT_KEY]``): 2 is
#: "``source_docs`` holds every document the answer names"; rows without it show to their asker only.
ANSWERS_FORMAT = 2


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def quote_sha(quote: str) -> str:
    from docintel.text import comparison_form

    return sha(comparison_form(quote or ""))


def new_answer_id() -> str:
    return "a-" + uuid.uuid4().hex[:16]


def edge_id(answer_id: str, kind: str, *parts) -> str:
    return "e-" + sha("\x1f".join([answer_id, kind, *map(str, parts)]))[:20]


def _identity(doc: dict) -> str:
    pub = doc.get("publication_id")
    return str(pub) if isinstance(pub, str) and pub else str(doc.get("file") or doc.get("doc_id"))


def block_of(blocks: pd.DataFrame, doc_id: str, page: int, line_start: int, line_end: int):
    """The block of ``doc_id`` holding the cited lines (the first one they overlap), or None."""
    if blocks is None or blocks.empty:
        return None
    b = blocks[(blocks["doc_id"] == doc_id) & (blocks["page"].astype(int) == int(page))]
    b = b[(b["line_start"].astype(int) <= int(line_end)) & (b["line_end"].astype(int) >= int(line_start))]
    return None if b.empty else b.sort_values("line_start").iloc[0]


def _spanned(c: dict, blocks: pd.DataFrame | None) -> dict | None:
    """A citation with its page and line span: an agent's cites a block by id only, so its span
    is the block's (None when the block is not in ``blocks``)."""
    if c.get("page") is not None and c.get("line_start") is not None and c.get("line_end") is not None:
        return c
    bid = c.get("block_id")
    if not bid or blocks is None or blocks.empty:
        return None
    b = blocks[blocks["block_id"].astype(str) == str(bid)]
    if b.empty:
        return None
    r = b.iloc[0]
    span = {"page": int(r["page"]), "line_start": int(r["line_start"]), "line_end": int(r["line_end"])}
    return {**c, **span}


def _about_keys(out: dict, records: pd.DataFrame | None, publications: list[str]) -> list[tuple[str, dict]]:
    from docintel.corpus.identifiers import find_identifiers
    from docintel.corpus.identity import canonical
    from docintel.text import comparison_form

    keys: dict[str, dict] = {}
    texts = [out.get("question") or ""] + [c.get("quote") or "" for c in out.get("citations", [])]
    for text in texts:
        for m in find_identifiers(text):
            keys.setdefault(f"ident:{m.ident.canonical}", {"full": m.ident.full, "kind": m.ident.kind})
    for ref in out.get("corpus_references", []) + out.get("external_references", []):
        texts.append(ref.get("name") or "")
        for m in find_identifiers(ref.get("name") or ""):
            keys.setdefault(f"ident:{m.ident.canonical}", {"full": m.ident.full, "kind": m.ident.kind})
    for text in texts:  # the publication spelling documents.publication_base uses, too
        key = canonical(text)
        if key:
            keys.setdefault(f"ident:{key[0]}", {"revision": key[1]} if key[1] else {})
    for pub in publications:  # the source documents' own identities
        keys.setdefault(f"ident:{pub}", {"source": True})
    for c in out.get("citations", []):
        if c.get("retrieved_via") == "definition" and c.get("reference_text"):
            keys.setdefault(f"term:{comparison_form(c['reference_text'])}", {"term": c["reference_text"]})
    for item in out.get("items", []) or []:  # the list path's records
        if isinstance(item, dict) and item.get("record_type") and item.get("key"):
            keys.setdefault(f"record:{item['record_type']}:{item['key']}", {})
    if records is not None and not records.empty:
        for c in out.get("citations", []):
            d = c.get("doc_id") or out.get("doc_id")
            r = records[(records["doc_id"] == d) & (records["page"].astype("Int64") == int(c["page"]))]
            for rec in r.itertuples(index=False):
                lo, hi = rec.line_start, rec.line_end if pd.notna(rec.line_end) else rec.line_start
                if pd.notna(lo) and int(lo) <= int(c["line_end"]) and int(hi) >= int(c["line_start"]):
                    keys.setdefault(f"record:{rec.record_type}:{rec.key}", {"record_id": rec.record_id})
    return list(keys.items())


#: Output keys that are not part of the stored answer (a path's working notes).
_NOT_STORED = frozenset({"trace"})


#: Keys that name one document / several documents (the corpus tools' rows use the last two).
_ONE_DOC = frozenset({"doc_id", "citing_doc"})
_MANY_DOCS = frozenset({"doc_ids", "cited_docs"})


def _doc_ids_in(x, found: set[str]) -> None:
    """Every document id anywhere inside ``x`` (dicts and lists, any depth): ``doc_id`` /
    ``doc_ids``, a tool row's ``citing_doc`` / ``cited_docs`` and an exploration node ``doc:<id>``."""
    if isinstance(x, dict):
        for k, v in x.items():
            if k in _ONE_DOC and v:
                found.add(str(v))
            elif k in _MANY_DOCS and isinstance(v, (list, tuple, set)):
                found.update(str(d) for d in v if d)
            elif k == "id" and isinstance(v, str) and v.startswith("doc:") and len(v) > 4:
                found.add(v[4:])
            else:
                _doc_ids_in(v, found)
    elif isinstance(x, (list, tuple)):
        for v in x:
            _doc_ids_in(v, found)


def _with_source(source_docs, new: str) -> str:
    """``source_docs`` with a re-anchored document added; an asker-only row ("") stays so."""
    old = str(source_docs or "")
    return "|".join(sorted({*old.split("|"), new} - {""})) if old else ""


def unattributed(out: dict) -> bool:
    """An agent's tool result holds a row that names no document (an ``sql`` row of block text,
    a count): its text may come from any document the asker could read, so no list of sources
    is complete and the stored answer is the asker's alone."""
    for entry in out.get("ledger", []) or []:
        for row in (entry.get("rows") or []) if isinstance(entry, dict) else []:
            found: set[str] = set()
            _doc_ids_in(row, found)
            if not found:
                return True
    return False


def source_doc_ids(out: dict) -> list[str]:
    """The documents an answer drew on: every document named anywhere in it (citations, the
    winner, corpus references, evidence, links, editions, an agent's steps), not a list of the
    keys some path fills. A reader must be able to read all of them to list or show the answer,
    so a path that puts a document's text, name or page into its output says so with the
    document's ``doc_id`` next to it and is covered without a change here."""
    found: set[str] = set()
    for c in out.get("citations", []):  # a citation without its own doc_id is the winner's
        if not c.get("doc_id") and out.get("doc_id"):
            found.add(str(out["doc_id"]))
    _doc_ids_in({k: v for k, v in out.items() if k not in _NOT_STORED}, found)
    return sorted(found)


def build_record(
    out: dict,
    *,
    user: str | None,
    groups: list[str],
    documents: pd.DataFrame,
    blocks: pd.DataFrame,
    records: pd.DataFrame | None = None,
    conversation: str | None = None,
    turn: int = 1,
    prev_answer: str | None = None,
    backend: str | None = None,
    answer_id: str | None = None,
) -> tuple[dict, pd.DataFrame]:
    """The ``answers`` row and the ``answer_edges`` rows of one ask's output ``out``."""
    from docintel import __version__
    from docintel.schema.tables import SCHEMA_VERSION

    aid = answer_id or new_answer_id()
    stamp = now()
    docs = documents.set_index("doc_id", drop=False) if not documents.empty else documents
    sources = source_doc_ids(out)
    src = "" if unattributed(out) else "|".join(sources)  # "" shows to the asker only
    spans = [_spanned(c, blocks) for c in out.get("citations", [])]
    out = {**out, "citations": [c for c in spans if c is not None]}  # edges need a line span
    edges: list[dict] = []

    def edge(kind: str, target: str, *key, **cols) -> dict:
        row = {
            "edge_id": edge_id(aid, kind, target, *key),
            "answer_id": aid,
            "usr": user or "",
            "kind": kind,
            "target": target,
            "status": "current",
            "source_docs": src,
            "created_at": stamp,
            "updated_at": stamp,
            **cols,
        }
        edges.append(row)
        return row

    pubs = [
        str(docs.loc[d, "publication_base"])
        for d in sources
        if d in docs.index
        and isinstance(docs.loc[d, "publication_base"], str)
        and docs.loc[d, "publication_base"]
    ]
    for key, detail in _about_keys(out, records, pubs):
        edge("ABOUT", key, detail=json.dumps(detail, ensure_ascii=False) if detail else None)
    for d in sources:
        doc = docs.loc[d].to_dict() if d in docs.index else {"doc_id": d}
        edge("SOURCED_FROM", _identity(doc), d, doc_id=d, sha256=doc.get("sha256"))
    for i, c in enumerate(out.get("citations", []), 1):
        d = c.get("doc_id") or out.get("doc_id")
        b = block_of(blocks, d, c["page"], c["line_start"], c["line_end"])
        cite = edge(
            "CITES",
            str(b["block_id"]) if b is not None else f"{d}:{c['page']}:{c['line_start']}",
            i,
            doc_id=d,
            sha256=docs.loc[d, "sha256"] if d in docs.index else None,
            block_id=str(b["block_id"]) if b is not None else None,
            page=int(c["page"]),
            line_start=int(c["line_start"]),
            line_end=int(c["line_end"]),
            quote=c.get("quote") or "",
            quote_sha=quote_sha(c.get("quote") or ""),
            via=c.get("retrieved_via") or "primary",
        )
        if c.get("retrieved_via") not in (None, "primary") and c.get("reference_text"):
            edge(
                "VIA",
                c["reference_text"],
                i,
                doc_id=d,
                via=c["retrieved_via"],
                detail=json.dumps({"cites": cite["edge_id"], "referenced_from": c.get("referenced_from")}),
            )
    for r in out.get("corpus_references", []):
        doc = r.get("document") or {}
        edge(
            "VIA",
            r.get("name") or "",
            doc.get("doc_id"),
            doc_id=doc.get("doc_id"),
            page=r.get("page"),
            via="corpus_reference",
            detail=json.dumps(
                {"origin_page": r.get("origin_page"), "revision_matches": r.get("revision_matches")}
            ),
        )
    for i, step in enumerate(out.get("visited", []) or [], 1):
        s = step if isinstance(step, dict) else {"step": step}
        edge("VISITED", str(s.get("tool") or s.get("step") or s), i, detail=json.dumps(s, default=str))
    if prev_answer:
        edge("NEXT_TURN", prev_answer)
    payload = {
        k: out.get(k)
        for k in ("citations", "external_references", "corpus_references", "conditions", "warnings")
    }
    versions = {
        ANSWERS_FORMAT_KEY: ANSWERS_FORMAT,  # source_docs counts every doc id (store._ANSWER_ROWS)
        "docintel": __version__,
        "schema": SCHEMA_VERSION,
        "builds": {d: docs.loc[d, "parser_version"] for d in sources if d in docs.index},
    }
    row = {
        "answer_id": aid,
        "conversation": conversation or aid,
        "turn": int(turn),
        "prev_answer": prev_answer,
        "usr": user or "",
        "groups": json.dumps(list(groups)),
        "question": out.get("question") or "",
        "route": out.get("route"),
        "route_proposed": out.get("route_proposed"),
        "answer": out.get("answer") or "",
        "completeness": out.get("answer_completeness"),
        "backend": backend or "offline",
        "versions": json.dumps(versions, default=str),
        "doc_id": out.get("doc_id"),
        "payload": json.dumps(payload, ensure_ascii=False, default=str),
        "source_docs": src,
        "created_at": stamp,
    }
    frame = pd.DataFrame(edges).reindex(columns=TABLE_COLUMNS["answer_edges"])
    return row, frame.drop_duplicates(subset=["edge_id"]).reset_index(drop=True)


# -- re-anchoring after re-ingestion -------------------------------------------------------


def live_version(documents: pd.DataFrame, doc_id: str) -> str | None:
    """The current version of ``doc_id`` (itself when live); None when removed or unknown."""
    by_id = documents.set_index("doc_id")
    seen = set()
    d = doc_id
    while d in by_id.index and d not in seen:
        seen.add(d)
        nxt = by_id.loc[d, "superseded_by"]
        if not isinstance(nxt, str) or not nxt:
            return d
        if nxt == REMOVED:
            return None
        d = nxt
    return None


def locate(quote: str, blocks: pd.DataFrame):
    """Where ``quote`` is in ``blocks`` (one document's, reading order): the block row or None.

    Compared in :func:`docintel.text.comparison_form`, over the blocks joined, so a quote that
    runs across a block boundary is still found (the block it starts in is returned)."""
    from docintel.text import comparison_form

    q = comparison_form(quote or "")
    if not q or blocks.empty:
        return None
    rows = blocks.sort_values(["page", "line_start"]).reset_index(drop=True)
    parts, starts, pos = [], [], 0
    for t in rows["text"].fillna(""):
        f = comparison_form(str(t))
        starts.append(pos)
        parts.append(f)
        pos += len(f) + 1
    at = " ".join(parts).find(q)
    if at < 0:
        return None
    i = max(k for k, s in enumerate(starts) if s <= at)
    return rows.iloc[i]


def check_edges(edges: pd.DataFrame, documents: pd.DataFrame, doc_blocks) -> tuple[pd.DataFrame, list[dict]]:
    """Re-anchor the current edges whose document is no longer current.

    ``doc_blocks(doc_ids)`` returns those documents' blocks. Returns the edge rows to upsert
    (old ones with their new status and fate, new current ones that replace them) and one
    report row per CITES edge checked. Idempotent: a second run finds nothing to do.
    """
    stamp = now()
    cur = edges[(edges["status"] == "current") & edges["doc_id"].notna()]
    live_ids = set(documents.loc[documents["superseded_by"].isna(), "doc_id"])
    stale = cur[~cur["doc_id"].isin(live_ids)]
    if stale.empty:
        return edges.iloc[0:0], []
    target_of = {d: live_version(documents, d) for d in stale["doc_id"].unique()}
    live_docs = [d for d in set(target_of.values()) if d]
    blocks = doc_blocks(live_docs) if live_docs else pd.DataFrame(columns=["doc_id"])
    docs = documents.set_index("doc_id", drop=False)
    out: list[dict] = []
    report: list[dict] = []
    anchored: dict[tuple[str, str], bool] = {}  # (answer_id, new doc) -> any quote re-anchored
    for e in stale.to_dict("records"):
        new = target_of[e["doc_id"]]
        if new is None:
            out.append({**e, "status": "removed", "fate": "removed", "updated_at": stamp})
            if e["kind"] == "CITES":
                report.append(_report(e, "removed", None))
            continue
        if e["kind"] != "CITES":
            continue
        hit = locate(e["quote"], blocks[blocks["doc_id"] == new]) if not blocks.empty else None
        if hit is None:
            fate = "gone"
        else:
            same = (
                int(hit["page"]) == int(e["page"])
                and int(hit["line_start"]) <= int(e["line_end"])
                and int(hit["line_end"]) >= int(e["line_start"])
            )
            fate = "found" if same else "moved"
        out.append({**e, "status": "superseded", "fate": fate, "updated_at": stamp})
        report.append(_report(e, fate, hit))
        if hit is not None:
            anchored[(e["answer_id"], new)] = True
            src = _with_source(e["source_docs"], new)
            out.append(
                {
                    **e,
                    "edge_id": edge_id(e["edge_id"], "CITES", new),
                    "target": str(hit["block_id"]),
                    "doc_id": new,
                    "sha256": docs.loc[new, "sha256"],
                    "block_id": str(hit["block_id"]),
                    "page": int(hit["page"]),
                    "line_start": int(hit["line_start"]),
                    "line_end": int(hit["line_end"]),
                    "status": "current",
                    "fate": fate,
                    "replaces": e["edge_id"],
                    "source_docs": src,
                    "created_at": stamp,
                    "updated_at": stamp,
                }
            )
    for e in stale.to_dict("records"):  # SOURCED_FROM / VIA follow their document's citations
        new = target_of[e["doc_id"]]
        if new is None or e["kind"] == "CITES":
            continue
        out.append({**e, "status": "superseded", "updated_at": stamp})
        if e["kind"] == "SOURCED_FROM" and anchored.get((e["answer_id"], new)):
            doc = docs.loc[new].to_dict()
            src = _with_source(e["source_docs"], new)
            out.append(
                {
                    **e,
                    "edge_id": edge_id(e["edge_id"], "SOURCED_FROM", new),
                    "target": _identity(doc),
                    "doc_id": new,
                    "sha256": doc.get("sha256"),
                    "status": "current",
                    "replaces": e["edge_id"],
                    "source_docs": src,
                    "created_at": stamp,
                    "updated_at": stamp,
                }
            )
    frame = pd.DataFrame(out).reindex(columns=TABLE_COLUMNS["answer_edges"])
    return frame, report


def _report(e: dict, fate: str, hit) -> dict:
    return {
        "answer_id": e["answer_id"],
        "edge_id": e["edge_id"],
        "doc_id": e["doc_id"],
        "quote": e["quote"],
        "fate": fate,
        "was": [int(e["page"]), int(e["line_start"]), int(e["line_end"])],
        "now": None if hit is None else [int(hit["page"]), int(hit["line_start"]), int(hit["line_end"])],
        "now_doc": None if hit is None else hit["doc_id"],
    }


def removed_edges(edges: pd.DataFrame, doc_ids: set[str]) -> pd.DataFrame:
    """The current edges of removed documents, marked removed (to upsert in the removing commit)."""
    hit = edges[(edges["status"] == "current") & edges["doc_id"].isin(doc_ids)].copy()
    hit["status"] = "removed"
    hit["fate"] = "removed"
    hit["updated_at"] = now()
    return hit.reindex(columns=TABLE_COLUMNS["answer_edges"])
