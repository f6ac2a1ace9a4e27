"""Which pages escalate to the layout model, and why: the fast path's signals over real PDFs.

Usage: python benchmarks/bench_escalation.py [PDF ...] [--pages] [--value]

Without PDFs it reads eight NIST SPs of ../shared/corpus/nist/pdfs (1,495 pages). Each document's
page stage runs with ``--layout auto`` but the model's boxes stubbed out (``layout._boxes``
returns none), so this is cheap and measures the decision only: per document the pages, the pages
escalated, the pages the budget skipped and the candidates whose regions hold no heading-like
line (``layout_no_gain``), then (``--pages``) every escalated or skipped page with
its signals. ``--value`` instead parses each document whole twice (``parse_document``, ``auto``
with the real model and ``never``) and prints, per page the model read, what it changed in the
tables: toc entries on that page found only without the model (table cells read as headings),
the page's objects (type:label:rows x cols:cells) when they differ, and the line roles it changed.
Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
NIST = Path(os.environ.get("DOCINTEL_SHARED", REPO.parent / "shared")) / "corpus" / "nist" / "pdfs"
DEFAULT = ["sp800-60v2r1", "sp800-161", "sp800-82r2", "sp800-34r1", "sp800-53r3", "sp800-37r1", "sp800-30r1",
           "sp800-61r2"]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pdfs", nargs="*", type=Path)
    ap.add_argument("--pages", action="store_true", help="list every escalated or skipped page")
    ap.add_argument("--value", action="store_true", help="what the model changed in the final tables")
    args = ap.parse_args(argv)
    paths = args.pdfs or [NIST / f"{name}.pdf" for name in DEFAULT]
    if args.value:
        return value(paths)
    from docintel.parsing import layout
    from docintel.parsing import pdf as pdfmod
    from docintel.parsing import pymupdf_backend as b

    layout._boxes = lambda page: []  # the decision only: no model
    totals = [0, 0, 0, 0]
    lines = []
    print(
        f"| {'document':24s} | pages | escalated | skipped | no gain |\n"
        f"|{'-' * 26}|------:|----------:|--------:|--------:|"
    )
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
        no_gain = pdf_[sig.str.startswith("layout_no_gain")]
        row = [len(pdf_), len(esc), len(skipped), len(no_gain)]
        totals = [a + b_ for a, b_ in zip(totals, row, strict=True)]
        print(f"| {path.stem:24s} | {row[0]:5d} | {row[1]:9d} | {row[2]:7d} | {row[3]:7d} |")
        listed = (pdf_["parse_method"] == "layout") | sig.str.startswith(("layout_budget", "layout_no_gain"))
        for r in pdf_[listed].itertuples():
            lines.append(f"  {path.stem} p{int(r.page)} [{r.parse_method}]: {r.escalation_signals}")
        doc.close()
    t = totals
    print(f"| {'total':24s} | {t[0]:5d} | {t[1]:9d} | {t[2]:7d} | {t[3]:7d} |")
    if args.pages:
        print("\n" + "\n".join(lines))
    return 0


def _objects(t, page: int) -> list[str]:
    reg = t.object_registry[t.object_registry["page"] == page]
    cells = t.cell_df["object_key"].value_counts() if len(t.cell_df) else {}
    return sorted(
        f"{r.object_type}:{r.label}:{r.n_rows}x{r.n_cols}:{int(cells.get(r.object_key, 0))}c"
        for r in reg.itertuples()
    )


def value(paths: list[Path]) -> int:
    """Per page the model read: what it changed in the final tables (auto against never)."""
    from collections import Counter

    from docintel.parsing import parse_document

    totals = Counter()
    for path in paths:
        auto = parse_document(path, layout="auto", ocr="never", out_dir=None)
        never = parse_document(path, layout="never", ocr="never", out_dir=None)
        toc_a = Counter(zip(auto.toc_df["title"].astype(str), auto.toc_df["page_start"], strict=True))
        toc_n = Counter(zip(never.toc_df["title"].astype(str), never.toc_df["page_start"], strict=True))
        only_never = toc_n - toc_a
        pages = auto.page_df[auto.page_df["parse_method"] == "layout"]
        for r in pages.itertuples():
            p = int(r.page)
            headings = sum(n for (_, pg), n in only_never.items() if pg == p)
            objs_a, objs_n = _objects(auto, p), _objects(never, p)
            la, ln = auto.line_df[auto.line_df["page"] == p], never.line_df[never.line_df["page"] == p]
            changed = sum((Counter(la["role"].astype(str)) - Counter(ln["role"].astype(str))).values())
            totals.update(pages=1, headings=headings, objects=int(objs_a != objs_n), roles=int(changed > 0))
            diff = f" objects {objs_n} -> {objs_a}" if objs_a != objs_n else ""
            print(
                f"{path.stem} p{p}: toc entries only without the model {headings}, lines with another role {changed}{diff}"
            )
    print(
        f"\n{totals['pages']} model pages: {totals['headings']} toc entries avoided, objects changed on "
        f"{totals['objects']} pages, line roles on {totals['roles']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
