"""Census of the reference grammar over real PDFs: mentions per kind and family, and a sample.

    python scripts/ref_census.py [--sample 10] [--max-pages 60] [--relative] [--dump OUT.jsonl] [DIR_OR_PDF ...]
    python scripts/ref_census.py --resolve [...]   (parse, resolve, probe: ref_census_resolve.py)

Defaults to ../shared/corpus/robust, ../shared/corpus/nist/pdfs and ../shared/eval/pdfs.
The family of a robust PDF is its MANIFEST.tsv ``family`` column; NIST PDFs are "nist", the
evaluation PDFs "eval". Each page's text is read with PyMuPDF (furniture blanked, see ``_pages``) and run through
``find_references`` whole, so a reference broken over a line end is found. The
sample (seeded, so reruns print the same mentions) is for checking precision by hand.
"""

from __future__ import annotations

import argparse
import csv
import json
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


def _key(line: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[0-9]+", "#", line)).strip().lower()


def _pages(pdf: Path, max_pages: int):
    """(page, text) with the furniture blanked: lines repeated on 3+ pages (running headers and
    footers, digits ignored) and contents lines (dot leaders), as the parser's line roles do."""
    import pymupdf

    try:
        doc = pymupdf.open(pdf)
    except Exception as exc:  # a broken file is counted as unreadable, the census goes on
        print(f"# {pdf.name}: unreadable ({exc})", file=sys.stderr)
        return
    pages = []
    for i in range(min(doc.page_count, max_pages)):
        try:
            pages.append((i + 1, doc[i].get_text().splitlines()))
        except Exception:
            continue
    seen = Counter(k for _, lines in pages for k in {_key(ln) for ln in lines if ln.strip()})
    for page, lines in pages:
        kept = ["" if seen[_key(ln)] >= 3 or re.search(r"(?:\.\s?){4,}", ln) else ln.strip() for ln in lines]
        yield page, "\n".join(kept)


#: A label opening its line and followed by a delimiter is a heading or caption naming itself
#: ("Table 3: ...", "SECTION 2 - ..."); callers drop those (refdetect), so the census does too.
_SELF_LABEL = re.compile(r"[ \t]*(?:[:.\u2013\u2014|]|\s-\s|\s*$)")


def _names_itself(text: str, r: dict) -> bool:
    at_line_start = r["start"] == 0 or text[r["start"] - 1] == "\n"
    return at_line_start and bool(_SELF_LABEL.match(text[r["end"] : r["end"] + 3]))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--resolve" in argv:  # the parse-and-resolve census: scripts/ref_census_resolve.py
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import ref_census_resolve

        return ref_census_resolve.main([a for a in argv if a != "--resolve"])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=DEFAULTS)
    ap.add_argument("--sample", type=int, default=10, help="mentions sampled per family (0: none)")
    ap.add_argument("--max-pages", type=int, default=60)
    ap.add_argument("--relative", action="store_true", help="count relative forms too")
    ap.add_argument("--seed", type=int, default=10)
    ap.add_argument("--sample-all", type=int, default=0, help="a sample of N mentions over all families")
    ap.add_argument(
        "--dump", type=Path, help="write every row found (JSON lines) to diff two trees' grammars"
    )
    args = ap.parse_args(argv)
    if not any(Path(p).exists() for p in args.paths):  # the defaults live beside a clone, not in it
        print(
            f"Error: none of {', '.join(args.paths)} exists; give folders or PDFs to census", file=sys.stderr
        )
        return 1
    counts: dict[str, Counter] = defaultdict(Counter)
    docs: Counter = Counter()
    selfs: Counter = Counter()
    found: dict[str, list[tuple[str, int, str, dict]]] = defaultdict(list)
    dump = args.dump.open("w", encoding="utf-8") if args.dump else None
    for pdf, family in _pdfs(args.paths):
        docs[family] += 1
        for page, text in _pages(pdf, args.max_pages):
            seen = set()
            for r in find_references(text, relative=args.relative):
                if dump is not None:
                    dump.write(
                        json.dumps([pdf.name, page, {k: r[k] for k in sorted(r)}], ensure_ascii=False) + "\n"
                    )
                if (r["start"], r["end"]) in seen:
                    continue  # one mention, several targets: counted once
                seen.add((r["start"], r["end"]))
                if _names_itself(text, r):
                    selfs[family] += 1
                    continue
                counts[family][r["kind"]] += 1
                ctx = text[max(0, r["start"] - 40) : r["end"] + 30].replace("\n", " ")
                found[family].append((pdf.name, page, ctx, r))
    if dump is not None:
        dump.close()
    rng = random.Random(args.seed)
    total = Counter()
    for family in sorted(counts):
        c = counts[family]
        total.update(c)
        print(
            f"\n## {family} ({docs[family]} PDFs): {sum(c.values())} mentions ({selfs[family]} self-labels left out)"
        )
        print("   " + ", ".join(f"{k} {n}" for k, n in c.most_common()))
        if args.sample:
            for name, page, ctx, r in rng.sample(found[family], min(args.sample, len(found[family]))):
                targets = ",".join(str(t) for t in r["targets"][:6])
                print(f"   - [{r['kind']}:{targets}|{r['sub_selector'] or ''}] {r['anchor_text']!r}  "
                      f"<< {ctx!r} >> ({name} p{page})")  # fmt: skip
    print(f"\n## all ({sum(docs.values())} PDFs): {sum(total.values())} mentions")
    print("   " + ", ".join(f"{k} {n}" for k, n in total.most_common()))
    pool = [(f, x) for f in sorted(found) for x in found[f]]
    for n, (_family, (name, page, ctx, r)) in enumerate(rng.sample(pool, min(args.sample_all, len(pool))), 1):
        targets = ",".join(str(t) for t in r["targets"][:6])
        print(
            f"{n:3d}. [{r['kind']}:{targets}|{r['sub_selector'] or ''}] {r['anchor_text']!r} << {ctx!r} >> ({name} p{page})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
