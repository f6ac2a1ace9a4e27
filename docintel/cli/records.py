"""``docintel records``: the completeness report of a corpus store's records.

Reads the records ingest stored (and the evidence of each type's second count stored beside
them), the curated records of ``STORE/curated/*.json``, and the ``records.json`` files of the
last run; prints "N of M" per document and type, then the NEEDS REVIEW lines. The full view (no
``--as``, no ``--type``) rewrites ``<out>/<type>/records.json`` so a change in the documents
shows up as a diff. ``--as USER`` reports only what USER may read and writes nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

from docintel.errors import UsageError


def add_parser(sub) -> None:
    p = sub.add_parser("records", help="completeness report of a corpus store's records")
    p.add_argument("--corpus", required=True, metavar="STORE", help="store folder or postgresql:// DSN")
    p.add_argument("--docs", default=None, metavar="DIR", help="per-document cache of a Postgres store")
    p.add_argument("--type", dest="record_type", default=None, metavar="T", help="one record type")
    p.add_argument("--as", dest="user", default=None, metavar="USER", help="report only what USER may read")
    p.add_argument("--curated", default=None, metavar="DIR", help="curated records (default STORE/curated)")
    p.add_argument("--out", default=None, metavar="DIR", help="records.json folder (default STORE/records)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run)


def _previous(folder: Path | None):
    import pandas as pd

    from docintel.corpus.records import RECORD_COLUMNS

    rows = []
    for path in sorted(folder.glob("*/records.json")) if folder and folder.is_dir() else []:
        try:
            rows += json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise UsageError(f"{path}: not valid JSON ({exc})") from None
    return pd.DataFrame(rows, columns=RECORD_COLUMNS) if rows else None


def report(args) -> dict:
    """The report as data: records, per-document rows, NEEDS REVIEW lines, files written."""
    import pandas as pd

    from docintel.corpus.completeness import completeness_from_evidence, render_completeness
    from docintel.corpus.curated import load_curated, write_records_json
    from docintel.corpus.record_ingest import readable_rows
    from docintel.corpus.records import RECORD_TYPES, split_evidence
    from docintel.corpus.store import is_postgres
    from docintel.corpus.stores import open_store

    if args.record_type and args.record_type not in RECORD_TYPES:
        raise UsageError(f"unknown record type {args.record_type!r}; known: {', '.join(RECORD_TYPES)}")
    folder = None if is_postgres(args.corpus) else Path(args.corpus)
    if folder is not None and not folder.is_dir():
        raise UsageError(f"{folder}: no such corpus store")
    store = open_store(args.corpus, **({"docs_dir": args.docs} if args.docs else {}))
    try:
        if args.user:
            docs, rows = store.readable_documents(args.user), readable_rows(store, args.user)
        else:  # the builder's view: every document
            docs, rows = store.table("documents"), readable_rows(store, None)
    finally:
        store.close()
    docs = docs[docs["superseded_by"].isna()]
    current = set(docs["doc_id"])
    records, evidence = split_evidence(rows)
    curated_dir = Path(args.curated) if args.curated else (folder / "curated" if folder else None)
    if curated_dir is not None and curated_dir.is_dir():
        cur = load_curated(curated_dir)
        records = pd.concat([df for df in (records, cur) if len(df)] or [records], ignore_index=True)
    records = records[records["doc_id"].isin(current)].reset_index(drop=True)
    types = [RECORD_TYPES[args.record_type]] if args.record_type else list(RECORD_TYPES.values())
    if args.record_type:
        records = records[records["record_type"] == args.record_type].reset_index(drop=True)
    out_dir = Path(args.out) if args.out else (folder / "records" if folder else None)
    previous = _previous(out_dir)
    if previous is not None:
        previous = previous[previous["doc_id"].isin(current)]
        if args.record_type:
            previous = previous[previous["record_type"] == args.record_type]
    names = dict(zip(docs["doc_id"], docs["file"], strict=False))
    rep = completeness_from_evidence(
        records,
        {d: e for d, e in evidence.items() if d in current},
        types,
        previous=previous,
        doc_names=names,
    )
    written = []
    if out_dir is not None and not args.user and not args.record_type:
        plain = records.drop(columns=["block_id"], errors="ignore").astype(object)
        written = [str(p) for p in write_records_json(plain.where(plain.notna(), None), out_dir)]
    text = render_completeness(rep, records, doc_names=names)
    review = [m for r in rep.itertuples() for m in json.loads(r.needs_review)]
    per_doc = [
        {
            "record_type": r.record_type,
            "document": names.get(r.doc_id, r.doc_id),
            "extracted": None if pd.isna(r.extracted) else int(r.extracted),
            "second_count": None if pd.isna(r.second_count) else int(r.second_count),
            "method": r.method,
        }
        for r in rep.itertuples()
        if r.method != "previous build"
    ]
    counts = records.groupby("record_type").size().to_dict() if len(records) else {}
    return {
        "text": text,
        "records": {k: int(v) for k, v in sorted(counts.items())},
        "documents": per_doc,
        "needs_review": review,
        "written": written,
    }


def run(args) -> int:
    res = report(args)
    if args.json:
        print(json.dumps({k: v for k, v in res.items() if k != "text"}, indent=2, ensure_ascii=False))
    else:
        print(res["text"])
        if res["written"]:
            print(
                f"records.json rewritten: {len(res['written'])} type(s) under {Path(res['written'][0]).parents[1]}"
            )
    return 0
