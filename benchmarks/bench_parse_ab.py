"""Whole-parse CPU of two source trees side by side, as multiples of the image-free raw floor, in one run.

Usage:
    python benchmarks/bench_parse_ab.py --before DIR [--after DIR] [--layout never] [--repeat N] [--pages-only] [PDF ...]

``DIR`` is a checkout of the repository (``git archive <commit> | tar -x -C DIR``); ``--after``
defaults to this tree. For each PDF (default: the three long NIST SPs sp800-53r3, sp800-82r2,
sp800-60v2r1) it measures the floor, ``get_text("dict")`` of every page with
``TEXT_PRESERVE_IMAGES`` off (what the fast path asks for), in this process, then runs
``parse_document(layout=..., ocr="never", out_dir=None)`` in a fresh subprocess per tree
(``DOCINTEL_PARSE_WORKER=0``; imports not timed: pandas, pyarrow, pymupdf and the page
loop's modules are imported before the clock starts, as the floor's process has pymupdf
imported), interleaved, best CPU seconds of ``--repeat``.
``--pages-only`` times the page stage alone (lines, signals, furniture, labels, OCR, text tables:
``parse_with_pymupdf(..., pages_only=True)`` on an open document, no structure stages).
The CPU is shared, so read the ratios to the floor measured in the same run. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NIST = Path(os.environ.get("DOCINTEL_SHARED", REPO.parent / "shared")) / "corpus" / "nist" / "pdfs"
DEFAULT = [NIST / "sp800-53r3.pdf", NIST / "sp800-82r2.pdf", NIST / "sp800-60v2r1.pdf"]

_CHILD = """
import os, sys
from docintel.parsing import parse_document
# what parse_document imports lazily on its first call: process start-up, as the floor's own
# ``import pymupdf`` is (first-use work such as compiling the reference grammar stays timed)
import pandas, pyarrow.parquet, pymupdf
from docintel.parsing import pymupdf_backend
def cpu():  # this process and its waited-for children (the layout pool's forked workers)
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system
if sys.argv[3] == "pages":
    from docintel.parsing import pdf, pymupdf_backend
    data = pdf.read_pdf_bytes(sys.argv[1])
    doc = pdf.open_pdf(data, name=sys.argv[1])
    t = cpu()
    pymupdf_backend.parse_with_pymupdf(
        doc, pdf.doc_id_for(data), layout_mode=sys.argv[2], ocr_mode="never", pages_only=True
    )
else:
    t = cpu()
    parse_document(sys.argv[1], layout=sys.argv[2], ocr="never", out_dir=None)
print(cpu() - t)
"""


def floor(path: Path) -> tuple[int, float]:
    import pymupdf

    doc = pymupdf.open(path)
    flags = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES
    t = time.process_time()
    for page in doc:
        page.get_text("dict", flags=flags)
    return doc.page_count, time.process_time() - t


def parse_cpu(tree: Path, path: Path, layout: str, what: str = "all") -> float:
    env = {**os.environ, "PYTHONPATH": str(tree), "DOCINTEL_PARSE_WORKER": "0"}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path), layout, what],
        env=env,
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pdfs", nargs="*", type=Path)
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, default=REPO)
    ap.add_argument("--layout", default="never")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--pages-only", action="store_true", help="time the page stage alone")
    args = ap.parse_args(argv)
    what = "pages" if args.pages_only else "all"
    paths = args.pdfs or DEFAULT
    stage = "; page stage only" if args.pages_only else ""
    print(f"--layout {args.layout}{stage}; before {args.before}; after {args.after}; best of {args.repeat}\n")
    print(f"| {'PDF':28s} | pages | floor s | before s | x floor | after s | x floor | after/before |")
    print(f"|{'-' * 30}|------:|--------:|---------:|--------:|--------:|--------:|-------------:|")
    tot = [0, 0.0, 0.0, 0.0]
    for p in paths:
        pages, fl = min((floor(p) for _ in range(args.repeat)), key=lambda r: r[1])
        b = a = float("inf")
        for _ in range(args.repeat):
            b = min(b, parse_cpu(args.before, p, args.layout, what))
            a = min(a, parse_cpu(args.after, p, args.layout, what))
        print(
            f"| {p.name:28s} | {pages:5d} | {fl:7.2f} | {b:8.2f} | {b / fl:6.1f}x | {a:7.2f} | {a / fl:6.1f}x | {a / b:11.2f}x |"
        )
        tot = [tot[0] + pages, tot[1] + fl, tot[2] + b, tot[3] + a]
    n, fl, b, a = tot
    print(
        f"| {'all':28s} | {n:5d} | {fl:7.2f} | {b:8.2f} | {b / fl:6.1f}x | {a:7.2f} | {a / fl:6.1f}x | {a / b:11.2f}x |"
    )


if __name__ == "__main__":
    main()
