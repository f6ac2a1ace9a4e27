"""What the reference grammar costs a process: CPU to import it, and to scan a first text (which
compiles the rules that text needs), for one or more source trees side by side.

    python scripts/ref_compile_bench.py TREE [TREE ...] [--repeat 5] [--pdf PDF]

Each measurement is a fresh interpreter with the grammar's dependencies (pandas, the parsing
package) imported first, so only the grammar's own cost is timed; trees alternate within each
round so a busy machine weighs on all alike. The first text is the first pages of ``--pdf``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

_CHILD = r"""
import json, sys, time
import pandas, docintel.parsing, docintel.text  # dependencies, not timed
text = sys.stdin.read()
t0 = time.process_time()
from docintel.parsing.refpatterns import find_references
t1 = time.process_time()
n = len(find_references(text))
t2 = time.process_time()
find_references(text)
t3 = time.process_time()
print(json.dumps({"import": t1 - t0, "first_scan": t2 - t1, "second_scan": t3 - t2, "refs": n}))
"""


def _text(pdf: Path, pages: int) -> str:
    import pymupdf

    with pymupdf.open(pdf) as doc:
        return "\n".join(doc[i].get_text() for i in range(min(pages, doc.page_count)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", nargs="+", type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--pdf", type=Path, default=Path("pdfs/nist_sp800-106.pdf"))
    ap.add_argument("--pages", type=int, default=3)
    args = ap.parse_args(argv)
    if not args.pdf.exists():
        print(f"Error: {args.pdf} not found", file=sys.stderr)
        return 1
    text = _text(args.pdf, args.pages)
    got: dict[str, list[dict]] = {str(t): [] for t in args.trees}
    for _ in range(args.repeat):
        for tree in args.trees:
            out = subprocess.run(
                [sys.executable, "-c", _CHILD], input=text, capture_output=True, text=True, check=True,
                cwd=tree, env={"PYTHONPATH": str(tree.resolve()), "PATH": "/usr/bin:/bin"},
            )  # fmt: skip
            got[str(tree)].append(json.loads(out.stdout))
    print(f"| tree | import ms | first scan ms | second scan ms | refs | ({args.repeat} runs, median CPU) |")
    print("|---|---:|---:|---:|---:|---|")
    for tree, runs in got.items():
        med = {
            k: statistics.median(r[k] for r in runs) * 1000 for k in ("import", "first_scan", "second_scan")
        }
        print(f"| {tree} | {med['import']:.0f} | {med['first_scan']:.0f} | {med['second_scan']:.0f} |"
              f" {runs[0]['refs']} | |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
