"""List questions of the NIST dev set through the router and the list path, plus a search baseline.

    python scripts/list_eval.py [--corpus ../shared/corpus/nist] [--cache /work/nist-cache-13]
                                [--records-out DIR] [--report] [--k 5]
    python scripts/list_eval.py --store STORE   # the real path: Corpus.ask list vs search

With ``--store`` (a store ``docintel ingest`` built from the same PDFs and groups file), every list
question goes through ``Corpus.ask`` (router -> list path over the store's records, access in the
query) and the same question through the corpus search path (``paths.search.run``: the store's
keyword index, then the single-document loop); the search path's recall is the share of items in
its answer and evidence text.

Parses every PDF (Parquet cache reused), extracts records, prints the completeness report
(--report), then for each ``list`` question: the route, the count against expected_count, every
item present, access (no record from a document the user cannot read). The same questions go
through a keyword search baseline (BM25 over text blocks of the readable documents, top k) for
comparison: the share of items its evidence contains.
"""

from __future__ import annotations

import argparse
import json
import re
import unicodedata
from pathlib import Path

import pandas as pd

from docintel.corpus.completeness import completeness, render_completeness
from docintel.corpus.curated import write_records_json
from docintel.corpus.listing import list_records, record_vocabulary
from docintel.corpus.records import extract_records
from docintel.corpus.router import route
from docintel.parsing import parse_document

ROOT = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "nist"


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().lower()


def load(corpus: Path, cache: str) -> tuple[dict, dict]:
    tables, names = {}, {}
    for pdf in sorted((corpus / "pdfs").glob("*.pdf")):
        d = parse_document(pdf, layout="never", out_dir=cache)
        tables[d.doc_id], names[d.doc_id] = d, pdf.name
    return tables, names


_INDEX: dict[frozenset, tuple] = {}


def search_baseline(tables: dict, readable: set[str], question: str, k: int) -> str:
    """Top-k text blocks by BM25 over the readable documents (a stand-in for the search path)."""
    import bm25s

    key = frozenset(readable)
    if key not in _INDEX:  # one index per access set (two users), built once
        blocks = []
        for doc_id in sorted(readable):
            lines = tables[doc_id].line_df
            for _, g in lines.groupby(["page", "block"], sort=True):
                blocks.append(" ".join(g["text"].astype(str)))
        retriever = bm25s.BM25()
        retriever.index(bm25s.tokenize(blocks, stopwords="en", show_progress=False), show_progress=False)
        _INDEX[key] = (retriever, blocks)
    retriever, blocks = _INDEX[key]
    res, _ = retriever.retrieve(
        bm25s.tokenize([question], stopwords="en", show_progress=False), k=k, show_progress=False
    )
    return " ".join(blocks[int(i)] for i in res[0])


def store_eval(store: str, corpus: Path) -> None:
    from docintel.corpus import Corpus
    from docintel.corpus.paths import search

    c = Corpus(store)
    qs = [json.loads(x) for x in (corpus / "dev_questions.jsonl").read_text().splitlines() if x.strip()]
    groups = json.loads((corpus / "groups.json").read_text())
    files = c.store.table("documents").set_index("doc_id")["file"].to_dict()
    passed = n = 0
    rl, rs = [], []
    for q in (q for q in qs if q["route"] == "list"):
        n += 1
        user = set(groups["users"][q["user"]])
        readable = {f for f, g in groups["documents"].items() if user & set(g)}
        out = c.ask(q["question"], q["user"], store_answer=False)
        text = norm(out["answer"])
        items = [norm(i) for i in q.get("items", [])]
        present = sum(i in text for i in items)
        cited = {files.get(cit["doc_id"]) for cit in out["citations"]}
        leak = not cited <= readable or any(norm(x) in text for x in q.get("must_not_contain", []))
        empty_ok = q["expected_count"] != 0 or "none that you can access" in text
        ok = (
            out["route"] == "list"
            and out.get("count") == q["expected_count"]
            and present == len(items)
            and not leak
            and empty_ok
        )
        passed += ok
        s_out = search.run(c, q["question"], q["user"])
        s_text = norm(" ".join([s_out["answer"], *(e.get("text", "") for e in s_out["evidence"])]))
        s_present = sum(i in s_text for i in items)
        rl.append(present / len(items) if items else 1.0)
        rs.append(s_present / len(items) if items else 1.0)
        print(
            f"{'PASS' if ok else 'FAIL'} {q['id']:7} {q['user']:8} route={out['route']:6} "
            f"type={out.get('record_type')} filters={out.get('filters')} count={out.get('count')} "
            f"expected={q['expected_count']} items={present}/{len(items)} leak={leak} "
            f"cited_docs={len(cited)} | search path items={s_present}/{len(items)} "
            f"doc={(s_out.get('document') or {}).get('file')}"
        )
    c.close()
    print(f"\nlist questions passed (store path): {passed}/{n}")
    print(f"item recall: list path {sum(rl) / n:.2f}, search path {sum(rs) / n:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(ROOT))
    ap.add_argument("--cache", default="/work/nist-cache-13")
    ap.add_argument("--records-out", default=None, help="write <DIR>/<type>/records.json")
    ap.add_argument("--report", action="store_true", help="print the completeness report")
    ap.add_argument("--k", type=int, default=5, help="search baseline: blocks kept")
    ap.add_argument("--store", default=None, help="measure Corpus.ask over this ingested store")
    args = ap.parse_args()
    corpus = Path(args.corpus)
    if args.store:
        store_eval(args.store, corpus)
        return
    tables, names = load(corpus, args.cache)
    by_name = {v: k for k, v in names.items()}
    records = pd.concat([extract_records(t) for t in tables.values()], ignore_index=True)
    if args.records_out:
        write_records_json(records, args.records_out)
    if args.report:
        print(render_completeness(completeness(records, tables, doc_names=names), records, doc_names=names))
        print()
    groups = json.loads((corpus / "groups.json").read_text())
    vocab = record_vocabulary(records)
    qs = [json.loads(x) for x in (corpus / "dev_questions.jsonl").read_text().splitlines() if x.strip()]
    passed = n = 0
    recall_list, recall_search = [], []
    for q in (q for q in qs if q["route"] == "list"):
        n += 1
        user = set(groups["users"][q["user"]])
        readable = {by_name[f] for f, g in groups["documents"].items() if user & set(g)}
        proposal, _ = route(q["question"], vocabulary=vocab)
        ans = list_records(records, proposal, readable, doc_names=names) if proposal.path == "list" else None
        text = norm(ans.answer) if ans else ""
        items = [norm(i) for i in q.get("items", [])]
        present = [i for i in items if i in text]
        leak = bool(ans) and any(it.doc_id not in readable for it in ans.items)
        leak |= any(norm(s) in text for s in q.get("must_not_contain", []))
        empty_ok = q["expected_count"] != 0 or (ans is not None and "none that you can access" in text)
        count = ans.count if ans else None
        ok = (
            proposal.path == "list"
            and count == q["expected_count"]
            and len(present) == len(items)
            and not leak
            and empty_ok
        )
        passed += ok
        recall_list.append(len(present) / len(items) if items else 1.0)
        found = norm(search_baseline(tables, readable, q["question"], args.k))
        s_present = sum(i in found for i in items)
        recall_search.append(s_present / len(items) if items else 1.0)
        print(
            f"{'PASS' if ok else 'FAIL'} {q['id']:7} {q['user']:8} route={proposal.path:6} "
            f"type={proposal.record_type} filters={proposal.filters} count={count} expected={q['expected_count']} "
            f"items={len(present)}/{len(items)} leak={leak} | search top-{args.k} items={s_present}/{len(items)}"
        )
    print(f"\nlist questions passed: {passed}/{n}")
    print(
        f"item recall: list path {sum(recall_list) / n:.2f}, search top-{args.k} {sum(recall_search) / n:.2f}"
    )


if __name__ == "__main__":
    main()
