"""The search path: the best blocks across the documents the user may read, then the existing
single-document reference loop inside the winning document.

A reference in the answer to another publication that the corpus holds and the user may read
("as specified in SP 800-53") is resolved to that document: its best block for the question is
added to the evidence, and the reference is listed under ``corpus_references`` instead of
being left external. Nothing the user may not read is searched, ranked or counted, and the
"not found" wording is the same whether nothing exists or nothing is readable.
"""

from __future__ import annotations

import functools
import time

from docintel.corpus.access import NO_MATCH

#: How many blocks the index returns before the winning document is chosen.
TOP_BLOCKS = 20
#: Parsed documents kept in memory between asks (the per-document cache is the source of truth).
TABLES_HELD = 8


def doc_info(row) -> dict:
    return {
        "doc_id": row["doc_id"],
        "file": row["file"],
        "title": row["title"],
        "publication_id": row["publication_id"],
        "status": row["status"],
    }


def not_found(question: str, trace: dict) -> dict:
    trace["events"].append({"event": "not_found"})
    return {
        "question": question,
        "route": "search",
        "doc_id": None,
        "document": None,
        "answer": NO_MATCH,
        "citations": [],
        "pending_references": [],
        "external_references": [],
        "corpus_references": [],
        "conditions": [],
        "answer_completeness": "not_found",
        "loop_count": 0,
        "passes": [],
        "evidence": [],
        "resolutions": [],
        "unresolved": [],
        "warnings": [],
        "trace": trace,
    }


def _load_tables(corpus, row):
    """The winning document's tables from the per-document cache (a few stay in memory)."""
    from docintel.errors import DocumentError
    from docintel.parsing import store as cache

    held = corpus.tables_cache
    if row["cache_dir"] in held:
        held[row["cache_dir"]] = held.pop(row["cache_dir"])  # most recent last
        return held[row["cache_dir"]]
    tables = cache.load(row["cache_dir"]) if row["cache_dir"] else None
    if tables is None:
        raise DocumentError(
            f"{row['file']}: its parsed tables are missing from the store ({row['cache_dir']}); ingest it again"
        )
    tables.path = row["path"]
    held[row["cache_dir"]] = tables
    while len(held) > TABLES_HELD:
        held.pop(next(iter(held)))
    return tables


#: A document's score is the sum of its best few block scores. With adjacent-term pairs in the
#: index (``index.PAIR_WEIGHT``) the best block alone picked the evidence document for 11/13 NIST
#: dev questions, the best two or three for 10/13 (without pairs: 9/13 and 10/13).
WINNER_BLOCKS = 1


def _winner(hits) -> str:
    """The document whose best ``WINNER_BLOCKS`` blocks score highest (first seen wins ties)."""
    scores: dict[str, list[float]] = {}
    for _, doc_id, score in hits:
        scores.setdefault(doc_id, []).append(score)
    return max(scores, key=lambda d: sum(sorted(scores[d], reverse=True)[:WINNER_BLOCKS]))


#: How many of the winning document's best blocks open its reference loop (pass 1).
FIRST_HOP_BLOCKS = 4


def _first_hop(corpus, question: str, user, doc_id: str) -> list[tuple[int, int, int]]:
    """(page, line_start, line_end) of the winning document's best blocks, best first, ranked
    on their own text: the document's title, indexed with each of its blocks to choose the
    document, would inside it only favour the shortest blocks."""
    hits = corpus.index.search(corpus.store, question, [doc_id], k=FIRST_HOP_BLOCKS, body=True)
    rows = corpus.store.blocks(user, [h[0] for h in hits]).set_index("block_id")  # access re-checked
    return [
        (int(rows.loc[b, "page"]), int(rows.loc[b, "line_start"]), int(rows.loc[b, "line_end"]))
        for b, _, _ in hits
        if b in rows.index
    ]


@functools.lru_cache(maxsize=4096)
def _ident_key(name) -> tuple[str, str | None, str | None, str | None] | None:
    """(canonical id, volume, revision, footnote) of a publication name, by the corpus identifier
    normalizer; names it has no kind for ("Contract No. ...") by the store's identity patterns.
    The normalizer reads a trailing digit it cannot place as a footnote ("SP 800-903" is
    "SP 800-90" + note 3): two names whose footnotes differ are not the same publication."""
    from docintel.corpus.identifiers import EXTERNAL_KINDS, normalize
    from docintel.corpus.identity import canonical

    if not isinstance(name, str) or not name.strip():
        return None
    ident = normalize(name)
    if ident is not None and ident.kind in EXTERNAL_KINDS:
        return ident.canonical, ident.attr("volume"), ident.revision, ident.attr("footnote")
    other = canonical(name)
    return (other[0], None, other[1], None) if other else None


def _held(docs, key, exclude: str):
    """The readable documents that are the publication ``key`` names (any revision; one volume
    when the reference names it), same revision first, else the newest held one first."""
    canon, vol, rev, note = key
    rows = []
    for row in docs.itertuples(index=False):
        k = _ident_key(row.publication_id)
        if row.doc_id == exclude or k is None or k[0] != canon or (vol and k[1] != vol):
            continue
        if note and k[3] and note != k[3]:
            continue
        rows.append((k[2] == rev if rev else False, _rev_order(k[2]), row.doc_id))
    rows.sort(reverse=True)
    if rows and not vol:  # no volume named: every volume of the newest matching revision
        top = rows[0][:2]
        return [d for *r, d in rows if tuple(r) == top]
    return [d for *_, d in rows[:1]]


def _rev_order(rev: str | None) -> tuple:
    if not rev:
        return (0, 0, "")
    num = "".join(ch for ch in rev if ch.isdigit())
    return (1, int(num) if num else 0, rev)


def _corpus_references(corpus, out: dict, docs, question: str, user) -> list[dict]:
    """Resolve the answer's external references that name a readable corpus document: the
    document's best block for the question joins the evidence, labelled; the rest stay external."""
    by_id = docs.set_index("doc_id", drop=False)
    resolved, keep, added = [], [], set()
    for ext in out["external_references"]:
        key = _ident_key(ext.get("name", ""))
        cands = _held(docs, key, out["doc_id"]) if key else []
        hits = corpus.index.search(corpus.store, question, cands, k=1) if cands else []
        blocks = corpus.store.blocks(user, [hits[0][0]]) if hits else None  # access re-checked
        if blocks is None or blocks.empty:
            keep.append(ext)
            continue
        b = blocks.iloc[0]
        pick = by_id.loc[b["doc_id"]]
        held_rev = _ident_key(pick["publication_id"])[2]
        ref = {
            "name": ext["name"],
            "document": doc_info(pick),
            "revision_matches": not key[2] or held_rev == key[2],
            "origin_page": ext.get("origin_page"),
            "page": int(b["page"]),
        }
        resolved.append(ref)
        if b["block_id"] in added:  # another spelling of a publication already resolved
            continue
        added.add(b["block_id"])
        out["evidence"].append(
            {
                "doc_id": b["doc_id"],
                "document": doc_info(pick),
                "page": int(b["page"]),
                "line_start": int(b["line_start"]),
                "line_end": int(b["line_end"]),
                "text": b["text"],
                "retrieved_via": "reference",
                "referenced_from": [ext.get("origin_page"), ext.get("origin_line")],
                "reference_text": ext["name"],
                "note": f"the corpus document {pick['file']} named by '{ext['name']}'",
            }
        )
    out["external_references"] = keep
    if resolved:
        names = "; ".join(
            f"{r['name']} is {r['document']['file']} in this corpus (page {r['page']}"
            + ("" if r["revision_matches"] else ", another revision")
            + ")"
            for r in resolved
        )
        out["answer"] = out["answer"].rstrip() + f" Corpus reference(s): {names}."
    return resolved


def run(
    corpus, question: str, user: str | None, *, backend=None, top_k: int | None = None, grown: bool = True
) -> dict:
    """Answer ``question`` for ``user`` over the documents they may read (the ask --json object).
    ``grown``: the first hop's answer budget grows with its passages (``single.ask_document``)."""
    from docintel.corpus.single import ask_document

    t0 = time.perf_counter()
    trace: dict = {"route": "search", "events": [], "timings": {}}
    docs = corpus.store.readable_documents(user)
    if docs.empty:
        return not_found(question, trace)
    hits = corpus.index.search(corpus.store, question, docs["doc_id"].tolist(), k=TOP_BLOCKS)
    trace["timings"]["search"] = round(time.perf_counter() - t0, 6)
    if not hits:
        return not_found(question, trace)
    blocks = corpus.store.blocks(user, [h[0] for h in hits]).set_index("block_id")
    hits = [h for h in hits if h[0] in blocks.index]  # the store re-checks access
    if not hits:
        return not_found(question, trace)
    by_id = docs.set_index("doc_id", drop=False)
    trace["events"].append(
        {
            "event": "blocks",
            "hits": [
                {
                    "block_id": b,
                    "file": by_id.loc[d, "file"],
                    "page": int(blocks.loc[b, "page"]),
                    "score": round(s, 4),
                }
                for b, d, s in hits[:10]
            ],
        }
    )
    win = by_id.loc[_winner(hits)]
    trace["events"].append(
        {
            "event": "winner",
            "file": win["file"],
            "doc_id": win["doc_id"],
            "rule": f"sum of best {WINNER_BLOCKS} blocks",
        }
    )
    first = _first_hop(corpus, question, user, win["doc_id"])
    trace["events"].append({"event": "first_hop", "spans": [list(f) for f in first]})
    tables = _load_tables(corpus, win)
    t1 = time.perf_counter()
    result = ask_document(tables, question, backend=backend, top_k=top_k, first_hop=first, grown=grown)
    trace["timings"]["document_ask"] = round(time.perf_counter() - t1, 6)
    out = result.to_json_dict()
    out.pop("trace_path", None)
    out["route"] = "search"
    out["document"] = doc_info(win)
    for c in out["citations"]:
        c["document"] = doc_info(by_id.loc[c.get("doc_id") or win["doc_id"]])
    for e in out["evidence"]:
        e["doc_id"] = win["doc_id"]
        e["document"] = doc_info(win)
    out["corpus_references"] = _corpus_references(corpus, out, docs, question, user)
    trace["timings"]["total"] = round(time.perf_counter() - t0, 6)
    out["trace"] = trace
    return out
