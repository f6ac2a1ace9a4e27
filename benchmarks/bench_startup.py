"""CLI start-up cost: import time and CPU seconds of short verbs, lazy layout on and off.

Usage: python benchmarks/bench_startup.py [--pdf PDF] [--repeat N] [--artifacts DIR]

In one run, for the deferred layout import (default) and for ``DOCINTEL_EAGER_LAYOUT=1``
side by side: ``python -X importtime -c "import docintel"`` (and of what a cached ``ask`` imports),
then the CPU seconds (user + sys of the child, median of N) of ``import docintel, pymupdf``
(what every parse pays, where the deferral acts), ``docintel --help``,
``docintel tables PDF toc_df`` on a cached document and a cached ``docintel ask``. The cached
ask is then broken down: interpreter start, imports (``-X importtime``, by top-level package),
loading the cached tables, and the ask's stages from its trace (``timings``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
QUESTION = "How is the rv_length_indicator computed?"
MODES = {"lazy": {}, "eager": {"DOCINTEL_EAGER_LAYOUT": "1"}}


def _env(extra: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "DOCINTEL_EAGER_LAYOUT"}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return {**env, **extra}


def cpu_of(cmd: list[str], env: dict) -> float:
    """User + sys CPU seconds of one child process (and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"Error: {' '.join(cmd[:5])} ... failed: {proc.stderr.strip()[-300:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def median_cpu(cmd: list[str], env: dict, repeat: int) -> float:
    return statistics.median(cpu_of(cmd, env) for _ in range(repeat))


def importtime(cmd_args: list[str], env: dict) -> tuple[float, dict[str, float]]:
    """Total self import time (s) of a run and the share of each top-level package."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *cmd_args], env=env, capture_output=True, text=True, check=False
    )
    by_pkg: dict[str, float] = defaultdict(float)
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        parts = line.split("|")
        try:
            self_us = int(parts[0].split(":")[1])
        except (IndexError, ValueError):
            continue
        name = parts[2].strip().split(".")[0]
        by_pkg[name] += self_us / 1e6
    return sum(by_pkg.values()), dict(by_pkg)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pdf", type=Path, default=REPO / "pdfs" / "nist_sp800-106.pdf")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--artifacts", type=Path, default=None, help="cache folder (default: a temporary one)")
    args = ap.parse_args()
    if not args.pdf.is_file():
        print(f"Error: no such PDF: {args.pdf}", file=sys.stderr)
        return 1
    art = args.artifacts or Path(tempfile.mkdtemp(prefix="docintel-bench-startup-"))
    py = sys.executable
    cli = [py, "-m", "docintel"]
    trace = art / "bench-trace.json"
    verbs = {
        "python -c pass (interpreter)": [py, "-c", "pass"],
        "import docintel, pymupdf (what a parse pays)": [py, "-c", "import docintel, pymupdf"],
        "docintel --help": [*cli, "--help"],
        "docintel tables PDF toc_df (cached)": [
            *cli,
            "tables",
            str(args.pdf),
            "toc_df",
            "--artifacts",
            str(art),
        ],
        "docintel ask PDF Q (cached, offline)": [
            *cli,
            "ask",
            str(args.pdf),
            QUESTION,
            "--artifacts",
            str(art),
            "--trace",
            str(trace),
        ],  # fmt: skip
    }
    cpu_of(verbs["docintel ask PDF Q (cached, offline)"], _env({}))  # parse once: later runs are cached
    rows: dict[str, dict[str, float]] = defaultdict(dict)
    packages: dict[str, dict[str, float]] = {}
    stages: dict[str, dict] = {}
    load_code = (
        "import time, docintel.api as a; t = time.process_time(); "
        f"a.parse({str(args.pdf)!r}, out_dir={str(art)!r}); print(time.process_time() - t)"
    )
    for mode, extra in MODES.items():
        env = _env(extra)
        rows["import docintel (-X importtime, s)"][mode] = importtime(["-c", "import docintel"], env)[0]
        total, by_pkg = importtime(
            ["-m", "docintel", *verbs["docintel ask PDF Q (cached, offline)"][3:]], env
        )
        rows["imports of a cached ask (-X importtime, s)"][mode] = total
        packages[mode] = by_pkg
        for label, cmd in verbs.items():
            rows[f"{label}: CPU s"][mode] = median_cpu(cmd, env, args.repeat)
        load = subprocess.run([py, "-c", load_code], env=env, capture_output=True, text=True, check=True)
        rows["cached tables load in-process: CPU s"][mode] = float(load.stdout.strip().splitlines()[-1])
        stages[mode] = json.loads(trace.read_text())["timings"]

    print(f"python {sys.version.split()[0]}, {args.pdf.name}, median of {args.repeat}; cache {art}\n")
    print(f"{'':52} {'lazy':>8} {'eager':>8} {'eager/lazy':>10}")
    for label, v in rows.items():
        ratio = v["eager"] / v["lazy"] if v["lazy"] else float("nan")
        print(f"{label:52} {v['lazy']:8.3f} {v['eager']:8.3f} {ratio:10.2f}")
    print("\ncached ask, imports by top-level package (s, self time, -X importtime):")
    top = sorted(packages["lazy"], key=lambda k: -packages["lazy"][k])[:10]
    for name in top:
        print(f"  {name:28} {packages['lazy'][name]:8.3f} {packages['eager'].get(name, 0.0):8.3f}")
    print("\ncached ask, stages from the trace (wall s, lazy / eager):")
    for name in stages["lazy"]:
        print(f"  {name:28} {stages['lazy'][name]:8.3f} {stages['eager'].get(name, 0.0):8.3f}")
    ask = rows["docintel ask PDF Q (cached, offline): CPU s"]["lazy"]
    print(
        f"\ntarget: cached CLI ask < 0.4 s CPU: {'met' if ask < 0.4 else 'NOT met'} ({ask:.3f} s, lazy layout)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
