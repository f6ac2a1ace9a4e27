"""Snapshot the six tables of a set of PDFs and diff two snapshots: a parser change must not move them.

Usage:
    python benchmarks/parse_snapshot.py dump DIR [PDF ...]
    python benchmarks/parse_snapshot.py diff DIR_BEFORE DIR_AFTER

``dump`` parses each PDF in this process (``--layout never --ocr never``, no cache) and writes
its six tables as Parquet under ``DIR/<pdf stem>/``, plus ``auto_page.parquet``: the page table of
an ``--layout auto`` run with the layout model stubbed out (it raises, so the fast lines are kept
and ``escalation_signals`` holds the escalation reasons the fast path's signals gave). Timing
columns (``parse_seconds``) are dropped. Without PDFs it reads a fixed mix: 3 eval PDFs, 3 long
NIST SPs and 4 robust-corpus files of other families. ``diff`` prints every table that differs
(columns, dtypes, row count, then the first differing rows) and exits 1 when any does.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
SHARED = Path(os.environ.get("DOCINTEL_SHARED", REPO.parent / "shared"))

DEFAULT_PDFS = [
    SHARED / "eval/pdfs/attention_1706.03762v7.pdf",
    SHARED / "eval/pdfs/nist_sp800-106.pdf",
    SHARED / "eval/pdfs/faa_ad_nprm_2020-17221.pdf",
    SHARED / "corpus/nist/pdfs/sp800-53r3.pdf",
    SHARED / "corpus/nist/pdfs/sp800-82r2.pdf",
    SHARED / "corpus/nist/pdfs/sp800-60v2r1.pdf",
    SHARED / "corpus/robust/paper_tracemonkey_pldi2009_two_column.pdf",
    SHARED / "corpus/robust/toronto_2024_consolidated_financial_statements.pdf",
    SHARED / "corpus/robust/scan_linn_sequencer_manual_rotated_4ways.pdf",
    SHARED / "corpus/robust/cfr_title45_part164_hipaa_ecfr_print.pdf",
]
TABLES = ("line_df", "page_df", "toc_df", "object_registry", "cell_df", "cross_ref_df")
VOLATILE = {"parse_seconds"}


def _frame(df):
    df = df.drop(columns=[c for c in df.columns if c in VOLATILE])
    # object columns holding lists/arrays/dicts: compare their repr
    for c in df.columns:
        if df[c].dtype == object:
            df[c] = df[c].map(
                lambda v: v if v is None or isinstance(v, str | int | float | bool) else repr(v)
            )
    return df.reset_index(drop=True)


def dump(out: Path, pdfs: list[Path]) -> None:
    os.environ["DOCINTEL_PARSE_WORKER"] = "0"
    from docintel.parsing import layout, parse_document

    for pdf in pdfs:
        d = out / pdf.stem
        d.mkdir(parents=True, exist_ok=True)
        tables = parse_document(pdf, layout="never", ocr="never", out_dir=None)
        for name in TABLES:
            _frame(getattr(tables, name)).to_parquet(d / f"{name}.parquet")
        real = layout.extract_page_lines_layout

        def stub(*a, **k):
            raise RuntimeError("stubbed")

        layout.extract_page_lines_layout = stub
        try:
            auto = parse_document(pdf, layout="auto", ocr="never", out_dir=None)
        finally:
            layout.extract_page_lines_layout = real
        _frame(auto.page_df).to_parquet(d / "auto_page.parquet")
        print(f"{pdf.name}: {len(tables.line_df)} lines, {len(tables.page_df)} pages", flush=True)


def diff(a: Path, b: Path) -> int:
    import pandas as pd

    bad = 0
    for da in sorted(p for p in a.iterdir() if p.is_dir()):
        db = b / da.name
        for fa in sorted(da.glob("*.parquet")):
            fb = db / fa.name
            if not fb.exists():
                print(f"{da.name}/{fa.name}: missing in {b}")
                bad += 1
                continue
            x, y = pd.read_parquet(fa), pd.read_parquet(fb)
            msg = _compare(x, y)
            if msg:
                bad += 1
                print(f"{da.name}/{fa.name}: {msg}")
    print("identical" if not bad else f"{bad} table(s) differ")
    return 1 if bad else 0


def _compare(x, y) -> str:
    if list(x.columns) != list(y.columns):
        return f"columns {sorted(set(x.columns) ^ set(y.columns))} / order differs"
    if dict(x.dtypes.astype(str)) != dict(y.dtypes.astype(str)):
        d = {c: (str(x[c].dtype), str(y[c].dtype)) for c in x.columns if x[c].dtype != y[c].dtype}
        return f"dtypes {d}"
    if len(x) != len(y):
        return f"rows {len(x)} -> {len(y)}"
    diffs = []
    for c in x.columns:
        xa, ya = x[c], y[c]
        same = (xa == ya) | (xa.isna() & ya.isna())
        if not bool(same.all()):
            i = int((~same).to_numpy().nonzero()[0][0])
            diffs.append(f"{c} ({int((~same).sum())} rows; first row {i}: {xa.iloc[i]!r} -> {ya.iloc[i]!r})")
    return "; ".join(diffs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cmd", choices=["dump", "diff"])
    ap.add_argument("args", nargs="+")
    ns = ap.parse_args(argv)
    if ns.cmd == "dump":
        dump(Path(ns.args[0]), [Path(p) for p in ns.args[1:]] or DEFAULT_PDFS)
        return 0
    return diff(Path(ns.args[0]), Path(ns.args[1]))


if __name__ == "__main__":
    sys.exit(main())
