"""Census of the reference grammar over real PDFs: mentions per kind and family, and a sample.

    python scripts/ref_census.py [--sample 10] [--max-pages 60] [--relative] [DIR_OR_PDF ...]

Defaults to ../shared/corpus/robust, ../shared/corpus/nist/pdfs and ../shared/eval/pdfs.
The family of a robust PDF is its MANIFEST.tsv ``family`` column; NIST PDFs are "nist", the
evaluation PDFs "eval". Each page's text is read with PyMuPDF, its lines joined with spaces
(a reference broken over a line end is found), and run through ``find_references``. The
sample (seeded, so reruns print the same mentions) is for checking precision by hand.
"""

from __future__ import annotations

import argparse
import csv
import random
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from docintel.parsing.refpatterns import find_references  # noqa: E402

DEFAULTS = ["../shared/corpus/robust", "../shared/corpus/nist/pdfs", "../shared/eval/pdfs"]


def _families(folder: Path) -> dict[str, str]:
    man = folder / "MANIFEST.tsv"
    if not man.exists():
        return {}
    with man.open(newline="") as f:
        return {r["file"]: r.get("family") or "" for r in csv.DictReader(f, delimiter="\t")}


def _pdfs(paths: list[str]) -> list[tuple[Path, str]]:
    out = []
    for p in paths:
        path = (ROOT / p).resolve() if not Path(p).is_absolute() else Path(p)
        if path.is_file():
            out.append((path, "given"))
            continue
        fam = _families(path)
        default = "nist" if "nist" in path.parts else "eval" if "eval" in path.parts else path.name
        for pdf in sorted(path.glob("*.pdf")):
            out.append((pdf, fam.get(pdf.name) or default))
    return out


def _pages(pdf: Path, max_pages: int):
    import pymupdf

    try:
        doc = pymupdf.open(pdf)
    except Exception as exc:  # a broken file is counted as unreadable, the census goes on
        print(f"# {pdf.name}: unreadable ({exc})", file=sys.stderr)
        return
    for i in range(min(doc.page_count, max_pages)):
        try:
            text = doc[i].get_text()
        except Exception:
            continue
        yield i + 1, re.sub(r"\s*\n\s*", " ", text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=DEFAULTS)
    ap.add_argument("--sample", type=int, default=10, help="mentions sampled per family (0: none)")
    ap.add_argument("--max-pages", type=int, default=60)
    ap.add_argument("--relative", action="store_true", help="count relative forms too")
    ap.add_argument("--seed", type=int, default=10)
    args = ap.parse_args(argv)
    counts: dict[str, Counter] = defaultdict(Counter)
    docs: Counter = Counter()
    found: dict[str, list[tuple[str, int, str, dict]]] = defaultdict(list)
    for pdf, family in _pdfs(args.paths):
        docs[family] += 1
        for page, text in _pages(pdf, args.max_pages):
            seen = set()
            for r in find_references(text, relative=args.relative):
                if (r["start"], r["end"]) in seen:
                    continue  # one mention, several targets: counted once
                seen.add((r["start"], r["end"]))
                counts[family][r["kind"]] += 1
                ctx = text[max(0, r["start"] - 40) : r["end"] + 30]
                found[family].append((pdf.name, page, ctx, r))
    rng = random.Random(args.seed)
    total = Counter()
    for family in sorted(counts):
        c = counts[family]
        total.update(c)
        print(f"\n## {family} ({docs[family]} PDFs): {sum(c.values())} mentions")
        print("   " + ", ".join(f"{k} {n}" for k, n in c.most_common()))
        if args.sample:
            for name, page, ctx, r in rng.sample(found[family], min(args.sample, len(found[family]))):
                targets = ",".join(str(t) for t in r["targets"][:6])
                print(f"   - [{r['kind']}:{targets}|{r['sub_selector'] or ''}] {r['anchor_text']!r}  "
                      f"<< {ctx!r} >> ({name} p{page})")  # fmt: skip
    print(f"\n## all ({sum(docs.values())} PDFs): {sum(total.values())} mentions")
    print("   " + ", ".join(f"{k} {n}" for k, n in total.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
