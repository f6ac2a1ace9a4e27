"""Parse PDFs and write the neutral structure JSON the eval scorer reads, then score.

Usage:
    python scripts/export_structure.py [PDF ...] [-o OUT_DIR] [--score] [--layout auto|never|always]

Without PDFs it exports the eval PDFs in ``$DOCINTEL_SHARED/eval/pdfs`` (default
``../shared``). With ``--score`` it runs ``eval/structure/score.py`` on the output.
One JSON per PDF, named after the PDF stem:
``{"sections": [{number, title, page}], "objects": [{type, id, page}], "page_labels": {page: label},
"unnumbered_tables": N}``; tables found without a caption are counted, not listed (nothing to score).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
try:  # an installed / PYTHONPATH docintel wins; else the checkout this script lives in
    import docintel  # noqa: F401
except ImportError:
    sys.path.insert(0, str(ROOT))

from docintel.parsing import parse_document  # noqa: E402

SHARED = Path(os.environ.get("DOCINTEL_SHARED", ROOT.parent / "shared"))


def _val(x):
    return None if x is None or (isinstance(x, float) and pd.isna(x)) or x is pd.NA else x


def structure_json(tables) -> dict:
    """The neutral form: sections, objects (no bibliography entries) and printed page labels."""
    toc = tables.toc_df
    sections = [
        {
            "number": _val(r.number),
            "title": r.title,
            "page": int(r.page_start),
            "level": int(r.level),
            "source": r.source,
        }
        for r in toc.itertuples()
        # an untitled numbered provision ("8.6 Nothing in this Agreement ...") is not a heading
        if isinstance(r.title, str) and r.title.strip()
    ]
    reg = tables.object_registry
    objects = [
        {"type": r.object_type, "id": _val(r.object_id), "page": int(r.page), "label": _val(r.label)}
        for r in reg.itertuples()
        # the scorer counts numbered objects: a table found without a caption has no number
        if r.object_type != "bib" and r.source != "table_detection"
    ]
    unnumbered = int((reg["source"] == "table_detection").sum())
    labels = {
        str(int(r.page)): str(r.printed_label)
        for r in tables.page_df.itertuples()
        if _val(r.printed_label) is not None
    }
    return {"sections": sections, "objects": objects, "page_labels": labels, "unnumbered_tables": unnumbered}


def _missing_eval_set(pdfs: list[Path], scorer: Path | None) -> str | None:
    """What is missing to run at all, as one line (checked before any parsing), else None."""
    where = f"{SHARED}/eval (set DOCINTEL_SHARED to the folder holding eval/)"
    if scorer is not None and not scorer.is_file():
        return f"--score needs an evaluation set with its structure ground truth and scorer, not found at {where}"
    if not pdfs:
        return f"no PDFs given and no evaluation set at {where}; pass PDF paths to export them"
    absent = [str(p) for p in pdfs if not p.is_file()]
    return f"no such PDF: {absent[0]}" if absent else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pdfs", nargs="*", type=Path)
    ap.add_argument("-o", "--out", type=Path, default=Path("/tmp/docintel_structure"))
    ap.add_argument("--layout", default="auto", choices=["auto", "never", "always"])
    ap.add_argument("--score", action="store_true", help="run the eval scorer on the output")
    args = ap.parse_args(argv)
    pdfs = args.pdfs or sorted((SHARED / "eval" / "pdfs").glob("*.pdf"))
    scorer = SHARED / "eval" / "structure" / "score.py"
    missing = _missing_eval_set(pdfs, scorer if args.score else None)
    if missing:
        print(f"Error: {missing}", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    for pdf in pdfs:
        try:
            tables = parse_document(pdf, layout=args.layout, out_dir=None, use_cache=False)
        except Exception as exc:  # noqa: BLE001 - one failing PDF is scored as empty, not fatal
            print(f"{pdf.name}: parse failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        data = structure_json(tables)
        (args.out / f"{pdf.stem}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False))
        print(
            f"{pdf.name}: {len(data['sections'])} sections, {len(data['objects'])} objects, "
            f"{len(data['page_labels'])} labels, {data['unnumbered_tables']} tables without a caption",
            file=sys.stderr,
        )
    if args.score:
        return subprocess.call([sys.executable, str(scorer), str(args.out)])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
