"""Reference census with resolution: parse each PDF, find every in-prose reference as the loop
does, resolve it against the tables, and probe for pointer-like words the grammar missed.

    python scripts/ref_census_resolve.py [--nist-sample 10] [--skip-over 1000] [--timeout 300]
        [--only SUBSTR] [--json OUT] [--misses N] [--unresolved N] [--seed S] [DIR_OR_PDF ...]

Defaults to ../shared/corpus/robust (family = MANIFEST.tsv ``family``), a seeded sample of
../shared/corpus/nist/pdfs ("nist") and ../shared/eval/pdfs ("eval"). Each PDF is parsed in a
child process with a time limit (layout and OCR off, as ``robust_check.py``); the tables are kept
in ``--cache`` under a key that leaves the reference grammar's own files out, so a grammar change
re-runs the census in seconds without parsing again (structure stages never read the grammar).

Per reference (``crossrefs.extract_references`` over every line, the rows ``--eager-refs``
stores): internal or external, and for an internal one what ``resolve_in_tables`` makes of it
(``resolved`` with its method, or ``unresolved``), resolved where it is written (the same text at
another line may mean another target: "paragraph (a) of this section"). The recall probe: lines holding a
reference-like label (Section, §, Table, Tab., Fig., Appendix, Exhibit, page, item, ... and the
main European languages' labels) followed by a number or a letter where no reference was found
at that place; a seeded sample of them is printed to be judged by hand.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import multiprocessing as mp
import os
import random
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DOCINTEL_SHARED", ROOT.parent / "shared"))
OFF_DOC = ("external", "bib")

#: A label word a pointer opens with, then an id: what the recall probe looks for.
PROBE = re.compile(
    r"(?<![\w\u00a7])(?P<label>(?i:sections?|sec\.?|sects?\.|clauses?|articles?|art\.|tables?|tab\.|"
    r"figures?|figs?\.?|appendix|appendices|app\.|annex(?:es)?|exhibits?|schedules?|attachments?|"
    r"notes?|pages?|pp?\.|paragraphs?|paras?\.|items?|chapters?|ch\.|parts?|"
    r"abschnitt|tabelle|abbildung|anhang|kapitel|seite|"
    r"tableau|annexe|chapitre|paragraphe|"
    r"secci[óo]n|tabla|cuadro|anexo|cap[íi]tulo|art[íi]culo|p[áa]gina|"
    r"se[çc][ãa]o|tabela|gr[áa]fico|ap[êe]ndice|figura)|\u00a7{1,2})"
    r"(?:[\s\u00a0]+|(?<=[.\u00a7])[\s\u00a0]*)(?P<id>\[?\(?(?:[0-9]+(?:[.\-][0-9]+)*[a-z]?|[A-Z](?:[.\-][0-9]+)*|[IVXivx]{1,5})\b\)?\]?)"
)


#: A label opening its line and followed by a delimiter, or by a capitalized title ("§ 164.502 Uses
#: and disclosures ...", a heading the toc may miss), names the line itself: the resolver's
#: labelled lines read it so (``reflines._SELF``) and never send a reference to its own line.
SELF_LABEL = re.compile(r"[ \t]*(?:[:.\u2013\u2014|]|\s-\s|\s*$)|[ \t\u00a0]+[A-Z\u00c0-\u00de]")


def _fingerprint() -> str:
    """The parsing package's source without the grammar's files (ref*.py, crossrefs.py)."""
    h = hashlib.sha256()
    for f in sorted((ROOT / "docintel" / "parsing").glob("*.py")):
        if f.name.startswith("ref") or f.name == "crossrefs.py":
            continue
        h.update(f.name.encode() + f.read_bytes())
    return h.hexdigest()[:12]


def _tables(path: Path, cache: Path):
    from docintel.parsing import parse_document, store

    key = hashlib.sha256(path.read_bytes()).hexdigest()[:16] + "-" + _fingerprint()
    snap = cache / key
    got = store.load(snap)
    if got is not None:
        return got
    tables = parse_document(path, layout="never", ocr="never", out_dir=None, use_cache=False)
    store.save(tables, snap)
    return tables


def census_one(path: str, cache: str) -> dict:
    """Every reference of one PDF with its resolution, and the recall probe's misses."""
    sys.path.insert(0, str(ROOT))
    import pandas as pd

    from docintel.parsing.crossrefs import extract_references
    from docintel.parsing.refpatterns import find_references
    from docintel.retrieval.resolve import resolve_in_tables
    from docintel.schema.answer import PendingReference
    from docintel.schema.evidence import ParsedQuestion
    from docintel.schema.kinds import FURNITURE_ROLES

    tables = _tables(Path(path), Path(cache))
    lines = tables.line_df[~tables.line_df["role"].fillna("body").isin([*FURNITURE_ROLES, "toc_entry"])]
    refs = extract_references(lines, tables.doc_id)
    text_at = {(int(r.page), int(r.line)): str(r.text) for r in lines.itertuples()}
    q = ParsedQuestion(text="")
    out, seen = [], {}
    for r in refs.itertuples():
        where = (int(r.origin_page), int(r.origin_line))
        row = {"page": where[0], "line": where[1], "anchor": r.anchor_text, "ref_type": r.ref_type,
               "target": _s(r.ref_target), "sub": _s(r.sub_selector), "text": text_at.get(where, "")[:160]}  # fmt: skip
        if r.ref_type in OFF_DOC:
            row.update(status=r.ref_type, method="")
        else:
            key = (str(r.anchor_text), where)  # resolution depends on where the reference is written
            if key not in seen:
                ref = PendingReference(raw_text=key[0][:200], ref_type="unknown", origin_page=where[0],
                                       origin_line=where[1])  # fmt: skip
                res = resolve_in_tables(ref, tables, question=q, max_lines=40)
                here = any(where == (ln.page, ln.line) for p in res.passages for ln in p.lines[:1])
                seen[key] = (
                    res.status,
                    res.method,
                    str(res.target or ""),
                    sorted(res.target_pages)[:3],
                    here,
                )
            st, method, tgt, pages, here = seen[key]
            row.update(status=st, method=method, resolved_to=tgt, target_pages=pages, self_target=here)
        out.append(row)
    misses = []
    for (page, line), text in text_at.items():
        for m in PROBE.finditer(text):
            if not any(
                x["start"] <= m.start("id") < x["end"] + 1 for x in find_references(text, relative=True)
            ):
                misses.append({"page": page, "line": line, "hit": m.group(0), "text": text[:160]})
    return {"refs": out, "misses": misses, "pages": int(len(tables.page_df)),
            "labels": int(tables.page_df["printed_label"].notna().sum()), "toc": int(len(tables.toc_df)),
            "objects": int(len(tables.object_registry)), "lines": int(len(pd.Index(text_at)))}  # fmt: skip


def _s(v) -> str | None:
    return v if isinstance(v, str) and v else None


def _child(path: str, cache: str, q) -> None:
    t0 = time.perf_counter()
    try:
        res = census_one(path, cache)
    except Exception as exc:  # noqa: BLE001 - a failed file is counted, the census goes on
        res = {"error": f"{type(exc).__name__}: {str(exc)[:200]}"}
    res["seconds"] = round(time.perf_counter() - t0, 1)
    q.put(res)


def run_one(path: Path, args) -> dict:
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(str(path), str(args.cache), q))
    p.start()
    try:
        res = q.get(timeout=args.timeout)
    except Exception:  # noqa: BLE001
        res = {"error": f"timeout after {args.timeout}s or child died"}
    p.join(5)
    if p.is_alive():
        p.terminate()
        p.join()
    return res


def _inputs(args) -> list[tuple[Path, str, int]]:
    out = []
    for p in args.paths or [str(SHARED / "corpus" / "robust"), str(SHARED / "corpus" / "nist" / "pdfs"),
                            str(SHARED / "eval" / "pdfs")]:  # fmt: skip
        path = Path(p)
        if path.is_file():
            out.append((path, "given", 0))
            continue
        man = path / "MANIFEST.tsv"
        fam = {}
        if man.exists():
            with man.open(newline="", encoding="utf-8") as f:
                fam = {
                    r["file"]: (r["family"], int(r["pages"] or 0)) for r in csv.DictReader(f, delimiter="\t")
                }
        pdfs = sorted(path.glob("*.pdf"))
        if "nist" in path.parts and args.nist_sample:
            pdfs = sorted(random.Random(args.seed).sample(pdfs, min(args.nist_sample, len(pdfs))))
        default = "nist" if "nist" in path.parts else "eval" if "eval" in path.parts else path.name
        for pdf in pdfs:
            family, pages = fam.get(pdf.name, (default, 0))
            out.append((pdf, family, pages))
    return out


def names_itself(r: dict) -> bool:
    """A heading or caption naming itself ("Table 3: ...", "SECTION 4 - SIGNATURE"): the label
    opens its line (after a margin line number) and a delimiter follows; not a pointer (the loop's detector drops these too)."""
    own, anchor = str(r.get("text") or "").lstrip(), str(r["anchor"])
    if not anchor[:1].isdigit():  # a line-numbered standard's "3487 Appendix A. Acknowledgments"
        own = re.sub(r"^[0-9]{1,5}[ \t]+", "", own)
    return own.startswith(anchor) and bool(SELF_LABEL.match(own[len(anchor) :][:4]))


def summarize(results: dict, args) -> None:
    fams: dict[str, Counter] = defaultdict(Counter)
    kinds: dict[str, Counter] = defaultdict(Counter)
    for res in results.values():
        f = fams[res["family"]]
        f["files"] += 1
        if "error" in res:
            f["error"] += 1
            continue
        f["misses"] += len(res["misses"])
        for r in res["refs"]:
            if names_itself(r):
                f["self labels"] += 1
                continue
            if r["status"] in OFF_DOC:
                f[r["status"]] += 1
                continue
            f["internal"] += 1
            ok = r["status"] == "resolved"
            f["resolved"] += ok
            f["self"] += bool(ok and r.get("self_target"))
            kinds[r["ref_type"]]["n"] += 1
            kinds[r["ref_type"]]["resolved"] += ok
            kinds[r["ref_type"]][f"{res['family']}"] += not ok
    cols = ("files", "error", "self labels", "internal", "resolved", "self", "external", "bib", "misses")
    print("\n| family | " + " | ".join(cols) + " | resolved % |\n|---" * 1 + "|---" * (len(cols) + 1) + "|")
    tot = Counter()
    for fam in sorted(fams):
        c = fams[fam]
        tot.update(c)
        pct = f"{100 * c['resolved'] / c['internal']:.0f}%" if c["internal"] else "-"
        print(f"| {fam} | " + " | ".join(str(c[k]) for k in cols) + f" | {pct} |")
    pct = f"{100 * tot['resolved'] / tot['internal']:.0f}%" if tot["internal"] else "-"
    print("| **all** | " + " | ".join(str(tot[k]) for k in cols) + f" | {pct} |")
    print("\n| ref_type | internal | resolved | unresolved by family |\n|---|---|---|---|")
    for k, c in sorted(kinds.items(), key=lambda kv: -kv[1]["n"]):
        by = ", ".join(f"{f} {n}" for f, n in c.items() if f not in ("n", "resolved") and n)
        print(f"| {k} | {c['n']} | {c['resolved']} | {by} |")
    rng = random.Random(args.seed)
    pool = [
        (n, r)
        for n, res in results.items()
        for r in res.get("refs", [])
        if r["status"] == "unresolved" and not names_itself(r)
    ]
    if args.unresolved:
        print(f"\n## unresolved sample ({min(args.unresolved, len(pool))} of {len(pool)})")
        for n, r in rng.sample(pool, min(args.unresolved, len(pool))):
            print(
                f"- [{r['ref_type']}:{r['target']}|{r['sub'] or ''}] {r['anchor']!r} << {r['text']!r} >> ({n[:30]} p{r['page']})"
            )
    pool = [(n, m) for n, res in results.items() for m in res.get("misses", [])]
    if args.misses:
        print(f"\n## recall probe sample ({min(args.misses, len(pool))} of {len(pool)})")
        for i, (n, m) in enumerate(rng.sample(pool, min(args.misses, len(pool))), 1):
            print(f"{i:3d}. {m['hit']!r} << {m['text']!r} >> ({n[:30]} p{m['page']})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--nist-sample", type=int, default=10, help="NIST PDFs drawn (0: all)")
    ap.add_argument("--skip-over", type=int, default=1000, help="skip PDFs with more pages than this")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--only", default="")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/docintel-ref-census"))
    ap.add_argument("--json", type=Path)
    ap.add_argument("--from-json", type=Path, help="summarize a saved run instead of running")
    ap.add_argument("--misses", type=int, default=0, help="recall-probe misses sampled")
    ap.add_argument("--unresolved", type=int, default=0, help="unresolved references sampled")
    ap.add_argument("--seed", type=int, default=10)
    args = ap.parse_args(argv)
    if args.from_json:
        summarize(json.loads(args.from_json.read_text()), args)
        return 0
    todo = [x for x in _inputs(args) if x[0].exists()]
    if not todo:
        print("Error: no PDFs found; give folders or PDFs (default: ../shared corpora)", file=sys.stderr)
        return 1
    results = {}
    for pdf, family, pages in todo:
        if args.only and args.only not in pdf.name or (args.skip_over and pages > args.skip_over):
            continue
        res = run_one(pdf, args)
        res["family"] = family
        results[pdf.name] = res
        n = len(res.get("refs", []))
        print(f"{pdf.name}: {res.get('error') or 'ok'} {res.get('seconds', '')}s refs={n}", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False))
    summarize(results, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
