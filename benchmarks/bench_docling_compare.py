"""docintel's own parse vs Docling's, side by side, on the PDFs that have a Docling export.

For each ``<name>.pdf`` with ``<name>.docling.json`` in the data folder (default
tests/data/docling): parse with docintel's PyMuPDF parser (``--layout auto`` and
``always``, in memory, no cache) and map Docling's export, then print a Markdown
table: headings found / matched, tables found / matched, captions matched,
reading-order agreement over the body lines both parses share, time per page.

    python benchmarks/bench_docling_compare.py [DATA_DIR]

Docling's numbers are its layout model + TableFormer output as exported; the
Docling time is only docintel's mapping of that export (Docling's own
conversion did not run here: its weights cannot be downloaded on this machine).
"""

from __future__ import annotations

import re
import sys
import time
import unicodedata
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from docintel.parsing import parse_document  # noqa: E402

FURNITURE = {"header", "footer", "page_number"}
_NON_WORD = re.compile(r"[\W_]+")


def key(text) -> str:
    """Compare texts across parsers: NFKC, lower case, letters and digits only."""
    return _NON_WORD.sub("", unicodedata.normalize("NFKC", str(text or "")).lower())


def timed(pdf: Path, **kw):
    t0 = time.perf_counter()
    try:
        tables = parse_document(pdf, out_dir=None, **kw)
    except Exception as exc:  # another brick mid-change must not hide the other columns
        return None, f"{type(exc).__name__}: {exc}"[:80]
    return tables, time.perf_counter() - t0


def headings(ours, dl) -> tuple[int, int, int]:
    keys = set()
    for r in ours.toc_df.itertuples():
        keys.update({key(r.title), key(f"{r.number or ''}{r.title}")})
    matched = sum(
        1 for r in dl.toc_df.itertuples() if key(r.title) in keys or key(f"{r.number or ''}{r.title}") in keys
    )
    return len(ours.toc_df), len(dl.toc_df), matched


def objects(ours, dl, otype: str) -> tuple[int, int, int]:
    o = ours.object_registry[ours.object_registry["object_type"] == otype]
    d = dl.object_registry[dl.object_registry["object_type"] == otype]
    return len(o), len(d), len(set(o["object_key"]) & set(d["object_key"]))


def captions(ours, dl) -> tuple[int, int]:
    """Docling's table/figure captions that our registry also holds (same first 30 letters)."""
    ours_caps = {key(c)[:30] for c in ours.object_registry["caption"].dropna()}
    d = dl.object_registry[dl.object_registry["object_type"].isin(["table", "figure"])]["caption"].dropna()
    return sum(1 for c in d if key(c)[:30] in ours_caps), len(d)


def reading_order(ours, dl) -> tuple[float, float]:
    """(share of Docling's body lines matched in ours, Kendall tau of their order in both)."""

    def seq(t):
        lines = t.line_df[~t.line_df["role"].isin(FURNITURE | {"table"})]
        seen: dict[tuple, int] = {}
        out = []
        for r in lines.itertuples():
            k = (int(r.page), key(r.text))
            if len(k[1]) < 4:
                continue
            seen[k] = seen.get(k, 0) + 1
            out.append((*k, seen[k]))
        return out

    d = {k: i for i, k in enumerate(seq(dl))}
    pairs = [(i, d[k]) for i, k in enumerate(seq(ours)) if k in d]
    if len(pairs) < 2:
        return (len(pairs) / max(len(d), 1), float("nan"))
    b = np.array([p[1] for p in pairs])
    s = np.sign(b[None, :] - b[:, None])[np.triu_indices(len(b), 1)]
    return len(pairs) / len(d), float(s.sum() / len(s))


def main(argv: list[str]) -> int:
    data = Path(argv[0]) if argv else REPO / "tests" / "data" / "docling"
    rows, notes = [], []
    exports = sorted(data.glob("*.docling.json"))
    if exports:  # warm-up: imports and the layout model's first load are not per-page costs
        first = exports[0].with_name(exports[0].name.replace(".docling.json", ".pdf"))
        timed(first, docling_json=exports[0])
        timed(first, layout="always")
    for js in exports:
        pdf = js.with_name(js.name.replace(".docling.json", ".pdf"))
        dl, t_dl = timed(pdf, docling_json=js)
        if dl is None:
            notes.append(f"{pdf.name}: docling mapping failed: {t_dl}")
            continue
        n = len(dl.page_df)
        for layout in ("auto", "always"):
            ours, t = timed(pdf, layout=layout)
            if ours is None:
                notes.append(f"{pdf.name} --layout {layout}: our parse failed: {t}")
                continue
            h = headings(ours, dl)
            tb = objects(ours, dl, "table")
            fg = objects(ours, dl, "figure")
            cm, ct = captions(ours, dl)
            cov, tau = reading_order(ours, dl)
            rows.append(
                f"| {pdf.stem} | {n} | {layout} | {h[0]} / {h[1]} / {h[2]} | {tb[0]} / {tb[1]} / {tb[2]} "
                f"| {fg[0]} / {fg[1]} / {fg[2]} | {cm}/{ct} | {cov:.0%} | {tau:.3f} "
                f"| {1000 * t / n:.0f} | {1000 * t_dl / n:.0f} |"
            )
    print(
        "| PDF | pages | our layout | headings ours / Docling / matched | tables ours / Docling / matched "
        "| figures ours / Docling / matched | Docling captions we have | Docling body lines we have "
        "| order agreement (Kendall tau) | ours ms/page | Docling map ms/page |"
    )
    print("|" + "---|" * 12)
    print("\n".join(rows))
    for note in notes:
        print(f"\n- {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
