"""Census of wrapped text tables (``parsing/tables_text.py``) and text-layer gaps, per family.

Usage:
    python scripts/text_table_census.py [--examples N]

Reads the NIST corpus (family ``nist``), the robust corpus (families from its MANIFEST.tsv)
and the eval PDFs (family ``eval``) under ``$DOCINTEL_SHARED`` (default ``../shared``). For
every page with a table caption line (the caption test of :func:`tables_text.reorder_lines`,
by text) it runs the text-table reader on the region under the caption and counts the
readings that qualify as a wrapped text table and are not a ruled grid; for every page it
computes ``page_df.text_gaps`` from the page's own lines, images and drawings. It prints one
table per family and up to N examples (file, page, rows x columns, the first body row) for
hand-checking. It asserts nothing and needs no parse.
"""

from __future__ import annotations

import argparse
import collections
import csv
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DOCINTEL_SHARED", ROOT.parent / "shared"))
sys.path.insert(0, str(ROOT))


def _files() -> list[tuple[str, Path]]:
    out = [("nist", p) for p in sorted((SHARED / "corpus" / "nist" / "pdfs").glob("*.pdf"))]
    manifest = SHARED / "corpus" / "robust" / "MANIFEST.tsv"
    if manifest.exists():
        with manifest.open() as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                out.append((row["family"], SHARED / "corpus" / "robust" / row["file"]))
    out += [("eval", p) for p in sorted((SHARED / "eval" / "pdfs").glob("*.pdf"))]
    return out


def _page(pg) -> tuple[list[tuple], str | None]:
    from docintel.parsing import signals, tables_cells, tables_text, textlayer

    lines = [
        ("".join(s["text"] for s in ln["spans"]).strip(), ln["bbox"])
        for b in pg.get_text("dict", flags=0)["blocks"]
        for ln in b.get("lines", [])
    ]
    rows = [{"text": t, "x0": b[0], "y0": b[1], "x1": b[2], "y1": b[3]} for t, b in lines]
    prow = signals.page_signals(pg, pg.number + 1)
    gaps = textlayer.page_gaps(rows, prow, prow.pop("_drawings"))
    found = []
    caps = [b for t, b in lines if tables_text._table_caption_text(t)]
    if caps:
        words = pg.get_text("words")
        r = pg.rect
        for b in caps:
            clip = (r.x0 + 0.05 * r.width, b[3] + 0.5, r.x1 - 0.05 * r.width, r.y1 - 0.06 * r.height)
            cells, box, _ = tables_text.read_text_table(
                words, clip, None, lambda bb: tables_cells.horizontal_rules(pg, bb)
            )
            if tables_text.looks_like_text_table(cells) and tables_cells.ruled_cells(pg, box)[1] is None:
                n_cols = max(c["col"] for c in cells) + 1
                first = " | ".join(c["text"][:30] for c in cells if c["row"] == 1)
                found.append((pg.number + 1, max(c["row"] for c in cells) + 1, n_cols, first))
    return found, gaps


def main(argv: list[str] | None = None) -> int:
    import pymupdf

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=3, help="examples printed per file")
    args = ap.parse_args(argv)
    fams: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for fam, path in _files():
        try:
            doc = pymupdf.open(path)
        except Exception as exc:  # noqa: BLE001 - a broken file is the robust corpus's point
            print(f"{path.name}: cannot open ({exc})", file=sys.stderr)
            continue
        c = fams[fam]
        c["files"] += 1
        hits = []
        for pg in doc:
            c["pages"] += 1
            found, gaps = _page(pg)
            hits += found
            for reason in (gaps or "").split("; "):
                if reason:
                    c[reason.split(" (")[0]] += 1
        c["text_tables"] += len(hits)
        for h in hits[: args.examples]:
            print(f"{path.name} p{h[0]}: {h[1]} rows x {h[2]} cols | {h[3]}")
    cols = ["files", "pages", "text_tables", "garbled_text", "vector_glyphs", "raster_region"]
    print("\n| family | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for fam in sorted(fams):
        print(f"| {fam} | " + " | ".join(str(fams[fam][k]) for k in cols) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
