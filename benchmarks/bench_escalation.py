"""Which pages escalate to the layout model, and why: the fast path's signals over real PDFs.

Usage: python benchmarks/bench_escalation.py [PDF ...] [--pages]

Without PDFs it reads eight NIST SPs of ../shared/corpus/nist/pdfs (1,495 pages). Each document's
page stage runs with ``--layout auto`` but the model's boxes stubbed out (``layout._boxes``
returns none), so this is cheap and measures the decision only: per document the pages, the pages
escalated and the pages the budget skipped, then (``--pages``) every escalated or skipped page with
its signals. Asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
NIST = REPO.parent / "shared" / "corpus" / "nist" / "pdfs"
DEFAULT = ["sp800-60v2r1", "sp800-161", "sp800-82r2", "sp800-34r1", "sp800-53r3", "sp800-37r1", "sp800-30r1",
           "sp800-61r2"]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pdfs", nargs="*", type=Path)
    ap.add_argument("--pages", action="store_true", help="list every escalated or skipped page")
    args = ap.parse_args(argv)
    paths = args.pdfs or [NIST / f"{name}.pdf" for name in DEFAULT]
    from docintel.parsing import layout
    from docintel.parsing import pdf as pdfmod
    from docintel.parsing import pymupdf_backend as b

    layout._boxes = lambda page: []  # the decision only: no model
    totals = [0, 0, 0]
    lines = []
    print(f"| {'document':24s} | pages | escalated | skipped |\n|{'-' * 26}|------:|----------:|--------:|")
    for path in paths:
        data = pdfmod.read_pdf_bytes(path)
        doc = pdfmod.open_pdf(data, name=path.name)
        t = b.parse_with_pymupdf(
            doc, pdfmod.doc_id_for(data), layout_mode="auto", ocr_mode="never", pages_only=True
        )
        pdf_ = t.page_df
        esc = pdf_[pdf_["parse_method"] == "layout"]
        sig = pdf_["escalation_signals"].fillna("")
        skipped = pdf_[sig.str.startswith("layout_budget_skipped")]
        row = [len(pdf_), len(esc), len(skipped)]
        totals = [a + b_ for a, b_ in zip(totals, row, strict=True)]
        print(f"| {path.stem:24s} | {row[0]:5d} | {row[1]:9d} | {row[2]:7d} |")
        for r in pdf_[(pdf_["parse_method"] == "layout") | sig.str.startswith("layout_budget")].itertuples():
            lines.append(f"  {path.stem} p{int(r.page)} [{r.parse_method}]: {r.escalation_signals}")
        doc.close()
    print(f"| {'total':24s} | {totals[0]:5d} | {totals[1]:9d} | {totals[2]:7d} |")
    if args.pages:
        print("\n" + "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
