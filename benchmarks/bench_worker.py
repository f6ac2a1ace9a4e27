"""Overhead of the budgeted parse worker: parse_document with and without it, interleaved.

python benchmarks/bench_worker.py [PDF ...]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from docintel.parsing import parse_document  # noqa: E402
from docintel.parsing.budget import Budget  # noqa: E402


def main(paths: list[str]) -> int:
    import docintel.parsing.pymupdf_backend  # noqa: F401  (imported once, before the first fork)

    for f in paths or ["pdfs/nist_sp800-106.pdf", "tests/data/fixtures/two_columns.pdf"]:
        times: dict[bool, list[float]] = {True: [], False: []}
        parse_document(f, out_dir=None, layout="never", ocr="never", budget=Budget(worker=False))  # warm
        for _ in range(4):
            for worker in (True, False):
                t = time.perf_counter()
                parse_document(f, out_dir=None, layout="never", ocr="never", budget=Budget(worker=worker))
                times[worker].append(time.perf_counter() - t)
        print(
            f"{f}: worker median {statistics.median(times[True]):.3f} s, "
            f"in-process median {statistics.median(times[False]):.3f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
