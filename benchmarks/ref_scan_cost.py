"""CPU time of the reference grammar over real lines, for two trees side by side.

    python benchmarks/ref_scan_cost.py TREE [TREE ...]

Reads the text lines of the first 40 pages of 20 robust-corpus PDFs and the SP 800-5x PDFs
(``DOCINTEL_SHARED``, default ../shared), runs ``find_references`` over 2000 of them once (the
rules compile), then times one pass over all of them in each tree (a child process per tree, so
each imports its own grammar). Compare the ratio of the trees in one run, not one figure.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import glob, sys, time, pymupdf
sys.path.insert(0, sys.argv[1])
from docintel.parsing.refpatterns import find_references
shared = sys.argv[2]
files = sorted(glob.glob(shared + '/corpus/robust/*.pdf'))[:20] + sorted(glob.glob(shared + '/corpus/nist/pdfs/sp800-5*.pdf'))
texts = []
for f in files:
    try:
        d = pymupdf.open(f)
    except Exception:
        continue
    for i, p in enumerate(d):
        if i >= 40:
            break
        texts += [ln for ln in p.get_text().splitlines() if ln.strip()]
for t in texts[:2000]:
    find_references(t)
t0 = time.process_time()
for t in texts:
    find_references(t)
print(f"{sys.argv[1]}: {len(texts)} lines, {time.process_time() - t0:.2f} s cpu")
"""


def main() -> int:
    shared = os.environ.get("DOCINTEL_SHARED", str(Path(__file__).resolve().parents[2] / "shared"))
    for tree in sys.argv[1:] or [str(Path(__file__).resolve().parents[1])]:
        subprocess.run([sys.executable, "-c", CHILD, tree, shared], check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
