"""Fuzz and fault run: hundreds of malformed PDFs through the parser and its cache, with counts.

Builds mutations (byte flips, truncations, stream damage, filters, lost /Contents, junk
prefixes, shuffled chunks) of the repo's pdfs/, the test fixtures and generated documents, plus
the hand-made hostile files of tests/fuzz/hostile.py, parses each under the budgets and reports:

- tracebacks / "unexpected" errors (any exception that is not a DocintelError, or a message
  that is not one line),
- hangs past the budget (wall time over the document budget + slack),
- memory overruns (worker peak RSS over the budget),
- silent empty pages (a page that had text in the undamaged base, now has no line, no error
  and is not image-only),
- partial writes (temp folders left, or tables cached for a failed parse),
- corrupted cache entries served (a byte of a cached table flipped, then read again),
- cached reads of an encrypted file without (or with a wrong) password.

    python scripts/fuzz_run.py --count 400 --out /tmp/fuzz [--minutes 20]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PAGE_S, DOC_S, MEM_MB, SLACK_S = 20, 90, 2048, 15


def _bases() -> dict[str, bytes]:
    from tests.fuzz import hostile
    from tests.fuzz.mutate import uncompressed

    bases = {p.name: p.read_bytes() for p in sorted((REPO / "pdfs").glob("*.pdf"))}
    bases |= {p.name: p.read_bytes() for p in sorted((REPO / "tests/data/fixtures").glob("*.pdf"))}
    bases["generated_3p.pdf"] = hostile.text_pdf(3)
    bases["generated_12p_plain.pdf"] = hostile.text_pdf(12, deflate=False)
    bases["nist_uncompressed.pdf"] = uncompressed(bases["nist_sp800-106.pdf"])
    return bases


def _lines_per_page(tables) -> dict[int, int]:
    return dict(zip(tables.page_df["page"].astype(int), tables.page_df["n_lines"].astype(int), strict=True))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=400, help="mutated files (the hostile ones come on top)")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--out", default="/tmp/docintel-fuzz")
    ap.add_argument("--minutes", type=float, default=20, help="stop starting new files after this long")
    args = ap.parse_args()
    os.environ.setdefault("DOCINTEL_PAGE_TIMEOUT", str(PAGE_S))
    os.environ.setdefault("DOCINTEL_PARSE_TIMEOUT", str(DOC_S))
    os.environ.setdefault("DOCINTEL_MAX_MEMORY_MB", str(MEM_MB))

    from docintel.errors import DocintelError
    from docintel.parsing import parse_document
    from tests.fuzz import hostile
    from tests.fuzz.mutate import MUTATIONS

    out = Path(args.out)
    files, artifacts = out / "files", out / "artifacts"
    files.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    opts = {"layout": "never", "ocr": "never"}
    bases = _bases()
    base_lines = {
        n: _lines_per_page(parse_document_safe(parse_document, d, files / n, opts)) for n, d in bases.items()
    }
    jobs: list[tuple[str, bytes, str | None]] = []
    names = sorted(bases)
    for i in range(args.count):
        base = names[i % len(names)]
        kind = list(MUTATIONS)[(i // len(names)) % len(MUTATIONS)]
        jobs.append((f"{i:04d}_{kind}_{base}", MUTATIONS[kind](bases[base], rng), base))
    for name, (gen, _) in hostile.HOSTILE.items():
        jobs.append((f"hostile_{name}.pdf", gen(), None))

    counts: Counter = Counter()
    log = (out / "results.jsonl").open("w")
    t_start = time.monotonic()
    for name, data, base in jobs:
        if time.monotonic() - t_start > args.minutes * 60:
            counts["not run (time)"] += 1
            continue
        f = files / name
        f.write_bytes(data)
        rec = {"file": name, "bytes": len(data)}
        t0 = time.monotonic()
        try:
            password = "secret" if "encrypted" in name else None
            tables = parse_document(f, out_dir=artifacts, password=password, **opts)
            rec["outcome"] = "parsed"
        except DocintelError as exc:
            tables = None
            msg = str(exc)
            rec["outcome"], rec["error"] = "error", msg[:300]
            if "\n" in msg.strip() or "unexpected" in msg:
                counts["unexpected errors"] += 1
        except Exception as exc:  # what the CLI would print as "unexpected"
            tables = None
            rec["outcome"], rec["error"] = "unexpected", f"{type(exc).__name__}: {exc}"[:300]
            counts["unexpected errors"] += 1
        rec["seconds"] = round(time.monotonic() - t0, 2)
        counts[rec["outcome"]] += 1
        if rec["seconds"] > DOC_S + SLACK_S:
            counts["hangs past budget"] += 1
        if rec.get("error", "").find("budget") >= 0:
            counts["stopped by a budget"] += 1
        counts["partial writes"] += _partial(artifacts, tables)
        if tables is None and rec["outcome"] == "error":  # a failed first parse leaves no folder
            import hashlib

            doc_dir = artifacts / hashlib.sha256(data).hexdigest()[:16]
            counts["partial writes"] += int(doc_dir.exists() and not any(doc_dir.iterdir()))
        if tables is not None:
            silent = _silent_pages(tables, base_lines.get(base))
            rec["silent_empty_pages"] = silent
            counts["silent empty pages"] += len(silent)
            counts["pages flagged damaged"] += int(tables.page_df["error"].notna().sum())
            counts["files with flagged pages"] += int(tables.page_df["error"].notna().any())
            if rng.random() < 0.25:
                counts["corrupted entries checked"] += 1
                counts["corrupted entries served"] += _corrupt_and_reread(
                    parse_document, f, tables, rng, opts, password
                )
            if password:
                counts["cached reads without password"] += _read_without_password(
                    parse_document, f, artifacts, opts
                )
        log.write(json.dumps(rec) + "\n")
        log.flush()
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    counts["memory overruns"] += int(peak_mb > MEM_MB + _own_mb())
    counts["files"] = len(jobs) - counts["not run (time)"]
    summary = {
        **{k: counts[k] for k in sorted(counts)},
        "worker peak RSS MB": round(peak_mb),
        "minutes": round((time.monotonic() - t_start) / 60, 1),
    }
    for k in ("tracebacks", "unexpected errors", "hangs past budget", "memory overruns"):
        summary.setdefault(k, counts[k])
    print(json.dumps(summary, indent=2))
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return 0


def parse_document_safe(parse_document, data: bytes, path: Path, opts: dict):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return parse_document(path, out_dir=None, **opts)


def _own_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _partial(artifacts: Path, tables) -> int:
    """Temp folders or links anywhere, or (after a failure) nothing should be half-there."""
    bad = 0
    if artifacts.exists():
        for p in artifacts.glob("*/.*"):
            if ".tmp-" in p.name or ".link-" in p.name:
                bad += 1
    if tables is not None:
        from docintel.parsing import store

        _, problem = store.load_checked(Path(tables.manifest["cache_dir"]))
        bad += problem is not None
    return bad


def _silent_pages(tables, base: dict[int, int] | None) -> list[int]:
    """Pages with text in the undamaged base that came back empty, without an error or flag."""
    pdf_ = tables.page_df
    empty = pdf_[
        (pdf_["n_lines"] == 0) & pdf_["error"].isna() & ~pdf_["image_only"].fillna(False).astype(bool)
    ]
    if base is None:
        return []
    if len(pdf_) != len(base):  # page tree damaged: compare the document as a whole
        had = sum(1 for n in base.values() if n > 0)
        return [int(p) for p in empty["page"]] if len(empty) and had == len(base) else []
    return [int(p) for p in empty["page"] if base.get(int(p), 0) > 0]


def _corrupt_and_reread(parse_document, f: Path, tables, rng: random.Random, opts: dict, password) -> int:
    """Flip a byte of one cached table, read again: served only if the checksum missed it."""
    live = Path(tables.manifest["cache_dir"]).resolve()
    victim = live / rng.choice(sorted(p.name for p in live.glob("*.parquet")))
    data = bytearray(victim.read_bytes())
    data[rng.randrange(len(data))] ^= 0xFF
    victim.write_bytes(bytes(data))
    again = parse_document(
        f, out_dir=Path(tables.manifest["cache_dir"]).parents[1], password=password, **opts
    )
    return int(bool(again.manifest.get("cache_hit")))


def _read_without_password(parse_document, f: Path, artifacts: Path, opts: dict) -> int:
    served = 0
    for pw in (None, "wrong"):
        try:
            parse_document(f, out_dir=artifacts, password=pw, **opts)
            served += 1
        except Exception:
            pass
    return served


if __name__ == "__main__":
    sys.exit(main())
