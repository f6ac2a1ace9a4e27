"""The objects stage with and without the page stage's held words and drawings (issue 18PL, session 7).

Usage:
    python benchmarks/bench_objects_held.py [--repeat N] [PDF ...]

For each PDF (default: the three long NIST SPs) one ``--layout never`` parse captures the
arguments of ``objects.build_objects`` and the pages the page stage held
(``tables_text.held_page``); then ``build_objects`` runs on copies of the same inputs, each time
on a freshly opened document, alternately as the branch point did (the document itself) and
through ``heldpages.HeldDoc``, best CPU seconds of ``--repeat``. Prints both, whether the
outputs are equal, and the pages held. Asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
NIST = REPO.parent / "shared" / "corpus" / "nist" / "pdfs"
DEFAULT = [NIST / "sp800-53r3.pdf", NIST / "sp800-82r2.pdf", NIST / "sp800-60v2r1.pdf"]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pdfs", nargs="*", type=Path)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    import pymupdf

    from docintel.parsing import heldpages, objects, pymupdf_backend

    build = objects.build_objects
    seen: dict = {}

    def capture(doc, line_df, page_df, toc_df, doc_id):
        seen["held"] = dict(doc._held)  # the backend clears its dict once the stages ran
        seen["args"] = (line_df.copy(), page_df.copy(), toc_df.copy(), doc_id)
        return build(doc, line_df, page_df, toc_df, doc_id)

    objects.build_objects = capture
    total = {"document": 0.0, "held": 0.0}
    print("| PDF | pages held | document s | held s | held/document | outputs equal |")
    print("|---|---:|---:|---:|---:|---|")
    for path in args.pdfs or DEFAULT:
        pymupdf_backend.parse_with_pymupdf(pymupdf.open(path), "bench", layout_mode="never", ocr_mode="never")
        line_df, page_df, toc_df, doc_id = seen["args"]
        best = {"document": float("inf"), "held": float("inf")}
        out: dict = {}
        for _ in range(args.repeat):
            for how in best:
                doc = pymupdf.open(path)
                arg = doc if how == "document" else heldpages.HeldDoc(doc, seen["held"])
                inputs = (line_df.copy(), page_df.copy(), toc_df.copy())
                t = time.process_time()
                out[how] = build(arg, *inputs, doc_id)
                best[how] = min(best[how], time.process_time() - t)
        equal = all(a.equals(b) for a, b in zip(out["document"], out["held"], strict=True))
        for how in total:
            total[how] += best[how]
        print(
            f"| {path.name} | {len(seen['held'])} | {best['document']:.3f} | {best['held']:.3f} "
            f"| {best['held'] / best['document']:.2f}x | {equal} |"
        )
    print(
        f"| all | | {total['document']:.3f} | {total['held']:.3f} | {total['held'] / total['document']:.2f}x | |"
    )


if __name__ == "__main__":
    main()
