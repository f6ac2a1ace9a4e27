"""Corpus mode on the NIST dev corpus: ingest (serial vs Dask), re-ingest, store size, ask
latency (corpus vs single document, and as the corpus grows), dev-question scores and access.

Usage:
  python benchmarks/bench_corpus.py ingest  --pdfs DIR --work DIR [--layout never] [--workers 2]
  python benchmarks/bench_corpus.py latency --store STORE --pdfs DIR --questions Q.jsonl --work DIR
  python benchmarks/bench_corpus.py size    --store STORE --pdfs DIR
  python benchmarks/bench_corpus.py eval    --store STORE [--postgres]
  python benchmarks/bench_corpus.py burst   --store STORE --work DIR   (stored answers vs generations)

`ingest` runs each mode in its own process (so peak memory is per mode): a serial ingest and a
Dask ingest with N local worker processes into fresh stores, then the serial store again
(unchanged: the no-op cost). `latency` asks every search question on the whole store and on
stores of the first 10 and 20 documents (sharing the whole store's parse cache), and the same
question as a single-document ask on its evidence document.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _child_ingest(args) -> int:
    from docintel.corpus.ingest import ingest

    s = ingest(
        args.store,
        [args.pdfs],
        groups_file=args.groups,
        workers=args.workers or None,
        parse_options={"layout": args.layout, "ocr": "never"},
    )
    rss = max(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    )
    out = s.to_dict()
    out["peak_rss_mb"] = round(rss / 1024, 1)
    out["peak_rss_self_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(
        json.dumps(
            {
                k: out[k]
                for k in (
                    "parsed",
                    "unchanged",
                    "pages",
                    "seconds",
                    "pages_per_second",
                    "failures",
                    "executor",
                    "peak_rss_mb",
                    "peak_rss_self_mb",
                )
            }
        )
    )
    return 0


def _run(*argv) -> dict:
    res = subprocess.run([sys.executable, __file__, *argv], capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def _du(path: Path) -> int:
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


def cmd_ingest(args) -> int:
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    rows = {}
    for mode, workers in (("serial", 0), (f"dask-{args.workers}", args.workers)):
        store = work / f"ingest-{mode}"
        shutil.rmtree(store, ignore_errors=True)
        rows[mode] = _run(
            "_ingest",
            "--store",
            str(store),
            "--pdfs",
            args.pdfs,
            "--groups",
            args.groups,
            "--layout",
            args.layout,
            "--workers",
            str(workers),
        )
        print(mode, json.dumps(rows[mode]), flush=True)
    rows["reingest-unchanged"] = _run(
        "_ingest",
        "--store",
        str(work / "ingest-serial"),
        "--pdfs",
        args.pdfs,
        "--groups",
        args.groups,
        "--layout",
        args.layout,
        "--workers",
        "0",
    )
    print("reingest", json.dumps(rows["reingest-unchanged"]), flush=True)
    r = rows["reingest-unchanged"]["seconds"] / rows["serial"]["seconds"]
    print(f"re-ingest unchanged / first: {100 * r:.2f}%")
    print(_size_line(work / "ingest-serial", Path(args.pdfs)))
    return 0


def _size_line(store: Path, pdfs: Path) -> str:
    """The store's size by part against the PDFs it holds."""
    mib = 2**20
    return (
        f"store {_du(store) / mib:.1f} MiB (docs {_du(store / 'docs') / mib:.1f}, tables "
        f"{_du(store / 'tables') / mib:.1f}, index {_du(store / 'index') / mib:.1f}) vs PDFs {_du(pdfs) / mib:.1f} MiB"
    )


def cmd_size(args) -> int:
    print(_size_line(Path(args.store), Path(args.pdfs)))
    return 0


def _median_ask(corpus, questions, repeat) -> tuple[float, float, float]:
    """Median (wall, keyword search, everything but the winning document's own ask) seconds."""
    times, search, rest = [], [], []
    for q in questions:
        corpus.ask(
            q["question"], q["user"], store_answer=False
        )  # warm: tables loaded once, as a served store would
        for _ in range(repeat):
            t0 = time.perf_counter()
            out = corpus.ask(q["question"], q["user"], store_answer=False)
            wall = time.perf_counter() - t0
            times.append(wall)
            tm = out.get("trace", {}).get("timings", {})
            search.append(tm.get("search", 0.0))
            rest.append(wall - tm.get("document_ask", 0.0))
    return statistics.median(times), statistics.median(search), statistics.median(rest)


def cmd_latency(args) -> int:
    """Every subset holds the search questions' evidence documents (then the other files in
    name order), so each size answers the same questions from the same documents: what grows
    with the corpus is then the corpus part of the ask, not a different winning document."""
    import docintel
    from docintel.corpus import Corpus
    from docintel.corpus.evaluate import load_questions, norm

    qs = [q for q in load_questions(args.questions) if q["route"] == "search"]
    whole = Corpus(args.store)
    docs_dir = Path(args.store) / "docs"
    files = sorted(p for p in Path(args.pdfs).iterdir() if p.suffix == ".pdf")
    needed = {e["doc"] for q in qs for e in q["evidence"]}
    files = [f for f in files if f.name in needed] + [f for f in files if f.name not in needed]
    sizes = {}
    for n in (10, 20):
        n = max(n, len(needed))
        sub = Path(args.work) / f"subset-{n}"
        shutil.rmtree(sub, ignore_errors=True)
        (sub / "in").mkdir(parents=True)
        for f in files[:n]:
            os.symlink(f, sub / "in" / f.name)
        Corpus.ingest(
            sub / "store",
            [sub / "in"],
            groups_file=args.groups,
            docs_dir=docs_dir,
            parse_options={
                "layout": args.layout,
                "ocr": args.ocr or ("never" if args.layout == "never" else "auto"),
            },
        )
        sizes[n] = Corpus(sub / "store", docs_dir=docs_dir)
    sizes[len(files)] = whole
    print(f"evidence documents of the {len(qs)} search questions: {len(needed)} (in every subset)")
    for n, c in sizes.items():
        wall, search, rest = _median_ask(c, qs, args.repeat)
        print(
            f"corpus of {n} documents: median ask {1000 * wall:.0f} ms (keyword search {1000 * search:.1f} ms,"
            f" all but the winning document's ask {1000 * rest:.0f} ms)",
            flush=True,
        )
    single = []
    complete = 0
    for q in qs:
        pdf = Path(args.pdfs) / q["evidence"][0]["doc"]
        kw = {"out_dir": str(docs_dir), "layout": args.layout, "write_trace": False}
        res = docintel.ask(pdf, q["question"], **kw)
        ev = norm(" ".join(e["text"] for e in res.evidence))
        complete += all(norm(m) in ev for m in q["answer_must_contain"])
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            docintel.ask(pdf, q["question"], **kw)
            single.append(time.perf_counter() - t0)
    print(
        f"single-document ask on the evidence document: median {1000 * statistics.median(single):.0f} ms;"
        f" evidence complete {complete}/{len(qs)} (the single-document loop alone, retrieving by itself)"
    )
    return 0


def cmd_eval(args) -> int:
    """Dev-question scores and the access sweep on the embedded store, then on PostgreSQL."""
    from docintel.corpus import Corpus
    from docintel.corpus.evaluate import load_questions, run_eval

    qs = load_questions(args.questions)
    users = ["analyst", "reviewer"]
    stores = [("embedded", args.store, None)]
    cluster = None
    if args.postgres:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from tests.corpus_fixtures import PgCluster, pg_bin

        cluster = PgCluster(pg_bin()).start()
    try:
        if cluster is not None:
            dsn = cluster.create_db("bench")
            docs = Path(args.store) / "docs"  # the embedded store's parse cache: no re-parse
            t0 = time.perf_counter()
            opts = {"layout": args.layout, "ocr": args.ocr or ("never" if args.layout == "never" else "auto")}
            s = Corpus.ingest(dsn, [args.pdfs], groups_file=args.groups, docs_dir=docs, parse_options=opts)
            print(
                f"postgres ingest from the parse cache: {time.perf_counter() - t0:.1f}s, {s.parsed} documents"
            )
            stores.append(("postgres", dsn, docs))
        for kind, loc, docs in stores:
            c = Corpus(loc, docs_dir=docs)
            t0 = time.perf_counter()
            res = run_eval(c, qs, routes=("search",), users=users)
            n = res["questions"]
            print(
                f"{kind}: search evidence complete {res['evidence_complete']}/{n}, answer complete "
                f"{res['answer_complete']}/{n}, route {res['route_ok']}/{n}, leaks {res['leaks']}; "
                f"access sweep {res['sweep_runs']} runs as {', '.join(users)}: leaks {res['sweep_leaks']}; "
                f"median ask {res['ask_seconds_median']}s; {time.perf_counter() - t0:.0f}s",
                flush=True,
            )
            for r in res["rows"]:
                if not r["evidence_complete"] or r["leaks"]:
                    print(
                        f"  miss {r['id']} {r['document']} pages {r['pages']} missing {r['missing']} leaks {r['leaks']}"
                    )
                elif r["answer_missing"]:
                    print(
                        f"  answer miss {r['id']} {r['document']}: in the evidence, not the answer {r['answer_missing']}"
                    )
            for sw in res["sweep"]:
                print(f"  LEAK {sw}")
            c.close()
    finally:
        if cluster is not None:
            cluster.stop()
    return 0


def cmd_burst(args) -> int:
    """Every dev question asked and stored on a copy of STORE: the generation before and after,
    what a reader opened before the burst reads, and the time of each answer's save."""
    from docintel.corpus import Corpus
    from docintel.corpus.evaluate import load_questions

    qs = load_questions(args.questions)
    dst = Path(args.work) / "burst-store"
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(args.store, dst, symlinks=True, ignore=shutil.ignore_patterns("docs"))
    docs = Path(args.store) / "docs"  # the parse cache is shared, not copied
    c = Corpus(dst, docs_dir=docs)
    reader = Corpus(dst, docs_dir=docs)
    g0 = c.store.generation()
    saves = []
    from docintel.corpus.answers import save

    for q in qs:
        out = c.ask(q["question"], q["user"], store_answer=False)
        t0 = time.perf_counter()
        save(c.store, out, q["user"])  # what ``ask`` does after answering
        saves.append(time.perf_counter() - t0)
    parts = dst / "answers"
    n_parts = len([p for p in parts.iterdir() if not p.name.startswith(".")]) if parts.exists() else 0
    gens = sorted(p.name for p in (dst / "tables").iterdir() if not p.name.startswith("."))
    print(
        f"{len(qs)} asks stored: generation {g0} -> {c.store.generation()} (folders {', '.join(gens)}),"
        f" {n_parts} answer parts; the reader opened before reads {len(reader.store.table('answers'))} answers"
        f" and its generation's files exist: {(dst / 'tables' / reader.store.generation()).exists()};"
        f" save cost median {1000 * statistics.median(saves):.0f} ms"
    )
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    nist = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "nist"
    for name in ("ingest", "_ingest", "latency", "size", "eval", "burst"):
        p = sub.add_parser(name)
        p.add_argument("--pdfs", default=str(nist / "pdfs"))
        p.add_argument("--groups", default=str(nist / "groups.json"))
        p.add_argument("--questions", default=str(nist / "dev_questions.jsonl"))
        p.add_argument("--work", default="/tmp/docintel-bench-corpus")
        p.add_argument("--store", default=None)
        p.add_argument("--layout", default="auto")
        p.add_argument(
            "--ocr",
            default=None,
            help="latency/eval: the parse option of STORE (default: never with --layout never)",
        )
        p.add_argument("--workers", type=int, default=2)
        p.add_argument("--repeat", type=int, default=3)
        p.add_argument("--postgres", action="store_true", help="eval: also on a throwaway PostgreSQL")
    args = ap.parse_args()
    return {
        "ingest": cmd_ingest,
        "_ingest": _child_ingest,
        "latency": cmd_latency,
        "size": cmd_size,
        "eval": cmd_eval,
        "burst": cmd_burst,
    }[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
