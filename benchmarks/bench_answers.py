"""Storage cost of stored answers (issue 16): bytes per answer and per edge, and the save time.

Usage:
  python benchmarks/bench_answers.py --pdfs DIR --groups GROUPS.json --questions Q.jsonl --work DIR
      [--files N] [--repeat R] [--postgres DSN]

Ingests the N smallest PDFs of DIR (layout never, OCR never) into a fresh embedded store under
--work (or the PostgreSQL database --postgres), asks every question of Q.jsonl as its user R
times (each ask stored: one answers row and its edges), then prints the stored rows, edges per
kind, and the bytes: embedded, the answers + answer_edges Parquet files of the current
generation; PostgreSQL, ``pg_total_relation_size`` of both tables (with their indexes); plus
the raw size of the rows' values. Save time is the short commit after each ask (first and
last tenth, median), the part that holds the writer lock.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pdfs", required=True)
    ap.add_argument("--groups", required=True)
    ap.add_argument("--questions", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--postgres", default=None)
    args = ap.parse_args()

    from docintel.corpus import Corpus
    from docintel.corpus.answers import save

    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    (work / "in").mkdir(parents=True)
    pdfs = sorted(Path(args.pdfs).glob("*.pdf"), key=lambda p: p.stat().st_size)[: args.files]
    for p in pdfs:
        (work / "in" / p.name).symlink_to(p.resolve())
    loc = args.postgres or str(work / "store")
    docs = work / "docs" if args.postgres else None
    t0 = time.perf_counter()
    s = Corpus.ingest(
        loc,
        [work / "in"],
        groups_file=args.groups,
        parse_options={"layout": "never", "ocr": "never"},
        docs_dir=docs,
    )
    print(f"ingest: {s.parsed} documents, {s.pages} pages, {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    c = Corpus(loc, docs_dir=docs)
    qs = [json.loads(line) for line in Path(args.questions).read_text().splitlines() if line.strip()]
    saves = []
    for _ in range(args.repeat):
        for q in qs:
            out = c.ask(q["question"], q.get("user"), store_answer=False)
            t = time.perf_counter()
            save(c.store, out, q.get("user"))
            saves.append(time.perf_counter() - t)
    answers = c.store.table("answers")
    edges = c.store.table("answer_edges")
    raw = sum(len(str(v)) for df in (answers, edges) for v in df.to_numpy().ravel() if v is not None)
    if args.postgres:
        con = c.store._own
        stored = sum(
            con.execute("SELECT pg_total_relation_size(%s)", (t,)).fetchone()[0]
            for t in ("answers", "answer_edges")
        )
        where = "PostgreSQL pg_total_relation_size(answers + answer_edges)"
    else:
        gen = Path(loc) / "tables" / c.store.generation()
        stored = sum((gen / f"{t}.parquet").stat().st_size for t in ("answers", "answer_edges"))
        where = "Parquet answers + answer_edges (one generation)"
    n = len(answers)
    tenth = max(1, n // 10)
    print(f"documents {s.parsed} ({s.pages} pages), questions {len(qs)} x {args.repeat}: {n} answers stored")
    print(f"edges {len(edges)} ({len(edges) / n:.1f} per answer): {edges['kind'].value_counts().to_dict()}")
    print(f"{where}: {stored} bytes, {stored / n:.0f} bytes per answer, {stored / len(edges):.0f} per edge")
    print(f"raw values: {raw} bytes, {raw / n:.0f} per answer")
    print(
        f"save (commit) seconds: first {tenth} median {statistics.median(saves[:tenth]):.3f},"
        f" last {tenth} median {statistics.median(saves[-tenth:]):.3f}"
    )
    c.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
