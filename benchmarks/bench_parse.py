"""Parsing speed: pages/second of the PyMuPDF page stage against the raw get_text("dict") floor.

Usage:
    python benchmarks/bench_parse.py [PDF ...] [--modes never,auto,always] [--full] [--repeat N]

Without PDFs it reads the dev set (../shared/eval/pdfs/*.pdf and pdfs/*.pdf, deduplicated
by content). For each mode it times the page stage (text lines, signals, furniture, page
labels and layout escalation: ``parse_with_pymupdf(..., pages_only=True)``), and with
``--full`` also the whole ``parse_document`` (no cache).
The floor is one ``page.get_text("dict")`` per page. It prints one table (pages/s and
ratio of time to the floor) and which pages ``auto`` escalated and why. It asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def dev_pdfs() -> list[Path]:
    """The dev PDFs, each distinct file once."""
    seen: set[str] = set()
    out = []
    for p in sorted((REPO.parent / "shared" / "eval" / "pdfs").glob("*.pdf")) + sorted(
        (REPO / "pdfs").glob("*.pdf")
    ):
        h = hashlib.sha256(p.read_bytes()).hexdigest()
        if h not in seen:
            seen.add(h)
            out.append(p)
    return out


def floor(paths: list[Path]) -> tuple[int, float]:
    import pymupdf

    pages, secs = 0, 0.0
    for p in paths:
        doc = pymupdf.open(p)
        t0 = time.perf_counter()
        for page in doc:
            page.get_text("dict")
        secs += time.perf_counter() - t0
        pages += doc.page_count
        doc.close()
    return pages, secs


def page_stage(paths: list[Path], mode: str, ocr: str = "never") -> tuple[float, list[tuple[str, int, str]]]:
    """Seconds for the page stage over ``paths``; escalated (file, page, signals)."""
    return _Stub.run(paths, mode, ocr)


def full(paths: list[Path], mode: str, ocr: str = "never") -> tuple[float, int]:
    """Seconds for the whole parse over ``paths``, and how many pages were OCR'd."""
    from docintel.parsing import parse_document

    t0 = time.perf_counter()
    ocr_pages = 0
    for p in paths:
        tables = parse_document(p, layout=mode, ocr=ocr, out_dir=None)
        ocr_pages += int((tables.page_df["parse_method"] == "ocr").sum())
    return time.perf_counter() - t0, ocr_pages


class _Stub:
    """The page stage alone: ``parse_with_pymupdf(..., pages_only=True)``."""

    @staticmethod
    def run(paths: list[Path], mode: str, ocr: str) -> tuple[float, list[tuple[str, int, str]]]:
        from docintel.parsing import pdf as pdfmod
        from docintel.parsing import pymupdf_backend as b

        escalated = []
        secs = 0.0
        for path in paths:
            data = pdfmod.read_pdf_bytes(path)
            doc = pdfmod.open_pdf(data, name=path.name)
            t0 = time.perf_counter()
            tables = b.parse_with_pymupdf(
                doc, pdfmod.doc_id_for(data), layout_mode=mode, ocr_mode=ocr, pages_only=True
            )
            secs += time.perf_counter() - t0
            doc.close()
            pdf_ = tables.page_df
            for r in pdf_[pdf_["parse_method"] == "layout"].itertuples():
                escalated.append((path.name, int(r.page), str(r.escalation_signals)))
        return secs, escalated


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pdfs", nargs="*", type=Path)
    ap.add_argument("--modes", default="never,auto,always")
    ap.add_argument("--full", action="store_true", help="also time the whole parse_document (all stages)")
    ap.add_argument("--repeat", type=int, default=1, help="best of N runs (layout=always runs once)")
    ap.add_argument(
        "--ocr",
        choices=["never", "auto"],
        default="never",
        help="OCR image-only pages in the layout rows (default never: the floor reads only the text layer); "
        "--full always adds one 'auto --ocr auto' row",
    )
    args = ap.parse_args(argv)
    paths = args.pdfs or dev_pdfs()
    import pymupdf
    import pymupdf.layout  # noqa: F401  (load the model before timing, as a long-running process would)

    print(f"pymupdf {pymupdf.__version__}; {len(paths)} PDFs: {', '.join(p.name for p in paths)}")
    pages, floor_s = min((floor(paths) for _ in range(args.repeat)), key=lambda r: r[1])
    rows = [("raw get_text('dict') (floor)", floor_s)]
    escalated: list[tuple[str, int, str]] = []
    for mode in args.modes.split(","):
        runs = 1 if mode == "always" else args.repeat
        best = min((page_stage(paths, mode, args.ocr) for _ in range(runs)), key=lambda r: r[0])
        rows.append((f"docintel page stage --layout {mode}", best[0]))
        if mode == "auto":
            escalated = best[1]
        if args.full:
            rows.append((f"docintel parse_document --layout {mode}", full(paths, mode, args.ocr)[0]))
    ocr_note = ""
    if args.full and args.ocr == "never":
        secs, n_ocr = full(paths, "auto", "auto")
        rows.append(("docintel parse_document --layout auto --ocr auto", secs))
        ocr_note = f"--ocr auto read {n_ocr} image-only page(s) with Tesseract"
    print(f"\n{pages} pages\n")
    print(f"| {'what':40s} | {'seconds':>8s} | {'pages/s':>8s} | {'time / floor':>12s} |")
    print(f"|{'-' * 42}|{'-' * 10}|{'-' * 10}|{'-' * 14}|")
    for name, secs in rows:
        print(f"| {name:40s} | {secs:8.3f} | {pages / secs:8.1f} | {secs / floor_s:11.2f}x |")
    if ocr_note:
        print(f"\n{ocr_note}")
    print(f"\nauto escalated {len(escalated)} of {pages} pages:")
    for name, page, sig in escalated:
        print(f"  {name} p{page}: {sig}")


if __name__ == "__main__":
    main()
