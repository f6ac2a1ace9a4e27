"""Cost of ``--layout auto`` against ``never`` and the image-free floor, two code trees side by side.

Usage: python benchmarks/bench_layout.py [PDF ...] [--baseline DIR] [--modes never,auto] [--full] [--model]
       [--escalation] [--repeat N]

Without PDFs it reads the eight NIST SPs of ``bench_escalation.py`` (1,495 pages). Each
(tree, mode) runs in a fresh child process (``PYTHONPATH`` = the tree; ``DOCINTEL_PARSE_WORKER=0``,
``--ocr never``, no cache): the page stage (``parse_with_pymupdf(..., pages_only=True)``), or the
whole ``parse_document`` with ``--full``. CPU = the child's own CPU plus that of the processes it
forked and reaped during the parse (the layout workers), so a pool cannot hide its cost; wall
seconds beside it. The floor is ``get_text("dict")`` without ``TEXT_PRESERVE_IMAGES`` (what our
fast path asks for), in this process. ``--baseline`` is a checkout of the code before a change
(``git archive REV | tar -x -C DIR``). ``--model`` times the layout model alone, per tree: its
load, then ``page.get_layout()`` on the pages this tree's signals escalate (``--layout auto``,
decided with the model stubbed), CPU per page and whether both trees' boxes are equal.
``--escalation`` times escalation alone, per PDF and tree (fresh child, page stage, ``auto``):
the CPU inside ``layout.escalation_reasons`` and ``escalate.escalate`` (triage, model load, model
pages, forked workers included), in floor units of that PDF, best of ``--repeat``.
Asserts nothing: read the ratios, the CPU is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

_CHILD = r"""
import json, os, resource, sys, time
from pathlib import Path
paths, mode, full = [Path(p) for p in sys.argv[1].split(os.pathsep)], sys.argv[2], sys.argv[3] == "1"
from docintel.parsing import pdf as pdfmod
from docintel.parsing import pymupdf_backend as b
from docintel.parsing import parse_document
cpu = wall = 0.0
escalated = 0
for p in paths:
    data = pdfmod.read_pdf_bytes(p)
    c0, k0, w0 = time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    if full:
        t = parse_document(p, layout=mode, ocr="never", out_dir=None)
    else:
        doc = pdfmod.open_pdf(data, name=p.name)
        t = b.parse_with_pymupdf(doc, pdfmod.doc_id_for(data), layout_mode=mode, ocr_mode="never", pages_only=True)
    k1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu += time.process_time() - c0 + (k1.ru_utime - k0.ru_utime) + (k1.ru_stime - k0.ru_stime)
    wall += time.perf_counter() - w0
    escalated += int((t.page_df["parse_method"] == "layout").sum())
print(json.dumps({"cpu": cpu, "wall": wall, "escalated": escalated}))
"""


_MODEL_CHILD = r"""
import hashlib, json, sys, time
import docintel  # first: pymupdf's own layout import stays deferred
from docintel.parsing import layout
jobs = json.loads(sys.argv[1])
t0 = time.process_time()
layout._ensure_model()
load = time.process_time() - t0
import pymupdf
cpu, n, digest = 0.0, 0, hashlib.sha256()
for path, pages in jobs:
    doc = pymupdf.open(path)
    for p in pages:
        page = doc[p - 1]
        t0 = time.process_time()
        page.get_layout()
        cpu += time.process_time() - t0
        n += 1
        digest.update(json.dumps([path, p, page.layout_information]).encode())
print(json.dumps({"load": load, "cpu": cpu, "pages": n, "boxes": digest.hexdigest()[:12]}))
"""


_ESC_CHILD = r"""
import json, resource, sys, time
from docintel.parsing import escalate, layout
from docintel.parsing import pdf as pdfmod
from docintel.parsing import pymupdf_backend as b
spent = [0.0]
def timed(fn):
    def wrapper(*a, **k):
        c0, k0 = time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            return fn(*a, **k)
        finally:
            k1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            spent[0] += time.process_time() - c0 + (k1.ru_utime - k0.ru_utime) + (k1.ru_stime - k0.ru_stime)
    return wrapper
layout.escalation_reasons = timed(layout.escalation_reasons)
escalate.escalate = timed(escalate.escalate)
data = pdfmod.read_pdf_bytes(sys.argv[1])
doc = pdfmod.open_pdf(data, name=sys.argv[1])
c0 = time.process_time()
t = b.parse_with_pymupdf(doc, pdfmod.doc_id_for(data), layout_mode="auto", ocr_mode="never", pages_only=True)
total = time.process_time() - c0
print(json.dumps({"esc": spent[0], "total": total, "model": int((t.page_df["parse_method"] == "layout").sum())}))
"""


def run_escalation(trees: list[tuple[str, Path]], paths: list[Path], repeat: int) -> None:
    """Escalation's own CPU per PDF and tree, in floor units of that PDF (best of ``repeat``)."""
    names = [n for n, _ in trees]
    head = " | ".join(f"{n} esc s | {n} x floor | {n} model pages" for n in names)
    print(f"escalation alone (page stage, --layout auto), best of {repeat}\n")
    print(f"| PDF | pages | floor s | {head} |\n|---|---:|---:|" + "---:|" * (3 * len(names)))
    tot = {n: 0.0 for n in names}
    tot_floor, tot_pages, tot_model = 0.0, 0, {n: 0 for n in names}
    for p in paths:
        pages, fl = min((floor([p]) for _ in range(repeat)), key=lambda r: r[1])
        best: dict[str, dict] = {}
        for _ in range(repeat):
            for name, tree in trees:  # alternating: both trees see the same load
                env = {**os.environ, "PYTHONPATH": str(tree), "DOCINTEL_PARSE_WORKER": "0"}
                proc = subprocess.run(
                    [sys.executable, "-c", _ESC_CHILD, str(p)],
                    env=env, capture_output=True, text=True, check=False, cwd=tree,
                )  # fmt: skip
                if proc.returncode != 0:
                    raise SystemExit(f"Error: {tree} escalation run failed: {proc.stderr.strip()[-400:]}")
                r = json.loads(proc.stdout.strip().splitlines()[-1])
                if name not in best or r["esc"] < best[name]["esc"]:
                    best[name] = r
        cells = " | ".join(
            f"{best[n]['esc']:.2f} | {best[n]['esc'] / fl:.2f} | {best[n]['model']}" for n in names
        )
        print(f"| {p.name} | {pages} | {fl:.2f} | {cells} |", flush=True)
        tot_floor, tot_pages = tot_floor + fl, tot_pages + pages
        for n in names:
            tot[n] += best[n]["esc"]
            tot_model[n] += best[n]["model"]
    cells = " | ".join(f"{tot[n]:.2f} | {tot[n] / tot_floor:.2f} | {tot_model[n]}" for n in names)
    print(f"| all | {tot_pages} | {tot_floor:.2f} | {cells} |")


def model_pages(paths: list[Path]) -> list[tuple[str, list[int]]]:
    """The pages this tree's signals send to the model (``--layout auto``), the model stubbed."""
    from docintel.parsing import layout
    from docintel.parsing import pdf as pdfmod
    from docintel.parsing import pymupdf_backend as b

    real, layout._boxes = layout._boxes, lambda page: []
    try:
        out = []
        for p in paths:
            data = pdfmod.read_pdf_bytes(p)
            doc = pdfmod.open_pdf(data, name=p.name)
            t = b.parse_with_pymupdf(
                doc, pdfmod.doc_id_for(data), layout_mode="auto", ocr_mode="never", pages_only=True
            )
            pdf_ = t.page_df
            out.append((str(p), [int(x) for x in pdf_.loc[pdf_["parse_method"] == "layout", "page"]]))
        return out
    finally:
        layout._boxes = real


def run_model(trees: list[tuple[str, Path]], paths: list[Path]) -> None:
    jobs = model_pages(paths)
    print(f"layout model on {sum(len(p) for _, p in jobs)} pages (this tree's auto decision)\n")
    print("| tree | load CPU s | CPU s per page | boxes |\n|---|---:|---:|---|")
    for name, tree in trees:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        proc = subprocess.run(
            [sys.executable, "-c", _MODEL_CHILD, json.dumps(jobs)],
            env=env, capture_output=True, text=True, check=False, cwd=tree,
        )  # fmt: skip
        if proc.returncode != 0:
            raise SystemExit(f"Error: {tree} model run failed: {proc.stderr.strip()[-400:]}")
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        print(
            f"| {name} | {r['load']:.2f} | {r['cpu'] / max(r['pages'], 1):.3f} | {r['boxes']} |", flush=True
        )


def floor(paths: list[Path]) -> tuple[int, float]:
    import pymupdf

    flags = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES
    pages, cpu = 0, 0.0
    for p in paths:
        with pymupdf.open(p) as doc:
            t0 = time.process_time()
            for page in doc:
                page.get_text("dict", flags=flags)
            cpu += time.process_time() - t0
            pages += doc.page_count
    return pages, cpu


def run(tree: Path, paths: list[Path], mode: str, full: bool) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "DOCINTEL_PARSE_WORKER": "0"}
    arg = os.pathsep.join(str(p) for p in paths)
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, arg, mode, "1" if full else "0"],
        env=env, capture_output=True, text=True, check=False, cwd=tree,
    )  # fmt: skip
    if proc.returncode != 0:
        raise SystemExit(f"Error: {tree} --layout {mode} failed: {proc.stderr.strip()[-400:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    from bench_escalation import DEFAULT, NIST

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pdfs", nargs="*", type=Path)
    ap.add_argument("--baseline", type=Path, default=None, help="a checkout of the code before")
    ap.add_argument("--modes", default="never,auto")
    ap.add_argument("--full", action="store_true", help="the whole parse_document, not the page stage")
    ap.add_argument("--model", action="store_true", help="the layout model alone, per escalated page")
    ap.add_argument("--escalation", action="store_true", help="escalation's own CPU per PDF, in floor units")
    ap.add_argument("--repeat", type=int, default=1, help="best of N (--escalation)")
    args = ap.parse_args(argv)
    paths = [p.resolve() for p in args.pdfs] or [NIST / f"{n}.pdf" for n in DEFAULT]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        print(f"Error: PDF not found: {', '.join(missing)}", file=sys.stderr)
        return 1
    trees = [("before", args.baseline.resolve())] if args.baseline else []
    trees.append(("after", REPO))
    if args.model:
        run_model(trees, paths)
        return 0
    if args.escalation:
        run_escalation(trees, paths, args.repeat)
        return 0
    pages, floor_s = floor(paths)
    what = "parse_document" if args.full else "page stage"
    print(
        f"{len(paths)} PDFs, {pages} pages; {what}; image-free floor {floor_s:.2f} CPU s; cores {os.cpu_count()}"
    )
    print("\n| tree | mode | CPU s | x floor | wall s | escalated |\n|---|---|---:|---:|---:|---:|")
    cpu: dict[tuple[str, str], float] = {}
    for mode in args.modes.split(","):
        for name, tree in trees:  # the trees alternate: both see the same machine load
            r = run(tree, paths, mode, args.full)
            cpu[name, mode] = r["cpu"]
            print(
                f"| {name} | {mode} | {r['cpu']:.2f} | {r['cpu'] / floor_s:.1f} | {r['wall']:.2f} | {r['escalated']} |",
                flush=True,
            )
    for name, _ in trees:  # what escalation adds, in floor units of this run
        if (name, "auto") in cpu and (name, "never") in cpu:
            extra = cpu[name, "auto"] - cpu[name, "never"]
            print(f"{name}: auto - never = {extra:.2f} CPU s = {extra / floor_s:.1f} floor units")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
