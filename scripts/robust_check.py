"""Regression run over the robustness corpus: every file parses, and structure invariants hold.

Usage:
    python scripts/robust_check.py [--corpus DIR] [--layout never|auto] [--ocr never|auto]
        [--timeout S] [--skip-over N] [--only SUBSTR] [--json OUT] [--dump DIR]

The corpus (``$DOCINTEL_SHARED/corpus/robust``, default ``../shared``) has no ground truth,
so the checks compare the parse with itself and with the PDF's own text. Each file is parsed
in a child process with a time limit. Per file it counts:

- ``error``: the whole parse raised, timed out, or came back with a different page count;
- ``stage_errors``: structure stages that failed (manifest ``stage_errors``);
- ``caption_missing``: body lines opening like a caption ("Table 4:", "Figure 2.", "Exhibit B")
  with no registry object of that type and id;
- ``provision_missing``: lines in heading position (bold, or role heading) opening with a
  provision number ("3.1.2", "Section 6.03", "ARTICLE IV", "§ 1308.11") that no toc_df row starts at
  (table cells and enumerations "§1)" are not counted);
- ``long_heading``: toc_df titles longer than a sentence (over 160 characters or 25 words);
- ``toc_order``: siblings in toc_df whose numbers decrease (each id keyword, "Schedule", "Article",
  numbers its own sequence);
- ``label_order``: printed page labels (arabic) that decrease from one page to the next.

Census (counts, not violations): ``tables_uncaptioned`` (registry tables found without a
caption, ``source`` table_detection), ``tables_with_cells`` (registry tables that have cells)
and ``pages_text_gaps`` (pages with a ``page_df.text_gaps`` flag).

Totals are printed per family. A missing corpus folder is a skip (exit 0), not a failure.
"""

from __future__ import annotations

import argparse
import csv
import json
import multiprocessing as mp
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DOCINTEL_SHARED", ROOT.parent / "shared"))
CHECKS = ("caption_missing", "provision_missing", "long_heading", "toc_order", "label_order")
CENSUS = ("tables_uncaptioned", "tables_with_cells", "pages_text_gaps")

_CAPTION = re.compile(
    r"^(?P<kw>Table|Figure|Fig\.|Exhibit)\s+(?P<id>[0-9]{1,3}(?:[.\-][0-9]{1,3})?|[A-Z](?:-?[0-9]{1,2})?)"
    r"\s*(?:[:.\u2014\u2013]|\s-\s)"
)
#: An appendix numbers its own sequence ("Appendix 2" after note 27 is no decrease)
_BACK = re.compile(r"(?i:appendix|annex|schedule|exhibit|attachment)\b")
_PROVISION = re.compile(
    r"^(?:(?:Section|SECTION|Sec\.|SEC\.)\s+(?P<sec>[0-9]+(?:\.[0-9]+)*)"
    r"|(?:ARTICLE|Article)\s+(?P<art>[IVXLC]+|[0-9]+)\b"
    r"|\u00a7\s*(?P<ss>[0-9]+(?:\.[0-9]+)*)(?![0-9.)])"  # not an enumeration "\u00a71) Inzidenzaxiome"
    r"|(?P<dec>[0-9]{1,2}(?:\.[0-9]{1,3}){1,4})\.?\s+[A-Z])"
)
_EX_MAX = 25  # examples kept per check and file
_TYPES = {"table": "table", "figure": "figure", "fig.": "figure", "exhibit": "appendix"}


def _numkey(n: str) -> tuple | None:
    parts = re.findall(r"[0-9]+", str(n))
    if not parts:
        return None
    item = re.search(r"[0-9]([a-z])$", str(n))  # a form's line "1b" comes after "1a"
    return tuple(int(p) for p in parts) + ((ord(item.group(1)),) if item else ())


def check_tables(tables) -> dict:
    """The invariant counts of one parse (examples kept for the report)."""
    import pandas as pd

    out: dict = {k: 0 for k in CHECKS}
    ex: dict[str, list[str]] = {k: [] for k in CHECKS}
    lines, toc, reg = tables.line_df, tables.toc_df, tables.object_registry

    def bump(k: str, what: str) -> None:
        out[k] += 1
        if len(ex[k]) < _EX_MAX:
            ex[k].append(what[:100])

    have = set()
    for r in reg.itertuples():
        t = {"annex": "appendix", "schedule": "appendix", "exhibit": "appendix"}.get(
            r.object_type, r.object_type
        )
        have.add((t, str(r.object_id).lower()))
    body = lines[lines["role"].isin(["body", "list_item", "caption", "figure_text", "table"])]
    for r in body.itertuples():
        m = _CAPTION.match(str(r.text))
        if m and (_TYPES[m.group("kw").lower()], m.group("id").lower()) not in have:
            bump("caption_missing", f"p{r.page}: {r.text}")
    starts = {(int(r.page_start), int(r.line_start)) for r in toc.itertuples() if pd.notna(r.line_start)}
    heads = lines[(lines["role"] == "heading") | lines["bold"].fillna(False).astype(bool)]
    # a table's column header "Section 1." is a cell, not a provision
    heads = heads[~heads["role"].isin(["header", "footer", "page_number", "toc_entry", "title", "table"])]
    for r in heads.itertuples():
        if _PROVISION.match(str(r.text).strip()) and (int(r.page), int(r.line)) not in starts:
            bump("provision_missing", f"p{r.page}: {r.text}")
    for r in toc.itertuples():
        t = str(r.title or "")
        if len(t) > 160 or len(t.split()) > 25:
            bump("long_heading", f"p{r.page_start}: {t}")
    prev: dict = {}
    for r in toc.itertuples():
        key = _numkey(r.number) if isinstance(r.number, str) else None
        if key is None:
            continue
        # "Schedule 1" after note 27, "Article 5" after "Section 2": one sequence per keyword
        kw = re.match(r"[A-Za-z]+(?= )", str(r.toc_id)) or _BACK.match(str(r.title or ""))
        sib = (
            r.parent_id if isinstance(r.parent_id, str) else None,
            int(r.level),
            len(key),
            kw and kw[0].lower(),
        )
        if sib in prev and key <= prev[sib]:
            bump("toc_order", f"p{r.page_start}: {r.number} after {'.'.join(map(str, prev[sib]))}")
        prev[sib] = key
    last = None
    for r in tables.page_df.sort_values("page").itertuples():
        lab = r.printed_label
        if isinstance(lab, str) and lab.isdigit():
            if last is not None and int(lab) < last:
                bump("label_order", f"p{r.page}: {lab} after {last}")
            last = int(lab)
    out["examples"] = {k: v for k, v in ex.items() if v}
    return out


def _dump(tables, path: str, out_dir: str) -> None:
    """Write the file's toc_df and heading-like lines as TSV (for diffing two runs)."""
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    stem = Path(path).stem
    cols = ["toc_id", "level", "number", "title", "page_start", "line_start", "parent_id"]
    tables.toc_df[[c for c in cols if c in tables.toc_df]].to_csv(
        d / f"{stem}.toc.tsv", sep="\t", index=False
    )


def _child(path: str, layout: str, ocr: str, q, dump: str | None = None) -> None:
    sys.path.insert(0, str(ROOT))
    from docintel.parsing import parse_document

    t0 = time.perf_counter()
    try:
        tables = parse_document(path, layout=layout, ocr=ocr, out_dir=None, use_cache=False)
        res = check_tables(tables)
        if dump:
            _dump(tables, path, dump)
        res.update(
            pages=int(len(tables.page_df)),
            toc_rows=int(len(tables.toc_df)),
            objects=int(len(tables.object_registry)),
            stage_errors=len(tables.manifest.get("stage_errors") or {}),
            tables_uncaptioned=int((tables.object_registry["source"] == "table_detection").sum()),
            tables_with_cells=int(tables.cell_df["object_key"].nunique()),
            pages_text_gaps=int(tables.page_df["text_gaps"].notna().sum()),
            stage_error_names=sorted(tables.manifest.get("stage_errors") or {}),
        )
    except Exception as exc:  # noqa: BLE001 - the point is to count these
        res = {"error": f"{type(exc).__name__}: {str(exc)[:200]}"}
    res["seconds"] = round(time.perf_counter() - t0, 1)
    q.put(res)


def run_one(path: Path, args) -> dict:
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(str(path), args.layout, args.ocr, q, args.dump))
    p.start()
    p.join(args.timeout)
    if p.is_alive():
        p.terminate()
        p.join()
        return {"error": f"timeout after {args.timeout}s"}
    try:
        return q.get(timeout=5)
    except Exception:  # noqa: BLE001
        return {"error": f"child died (exit code {p.exitcode})"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=SHARED / "corpus" / "robust")
    ap.add_argument("--layout", default="never", choices=["never", "auto", "always"])
    ap.add_argument("--ocr", default="never", choices=["never", "auto"])
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per file")
    ap.add_argument(
        "--skip-over",
        type=int,
        default=0,
        help="skip files with more pages than this (the 2,146-page novel: --skip-over 1000)",
    )
    ap.add_argument("--only", default="", help="only files whose name contains this")
    ap.add_argument("--json", type=Path, help="write per-file results here")
    ap.add_argument("--dump", help="write each file's toc_df here as TSV (to diff two runs)")
    args = ap.parse_args(argv)
    manifest = args.corpus / "MANIFEST.tsv"
    if not manifest.exists():
        print(f"skip: no robust corpus at {args.corpus}", file=sys.stderr)
        return 0
    rows = list(csv.DictReader(manifest.open(encoding="utf-8"), delimiter="\t"))
    rows.sort(key=lambda r: int(r["pages"] or 0))  # the long files last
    results: dict[str, dict] = {}
    for row in rows:
        name = row["file"]
        if args.only and args.only not in name:
            continue
        if args.skip_over and int(row["pages"] or 0) > args.skip_over:
            print(f"{name}: skipped ({row['pages']} pages)", file=sys.stderr)
            continue
        res = run_one(args.corpus / name, args)
        if "error" not in res and res["pages"] != int(row["pages"]):
            res["error"] = f"page count {res['pages']} != manifest {row['pages']}"
        res["family"] = row["family"]
        results[name] = res
        counts = " ".join(f"{k}={res.get(k, '-')}" for k in ("stage_errors", *CHECKS, *CENSUS))
        print(f"{name}: {res.get('error') or 'ok'} {res.get('seconds', '')}s {counts}")
        sys.stdout.flush()
    fams: dict[str, dict] = {}
    for res in results.values():
        f = fams.setdefault(
            res["family"], {"files": 0, "error": 0, "stage_errors": 0, **dict.fromkeys((*CHECKS, *CENSUS), 0)}
        )
        f["files"] += 1
        f["error"] += int("error" in res)
        for k in ("stage_errors", *CHECKS, *CENSUS):
            f[k] += int(res.get(k) or 0)
    cols = ["files", "error", "stage_errors", *CHECKS, *CENSUS]
    print("\n| family | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for fam in sorted(fams):
        print(f"| {fam} | " + " | ".join(str(fams[fam][c]) for c in cols) + " |")
    tot = {c: sum(f[c] for f in fams.values()) for c in cols}
    print("| **all** | " + " | ".join(str(tot[c]) for c in cols) + " |")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
