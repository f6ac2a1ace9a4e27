"""Warm `ask` latency with the offline backend, beside the cold parse and the raw text floor.

Usage: python benchmarks/bench_ask.py [PDF ...] [--repeat N]

For each PDF: the raw PyMuPDF get_text("dict") time over all pages (the
floor), docintel's cold parse (no cache), and warm asks (tables cached:
question parsing + retrieval + generation + resolution + pass 2) for a few
generic questions. Figures are printed side by side so that ratios, not
absolute seconds, are compared on these noisy machines.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PDFS = [
    REPO.parent / "shared" / "eval" / "pdfs" / "attention_1706.03762v7.pdf",
    REPO / "pdfs" / "nist_sp800-106.pdf",
    REPO / "pdfs" / "faa_ad_nprm_2020-17221.pdf",
]
# Generic questions: they exercise retrieval and the loop on any document.
QUESTIONS = [
    "What is the main contribution described in the introduction?",
    "What results are reported in Table 1?",
    "What does Section 2 say about the scope?",
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pdfs", nargs="*", type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    import pymupdf

    from docintel.api import ask, parse

    pdfs = [p for p in (args.pdfs or DEFAULT_PDFS) if p.exists()]
    print(
        f"{'pdf':<34}{'pages':>6}{'floor s':>9}{'parse s':>9}{'ask ms (median)':>17}{'ask ms (max)':>14}"
        f"{'ask/floor':>11}{'loops':>7}"
    )
    for pdf in pdfs:
        doc = pymupdf.open(pdf)
        t0 = time.perf_counter()
        for page in doc:
            page.get_text("dict")
        floor = time.perf_counter() - t0
        n = doc.page_count
        doc.close()
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            tables = parse(pdf, out_dir=tmp, use_cache=False)
            cold = time.perf_counter() - t0
            ask(pdf, QUESTIONS[0], backend="offline", out_dir=tmp, write_trace=False)  # warm-up imports
            times, loops = [], 0
            for _ in range(args.repeat):
                for q in QUESTIONS:
                    t0 = time.perf_counter()
                    res = ask(pdf, q, backend="offline", out_dir=tmp, trace_path=Path(tmp) / "t.json")
                    times.append(time.perf_counter() - t0)
                    loops += res.loop_count
            del tables
        med, worst = statistics.median(times), max(times)
        print(
            f"{pdf.name[:33]:<34}{n:>6}{floor:>9.3f}{cold:>9.2f}{med * 1000:>17.1f}{worst * 1000:>14.1f}"
            f"{med / floor:>11.2f}{loops / len(times):>7.2f}"
        )
    print(
        "ask = warm (tables cached in Parquet), offline backend, trace written; floor = raw get_text('dict')"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
