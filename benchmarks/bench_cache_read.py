"""Reading the parse cache's Parquet files with and without Arrow's thread pool, side by side.

The cache reads each table from bytes it has checksummed (``parsing/store.load_checked``) with
``use_threads=False, pre_buffer=False``: with the pool, ``read_table`` over an in-memory buffer
can leave work on Arrow's IO threads that aborts the process at exit (apache/arrow#33975). This
measures what the pool would buy on real cached documents, alternating the two modes in one run.

    python benchmarks/bench_cache_read.py ARTIFACTS_DIR [--repeat 5]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path


def read_all(files: list[bytes], threads: bool) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    for data in files:
        pq.read_table(pa.BufferReader(data), use_threads=threads, pre_buffer=threads).to_pandas()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("artifacts", help="a parse cache folder (-o DIR of parse/eval)")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    docs = [d for d in Path(args.artifacts).glob("*/*") if (d / "manifest.json").exists()]
    files = [f.read_bytes() for d in docs for f in sorted(d.glob("*.parquet"))]
    if not files:
        raise SystemExit(f"{args.artifacts}: no cached documents (a folder of <doc_id>/<key>/ entries)")
    size = sum(map(len, files))
    print(f"{len(docs)} cached documents, {len(files)} Parquet files, {size / 1e6:.1f} MB")
    read_all(files, True)  # warm imports and the page cache
    best = {True: [], False: []}
    for _ in range(args.repeat):
        for threads in (False, True):
            c0, w0 = time.process_time(), time.perf_counter()
            read_all(files, threads)
            best[threads].append((time.process_time() - c0, time.perf_counter() - w0))
    for threads in (False, True):
        cpu = sorted(c for c, _ in best[threads])[len(best[threads]) // 2]
        wall = sorted(w for _, w in best[threads])[len(best[threads]) // 2]
        print(
            f"threads={'on ' if threads else 'off'}  median CPU {cpu * 1000:7.1f} ms  wall {wall * 1000:7.1f} ms"
        )
    off = sorted(w for _, w in best[False])[args.repeat // 2]
    on = sorted(w for _, w in best[True])[args.repeat // 2]
    print(f"wall ratio off/on: {off / on:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
