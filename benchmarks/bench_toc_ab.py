"""CPU of the toc stage (``toc.build_toc``) alone, two source trees side by side, as multiples of the floor.

Usage:
    python benchmarks/bench_toc_ab.py --before DIR [--after DIR] [--repeat N] [--rounds R] [PDF ...]

``DIR`` is a checkout of the repository (``git archive <commit> | tar -x -C DIR``); ``--after``
defaults to this tree. Each round runs one subprocess per tree, in turn (the order alternates
round by round): it parses every PDF (default: the three long NIST SPs) with that tree's
PyMuPDF backend (``--layout never``, ``ocr=never``, untimed) and keeps the arguments
``build_toc`` was called with, then calls ``build_toc`` on them ``--repeat`` times inside
``linecols.shared()`` (as the parse does) and keeps the best CPU seconds per PDF; it also
measures the image-free floor (``get_text("dict")`` of every page). The figure per tree is
the best over rounds of the summed per-PDF best, over the floor of that process. The whole
parse's ratio moves with the page stage's noise; this one reads the toc stage's own CPU
(the heading candidates, contents / outline entries, provisions, the role marks).
Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NIST = Path(os.environ.get("DOCINTEL_SHARED", REPO.parent / "shared")) / "corpus" / "nist" / "pdfs"
DEFAULT = [NIST / "sp800-53r3.pdf", NIST / "sp800-82r2.pdf", NIST / "sp800-60v2r1.pdf"]

_CHILD = r"""
import gc, json, sys, time
tree, repeat, pdfs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
sys.path.insert(0, tree)
import pymupdf
from docintel.parsing import linecols, toc
from docintel.parsing import pdf as pdfmod
from docintel.parsing import pymupdf_backend as b

flags = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES
out = {"floor": 0.0, "toc": {}}
for p in pdfs:
    data = pdfmod.read_pdf_bytes(p)
    doc = pdfmod.open_pdf(data, name=p)
    t = time.process_time()
    for page in doc:
        page.get_text("dict", flags=flags)
    out["floor"] += time.process_time() - t
    got = {}
    orig = toc.build_toc

    def keep(doc, line_df, page_df, doc_id, _orig=orig):
        got["args"] = (doc, line_df.copy(), page_df.copy(), doc_id)
        return _orig(doc, line_df, page_df, doc_id)

    toc.build_toc = keep
    b.parse_with_pymupdf(pdfmod.open_pdf(data, name=p), pdfmod.doc_id_for(data), layout_mode="never", ocr_mode="never")
    toc.build_toc = orig
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t = time.process_time()
        with linecols.shared():
            toc.build_toc(*got["args"])
        best = min(best, time.process_time() - t)
    out["toc"][p] = best
import docintel
out["tree"] = str(docintel.__file__)
print(json.dumps(out))
"""


def _run(tree: Path, repeat: int, pdfs: list[Path]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree.resolve()), "DOCINTEL_PARSE_WORKER": "0"}
    got = subprocess.run(
        [sys.executable, "-c", _CHILD, str(tree.resolve()), str(repeat), *map(str, pdfs)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(got.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pdfs", nargs="*", type=Path)
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, default=REPO)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    pdfs = args.pdfs or DEFAULT
    trees = {"before": args.before, "after": args.after}
    best: dict[str, dict] = {}
    for r in range(args.rounds):
        for name in ("before", "after") if r % 2 == 0 else ("after", "before"):
            got = _run(trees[name], args.repeat, pdfs)
            total = sum(got["toc"].values())
            print(f"round {r + 1} {name:6s}: build_toc {total:.3f} s = {total / got['floor']:.3f}x floor")
            if name not in best or total / got["floor"] < best[name]["x"]:
                best[name] = {"x": total / got["floor"], **got}
    print("\n| PDF | before ms | after ms |\n|---|---:|---:|")
    for p in map(str, pdfs):
        b, a = best["before"]["toc"][p] * 1000, best["after"]["toc"][p] * 1000
        print(f"| {Path(p).name} | {b:.0f} | {a:.0f} |")
    xb, xa = best["before"]["x"], best["after"]["x"]
    print(
        f"\nbuild_toc, best of {args.rounds} rounds x {args.repeat}: before {xb:.3f}x -> after {xa:.3f}x floor"
    )
    print(f"({xb - xa:+.3f}x of the floor off; after / before = {xa / xb:.2f})")


if __name__ == "__main__":
    main()
