"""`docintel export --format markdown` against `pymupdf4llm.to_markdown`, side by side in one run.

Usage:
    python benchmarks/bench_export.py [PDF ...] [--gt DIR] [--json OUT.json]

Without PDFs it reads the dev set (../shared/eval/pdfs/*.pdf and pdfs/*.pdf, deduplicated by
content). For each PDF, in the same process and one after the other:

- docintel: ``parse_document`` without cache (default options) + the Markdown writer; the
  writer alone on the cached tables is reported too (a re-export);
- pymupdf4llm: ``to_markdown(path, page_chunks=True)`` with its defaults (with
  pymupdf-layout installed that is its layout mode).

Both are warmed up once on a small fixture PDF first (imports, ONNX session), so the figures
are per-document costs. Headings kept: every Markdown heading (``#`` line), placed on its
page (docintel's page anchors, pymupdf4llm's page chunks), is scored as a section against
the structure ground truth (``../shared/eval/structure/<stem>.json``) with its own scorer:
recall and precision, page exact. Tables kept: Markdown tables (a ``|`` row followed by a
``|---`` row) on the page of a ground-truth table (one-to-one per page), and the total
number of Markdown tables written. Last column: the ``toc_df`` headings (number, title, level,
page) found again after ``--format docling-json`` is mapped back by ``parse --docling-json``.
It prints one table and asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import re
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
SHARED = REPO.parent / "shared"
WARMUP_PDF = REPO / "tests" / "data" / "fixtures" / "outline_report.pdf"
_ANCHOR = re.compile(r'^<a id="page-(\d+)"></a>$')
_MARKUP = re.compile(r"<[^>]+>|\*\*|__|[*_`]")


def dev_pdfs() -> list[Path]:
    """The dev PDFs, each distinct file once."""
    seen: set[str] = set()
    out = []
    for p in sorted((SHARED / "eval" / "pdfs").glob("*.pdf")) + sorted((REPO / "pdfs").glob("*.pdf")):
        h = hashlib.sha256(p.read_bytes()).hexdigest()
        if h not in seen:
            seen.add(h)
            out.append(p)
    return out


def load_scorer(gt_dir: Path):
    spec = importlib.util.spec_from_file_location("structure_score", gt_dir / "score.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def headings(pages: dict[int, str]) -> list[dict]:
    """Markdown headings as neutral sections {number, title, page}; markup stripped."""
    out = []
    for page, text in pages.items():
        for line in text.splitlines():
            if line.startswith("#"):
                title = _MARKUP.sub("", line.lstrip("#")).strip()
                if title:
                    out.append({"number": None, "title": title, "page": page})
    return out


def tables_per_page(pages: dict[int, str]) -> dict[int, int]:
    out = {}
    for page, text in pages.items():
        lines = text.splitlines()
        n = sum(
            1
            for i in range(len(lines) - 1)
            if lines[i].lstrip().startswith("|") and re.match(r"^\s*\|\s*:?-{3}", lines[i + 1])
        )
        if n:
            out[page] = n
    return out


def split_docintel(md: str) -> dict[int, str]:
    pages: dict[int, list[str]] = {}
    cur = 0
    for line in md.splitlines():
        m = _ANCHOR.match(line.strip())
        if m:
            cur = int(m.group(1))
            continue
        pages.setdefault(cur, []).append(line)
    return {p: "\n".join(v) for p, v in pages.items()}


def _cpu() -> float:
    """CPU seconds of this process and its finished children (Tesseract runs as a child)."""
    import resource

    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ch.ru_utime + ch.ru_stime


def run_docintel(pdf: Path, out_dir: Path) -> tuple[dict[int, str], float, float, float]:
    from docintel.export.markdown import to_markdown
    from docintel.parsing import parse_document

    t0, c0 = time.perf_counter(), _cpu()
    tables = parse_document(pdf, out_dir=out_dir, use_cache=False)
    md = to_markdown(tables)
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    t1 = time.perf_counter()
    to_markdown(parse_document(pdf, out_dir=out_dir))  # a re-export from the cache
    return split_docintel(md), wall, cpu, time.perf_counter() - t1


def docling_round_trip(pdf: Path, out_dir: Path) -> str:
    """'same/total' toc_df headings (number, title, level, page) after export -> Docling mapping."""
    try:
        from docintel.export.docling_json import to_docling_json
    except ImportError:
        return "-"
    from docintel.parsing import parse_document

    tables = parse_document(pdf, out_dir=out_dir)
    path = out_dir / f"{pdf.stem}.docling.json"
    try:
        path.write_text(to_docling_json(tables))
    except Exception as exc:  # docling-core missing: the column says so
        return type(exc).__name__
    back = parse_document(pdf, docling_json=path, out_dir=None)
    cols = ["number", "title", "level", "page_start"]
    a = [tuple(r) for r in tables.toc_df[cols].astype(str).values.tolist()]
    b = {tuple(r) for r in back.toc_df[cols].astype(str).values.tolist()}
    return f"{sum(1 for r in a if r in b)}/{len(a)}"


def run_pymupdf4llm(pdf: Path) -> tuple[dict[int, str], float, float]:
    import pymupdf4llm

    # docintel defers pymupdf.layout at import (docintel/_lazy_layout.py), so pymupdf4llm fell back
    # to its legacy mode; its default is the layout mode, which is what users compare against.
    pymupdf4llm.use_layout(True)
    t0, c0 = time.perf_counter(), _cpu()
    chunks = pymupdf4llm.to_markdown(str(pdf), page_chunks=True)
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    pages = {int(c["metadata"].get("page_number") or i + 1): c["text"] for i, c in enumerate(chunks)}
    return pages, wall, cpu


def score(pages: dict[int, str], gt: dict | None, scorer) -> dict:
    secs = headings(pages)
    tpp = tables_per_page(pages)
    row = {"headings": len(secs), "tables": sum(tpp.values())}
    if gt is not None:
        s = scorer.score_sections(gt["sections"], secs, 0)
        row.update(
            sec_recall=s["recall"], sec_precision=s["precision"], sec_tp=s["tp"], sec_gt=s["n_gt_required"]
        )
        want: dict[int, int] = {}
        for o in gt["objects"]:
            if o.get("type") == "table" and not o.get("uncertain"):
                want[int(o["page"])] = want.get(int(o["page"]), 0) + 1
        row.update(
            gt_tables=sum(want.values()),
            tables_on_gt_pages=sum(min(n, tpp.get(p, 0)) for p, n in want.items()),
        )
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pdfs", nargs="*", type=Path)
    ap.add_argument("--gt", type=Path, default=SHARED / "eval" / "structure", help="structure ground truth")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows as JSON here")
    ap.add_argument("--table-from", type=Path, default=None, help="print the table of an earlier --json run")
    a = ap.parse_args(argv)
    if a.table_from:
        print_table(json.loads(a.table_from.read_text()))
        return 0
    pdfs = a.pdfs or dev_pdfs()
    if not pdfs:
        print("bench_export: no PDFs given and no dev set at ../shared/eval/pdfs", file=sys.stderr)
        return 2
    scorer = load_scorer(a.gt) if (a.gt / "score.py").is_file() else None
    if scorer is None:
        print(
            f"bench_export: no ground truth at {a.gt}; headings/tables are counted, not scored",
            file=sys.stderr,
        )
    try:
        import pymupdf4llm  # noqa: F401
    except ImportError:
        print("bench_export: needs pymupdf4llm (pip install pymupdf4llm)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        run_docintel(WARMUP_PDF, Path(tmp) / "warm")
        run_pymupdf4llm(WARMUP_PDF)
        rows = []
        for pdf in pdfs:
            gt_file = a.gt / f"{pdf.stem}.json"
            gt = json.loads(gt_file.read_text()) if scorer and gt_file.is_file() else None
            row = {"pdf": pdf.name}
            try:
                pages, wall, cpu, rerender = run_docintel(pdf, Path(tmp) / "art")
                row["docintel"] = {"wall": wall, "cpu": cpu, "reexport": rerender, **score(pages, gt, scorer)}
                row["docintel"]["docling_round_trip"] = docling_round_trip(pdf, Path(tmp) / "art")
            except Exception as exc:  # a parse failure is a row, not the end of the run
                row["docintel"] = {"error": f"{type(exc).__name__}: {exc}"}
            pages, wall, cpu = run_pymupdf4llm(pdf)
            row["pymupdf4llm"] = {"wall": wall, "cpu": cpu, **score(pages, gt, scorer)}
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    print_table(rows)
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))
    return 0


def _cell(d: dict, key: str, fmt: str = "{}") -> str:
    return fmt.format(d[key]) if key in d else "-"


def print_table(rows: list[dict]) -> None:
    print(
        "| PDF | docintel s wall / CPU (re-export s) | pymupdf4llm s wall / CPU | ratio p4l/docintel wall, CPU "
        "| section recall / precision: docintel | pymupdf4llm | headings written: docintel / p4l "
        "| GT tables on their page: docintel / p4l | Markdown tables: docintel / p4l "
        "| headings kept by docling-json round trip |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    tot = {"d": 0.0, "p": 0.0, "dc": 0.0, "pc": 0.0}
    for r in rows:
        d, p = r["docintel"], r["pymupdf4llm"]
        if "error" in d:
            print(
                f"| {r['pdf']} | parse failed: {d['error'][:60]} | {p['wall']:.2f} | - | - | - | - | - | - |"
            )
            continue
        tot["d"] += d["wall"]
        tot["p"] += p["wall"]
        tot["dc"] += d["cpu"]
        tot["pc"] += p["cpu"]
        gt_tab = (
            f"{d['tables_on_gt_pages']}/{d['gt_tables']} / {p['tables_on_gt_pages']}/{p['gt_tables']}"
            if "gt_tables" in d
            else "-"
        )
        print(
            f"| {r['pdf']} | {d['wall']:.2f} / {d['cpu']:.2f} ({d['reexport']:.2f}) | {p['wall']:.2f} / {p['cpu']:.2f} "
            f"| {p['wall'] / d['wall']:.1f}x, {p['cpu'] / d['cpu']:.1f}x "
            f"| {_cell(d, 'sec_recall', '{:.2f}')} / {_cell(d, 'sec_precision', '{:.2f}')} "
            f"| {_cell(p, 'sec_recall', '{:.2f}')} / {_cell(p, 'sec_precision', '{:.2f}')} "
            f"| {d['headings']} / {p['headings']} | {gt_tab} | {d['tables']} / {p['tables']} "
            f"| {d.get('docling_round_trip', '-')} |"
        )
    if tot["d"]:
        print(
            f"\ntotal over the PDFs docintel parsed: wall docintel {tot['d']:.1f} s, pymupdf4llm {tot['p']:.1f} s "
            f"({tot['p'] / tot['d']:.1f}x); CPU {tot['dc']:.1f} s vs {tot['pc']:.1f} s ({tot['pc'] / tot['dc']:.1f}x)"
        )


if __name__ == "__main__":
    sys.exit(main())
