"""Which PDF outline entries the toc drops as paragraph bookmarks, for every PDF with an outline.

Usage:
    python benchmarks/outline_census.py [DIR_OR_PDF ...] [-v]

Default folders: the shared corpora (``$DOCINTEL_SHARED``, default ``../shared``): robust,
eval, NIST and docling, plus the repository's ``pdfs/``. Per PDF with an outline it prints the
entries, how many :func:`docintel.parsing.toc_sources.sentence_like` drops, and why; ``-v``
lists each dropped entry. Reads only the outlines (no parse).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DOCINTEL_SHARED", ROOT.parent / "shared"))
DEFAULT = [SHARED / "corpus" / "robust", SHARED / "eval" / "pdfs", SHARED / "corpus" / "nist" / "pdfs",
           SHARED / "docling", ROOT / "pdfs"]  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="*", type=Path)
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    import pymupdf

    from docintel.parsing.toc_sources import sentence_like

    files: list[Path] = []
    for p in args.paths or DEFAULT:
        files += sorted(p.glob("*.pdf")) if p.is_dir() else [p] if p.exists() else []
    with_outline = changed = 0
    for f in files:
        try:
            outline = pymupdf.open(f).get_toc(simple=True)
        except Exception as exc:  # a corrupt file in the robust corpus
            print(f"{f.name}: unreadable ({type(exc).__name__})", file=sys.stderr)
            continue
        if not outline:
            continue
        with_outline += 1
        why = [sentence_like(t) for _, t, _ in outline]
        reasons = Counter(w for w in why if w)
        dropped = sum(reasons.values())
        changed += bool(dropped)
        print(f"{dropped:4d}/{len(outline):4d} dropped  {f.name}  {dict(reasons) if dropped else ''}")
        if args.v:
            for (lvl, t, p), w in zip(outline, why, strict=True):
                if w:
                    print(f"      {w}: level {lvl} page {p}: {t[:90]!r}")
    print(f"{with_outline} PDFs with an outline, {changed} changed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
