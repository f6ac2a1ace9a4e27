"""CLI start-up cost: import time and CPU seconds of short verbs, side by side in one run.

Usage: python benchmarks/bench_startup.py [--pdf PDF] [--repeat N] [--artifacts DIR]
       [--baseline TREE] [--no-eager] [--ask-only] [--no-server] [--autostart]

Columns, measured interleaved (one run of every column per repeat, so a shared machine's load
falls on all of them alike): ``lazy`` = this tree with the deferred layout import (the
default), ``eager`` = ``DOCINTEL_EAGER_LAYOUT=1`` (left out with ``--no-eager``), ``before`` =
the tree at ``--baseline`` (e.g. ``git archive <commit> | tar -x -C /tmp/base``), lazy.
Rows: ``python -X importtime -c "import docintel"`` (and of what a cached ``ask`` imports), then
the CPU seconds (user + sys of the child, median of N) of ``import docintel, pymupdf`` (what
every parse pays), ``docintel --help``, ``docintel tables PDF toc_df`` on a cached document, a
cached ``docintel ask`` and, when the environment sets ``PYTHONDONTWRITEBYTECODE``, the same
ask with bytecode cached (as an installed package has it), and the same cached ask handed to a
``docintel serve`` of this tree (started for the run in a private tmp folder): the client's CPU,
the server's CPU for that request (``/proc/<pid>/stat`` utime + stime before and after) and their
sum, interleaved with the in-process ask. Then the floors of the libraries
the cached ask loads, and the cached ask step by step in one process (CPU of each import
step, the tables' load and the ask itself), for each tree.

``--autostart``: the default's background start, as a person at a terminal meets it (stdin and
stdout on a pty, ``DOCINTEL_SERVER`` and ``CI`` unset, a fresh socket folder per repeat): the
first cached ask with no server running (``DOCINTEL_SERVER=off`` beside the default, which starts
one after answering: CPU of the ask's process, and wall seconds until it exits), the started
server's own CPU until its imports are done (paid once per idle period, in the background), and
the next ask through it (client + the server's CPU for that request).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
QUESTION = "How is the rv_length_indicator computed?"
#: What the cached ask loads, measured alone (one column: they do not depend on the tree).
FLOORS = {
    "python -c pass": "pass",
    "import numpy": "import numpy",
    "import pyarrow.parquet": "import pyarrow.parquet",
    "import pandas": "import pandas",
    "pandas + pyarrow.parquet + pydantic.BaseModel": "import pandas, pyarrow.parquet\nfrom pydantic import BaseModel",
    "pydantic + the schema models (docintel.schema)": "import docintel.schema",
    # what a cached ask imports that needs no pandas (this tree): the floor of a pandas-free ask
    "the ask's pandas-free modules (schema, questions, grammar, generation, cli.ask)": (
        "import docintel.schema, docintel.questions, docintel.refscan, docintel.generation.validator, "
        "docintel.generation.offline, docintel.generation.completeness, docintel.generation.registry, "
        "docintel.cli.ask, docintel.schema.trace"
    ),
}
#: The cached ask in one process, step by step: each step's CPU is what it adds to the ones
#: before (a module already loaded by an earlier step costs nothing again).
LADDER = [
    ("numpy", "import numpy"),
    ("pyarrow.parquet", "import pyarrow.parquet"),
    ("pandas", "import pandas"),
    ("pydantic (BaseModel)", "from pydantic import BaseModel"),
    ("docintel.schema (the models built)", "import docintel.schema"),
    ("docintel.text (snowballstemmer)", "import docintel.text"),
    ("reference grammar (parsing.refpatterns)", "import docintel.parsing.refpatterns"),
    ("docintel.cli (the package, no verb built)", "import docintel.cli"),
    ("docintel.api (decide, retrieval, generation)", "import docintel.api"),
    ("cached tables load (api.parse)", "tables = docintel.api.parse(PDF, out_dir=ART)"),
    (
        "ask (first in the process, trace written)",
        "docintel.api.ask(PDF, Q, tables=tables, out_dir=ART, trace_path=TRACE)",
    ),
]


def _env(tree: Path, extra: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DOCINTEL_EAGER_LAYOUT", "DOCINTEL_SERVER_DIR")}
    env["DOCINTEL_SERVER"] = "off"  # the in-process columns never reach a user's server
    env["PYTHONPATH"] = str(tree) + os.pathsep + env.get("PYTHONPATH", "")
    # `-m`/`-c` put the working folder first on sys.path: without this, a tree run from another
    # tree's folder would import the folder's docintel, not its own
    env["PYTHONSAFEPATH"] = "1"
    return {**env, **extra}


def _bytecode_env(env: dict, prefix: Path) -> dict:
    """``env`` with bytecode written and read under ``prefix`` (not in the tree)."""
    out = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out["PYTHONPYCACHEPREFIX"] = str(prefix)
    return out


def cpu_of(cmd: list[str], env: dict, cwd: Path | None = None) -> float:
    """User + sys CPU seconds of one child process (and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False, cwd=cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"Error: {' '.join(cmd[:5])} ... failed: {proc.stderr.strip()[-300:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def proc_cpu(pid: int) -> float:
    """User + sys CPU seconds a running process (every thread) has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class BenchServer:
    """A ``docintel serve --foreground`` of this tree on a private tmp socket folder."""

    def __init__(self, env: dict):
        import time

        self.env = {**env, "DOCINTEL_SERVER_DIR": tempfile.mkdtemp(prefix="docintel-bench-serve-")}
        cmd = [sys.executable, "-m", "docintel", "serve", "--foreground", "--idle-timeout", "7200"]
        self.proc = subprocess.Popen(cmd, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.client_env = {**self.env, "DOCINTEL_SERVER": ""}
        deadline = time.monotonic() + 120
        while self.requests() is None:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"Error: the server did not start: {self.proc.stderr.read()[-300:]!r}")
            time.sleep(0.1)

    def requests(self) -> int | None:
        out = subprocess.run(
            [sys.executable, "-m", "docintel", "serve", "--status"],
            env=self.env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        m = re.search(r"(\d+) request\(s\)", out.stdout)
        return int(m.group(1)) if m and "current" in out.stdout else None

    def ask(self, cmd: list[str]) -> tuple[float, float]:
        """(client CPU, server CPU) of one forwarded run of ``cmd``."""
        before = proc_cpu(self.proc.pid)
        client = cpu_of(cmd, self.client_env)
        return client, proc_cpu(self.proc.pid) - before

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


def tty_run(cmd: list[str], env: dict) -> tuple[float, float]:
    """(CPU s, wall s) of ``cmd`` with stdin and stdout on a pty (its output drained, dropped)."""
    import pty
    import time

    master, slave = pty.openpty()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=subprocess.DEVNULL, env=env)
        os.close(slave)
        while True:
            try:
                if not os.read(master, 65536):
                    break
            except OSError:  # EIO: the process closed the terminal
                break
        proc.wait()
    finally:
        os.close(master)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"Error: {' '.join(cmd[:5])} ... failed on a pty (exit {proc.returncode})")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def autostart(cmd: list[str], env: dict, rows) -> None:
    """One repeat of ``--autostart`` into ``rows`` (see the module docstring)."""
    import time

    folder = tempfile.mkdtemp(prefix="docintel-bench-autostart-")
    base = {k: v for k, v in env.items() if k not in ("CI", "DOCINTEL_SERVER")}
    base.update(DOCINTEL_SERVER_DIR=folder, DOCINTEL_SERVER_IDLE="600")
    status_cmd = [sys.executable, "-m", "docintel", "serve", "--status"]
    cpu, wall = tty_run(cmd, {**base, "DOCINTEL_SERVER": "off"})
    rows["first ask, no server (DOCINTEL_SERVER=off): CPU s"]["lazy"].append(cpu)
    rows["first ask, no server (DOCINTEL_SERVER=off): wall s"]["lazy"].append(wall)
    cpu, wall = tty_run(cmd, base)
    rows["first ask, default (starts a server after): CPU s"]["lazy"].append(cpu)
    rows["first ask, default (starts a server after): wall s"]["lazy"].append(wall)
    pid = None
    for _ in range(1200):
        out = subprocess.run(status_cmd, env=base, capture_output=True, text=True, check=False).stdout
        m = re.search(r"pid (\d+)", out)
        if m:
            pid = int(m.group(1))
            break
        time.sleep(0.05)
    if pid is None:
        raise SystemExit("Error: the default ask on a pty started no server")
    last, steady = -1.0, 0
    while steady < 3:  # its imports are done once its CPU stops moving
        time.sleep(0.2)
        now = proc_cpu(pid)
        steady, last = (steady + 1 if now == last else 0), now
    rows["the server's start (background, once): CPU s"]["lazy"].append(last)
    cpu, wall = tty_run(cmd, base)
    served = proc_cpu(pid) - last
    rows["next ask, through it: client CPU s"]["lazy"].append(cpu)
    rows["next ask, through it: client + server CPU s"]["lazy"].append(cpu + served)
    rows["next ask, through it: wall s"]["lazy"].append(wall)
    subprocess.run([*status_cmd[:-1], "--stop"], env=base, capture_output=True, check=False)


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


def ladder_code(pdf: Path, art: Path, trace: Path) -> str:
    lines = [
        "import time, json",
        f"PDF, ART, Q, TRACE = {str(pdf)!r}, {str(art)!r}, {QUESTION!r}, {str(trace)!r}",
        "out = []",
    ]
    for _, stmt in LADDER:
        lines += ["t = time.process_time()", stmt, "out.append(time.process_time() - t)"]
    lines.append("print(json.dumps(out))")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pdf", type=Path, default=REPO / "pdfs" / "nist_sp800-106.pdf")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--artifacts", type=Path, default=None, help="cache folder (default: a temporary one)")
    ap.add_argument("--baseline", type=Path, default=None, help="another docintel tree, measured as 'before'")
    ap.add_argument("--no-eager", action="store_true", help="leave out the eager-layout column")
    ap.add_argument(
        "--ask-only",
        action="store_true",
        help="only the cached ask (for many repeats): no other verb, floor or step",
    )
    ap.add_argument("--no-server", action="store_true", help="leave out the ask through `docintel serve`")
    ap.add_argument(
        "--autostart", action="store_true", help="also the default's background start on a pty (see above)"
    )
    args = ap.parse_args()
    if not args.pdf.is_file():
        print(f"Error: no such PDF: {args.pdf}", file=sys.stderr)
        return 1
    if args.baseline is not None and not (args.baseline / "docintel" / "__init__.py").is_file():
        print(f"Error: --baseline {args.baseline} is not a docintel tree", file=sys.stderr)
        return 1
    pdf = args.pdf.resolve()
    art = (args.artifacts or Path(tempfile.mkdtemp(prefix="docintel-bench-startup-"))).resolve()
    scratch = Path(tempfile.mkdtemp(prefix="docintel-bench-startup-pyc-"))
    columns = {"lazy": (REPO, {})}
    if not args.no_eager:
        columns["eager"] = (REPO, {"DOCINTEL_EAGER_LAYOUT": "1"})
    if args.baseline is not None:
        columns["before"] = (args.baseline.resolve(), {})
    py = sys.executable
    cli = [py, "-m", "docintel"]
    ask_args = ["ask", str(pdf), QUESTION, "--artifacts", str(art)]
    verbs = {
        "import docintel, pymupdf (what a parse pays)": [py, "-c", "import docintel, pymupdf"],
        "docintel --help": [*cli, "--help"],
        "docintel tables PDF toc_df (cached)": [*cli, "tables", str(pdf), "toc_df", "--artifacts", str(art)],
        "docintel ask PDF Q (cached, offline)": [*cli, *ask_args],
    }
    bytecode = "PYTHONDONTWRITEBYTECODE" in os.environ
    envs = {c: _env(tree, extra) for c, (tree, extra) in columns.items()}
    pyc_envs = {c: _bytecode_env(envs[c], scratch / c) for c in columns}
    for c, env in envs.items():  # parse once (and learn the references) per tree: later runs are cached
        for _ in range(2):
            cpu_of([*cli, *ask_args], env)
        if bytecode:
            cpu_of([*cli, *ask_args], pyc_envs[c])  # writes the bytecode under the scratch prefix
    rows: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    packages: dict[str, dict[str, float]] = {}
    ladders: dict[str, list[list[float]]] = defaultdict(list)
    floors: dict[str, list[float]] = defaultdict(list)
    if args.ask_only:
        verbs = {k: v for k, v in verbs.items() if k.startswith("docintel ask")}
    server = None if args.no_server else BenchServer(envs["lazy"])
    if server is not None:
        served = server.requests()
        server.ask(verbs["docintel ask PDF Q (cached, offline)"])  # the server's first ask
        if server.requests() != served + 1:
            raise SystemExit("Error: the ask did not go to the server")
    for c, env in envs.items():
        if args.ask_only:
            break
        rows["import docintel (-X importtime, s)"][c].append(importtime(["-c", "import docintel"], env)[0])
        total, packages[c] = importtime(["-m", "docintel", *ask_args], env)
        rows["imports of a cached ask (-X importtime, s)"][c].append(total)
    for _ in range(args.repeat):
        for label, code in {} if args.ask_only else FLOORS.items():
            floors[label].append(cpu_of([py, "-c", code], envs["lazy"]))
        for c, env in envs.items():
            for label, cmd in verbs.items():
                rows[f"{label}: CPU s"][c].append(cpu_of(cmd, env))
            if bytecode:
                rows["docintel ask PDF Q (cached), bytecode cached: CPU s"][c].append(
                    cpu_of(verbs["docintel ask PDF Q (cached, offline)"], pyc_envs[c])
                )
            if server is not None and c == "lazy":
                client, served_cpu = server.ask(verbs["docintel ask PDF Q (cached, offline)"])
                rows["ask via `docintel serve`: client CPU s"][c].append(client)
                rows["ask via `docintel serve`: server CPU s (this request)"][c].append(served_cpu)
                rows["ask via `docintel serve`: client + server CPU s"][c].append(client + served_cpu)
            if args.autostart and c == "lazy":
                autostart(verbs["docintel ask PDF Q (cached, offline)"], env, rows)
            if args.ask_only:
                continue
            code = ladder_code(pdf, art, scratch / f"trace-{c}.json")
            out = subprocess.run([py, "-c", code], env=env, capture_output=True, text=True, check=True)
            ladders[c].append(json.loads(out.stdout.strip().splitlines()[-1]))

    if server is not None:
        used = server.requests()
        server.close()
        if used != served + 1 + args.repeat:  # a stale server (code changed mid-run) is not used
            raise SystemExit(f"Error: {used} of {served + 1 + args.repeat} asks reached the server")

    def med(values: list[float]) -> float:
        return statistics.median(values) if values else float("nan")

    print(f"python {sys.version.split()[0]}, {pdf.name}, median of {args.repeat}; cache {art}")
    print(
        f"columns: {', '.join(f'{c} = {t}' + (' ' + str(e) if e else '') for c, (t, e) in columns.items())}\n"
    )
    head = "".join(f"{c:>9}" for c in columns)
    ratio = "before" in columns
    print(f"{'':56}{head}" + (f"{'lazy/before':>12}" if ratio else ""))
    for label, by_col in rows.items():
        cells = "".join(f"{med(by_col[c]):9.3f}" for c in columns)
        r = f"{med(by_col['lazy']) / med(by_col['before']):12.2f}" if ratio and med(by_col["before"]) else ""
        print(f"{label:56}{cells}{r}")
    if args.ask_only:
        return _target(rows)
    print(f"\nfloors, whole processes (start, imports, exit), CPU s (median of {args.repeat}):")
    for label, values in floors.items():
        print(f"  {label:80}{med(values):9.3f}")
    print("\ncached ask in one process, CPU s each step adds (median of each step):")
    print(f"  {'':52}{head}")
    for i, (label, _) in enumerate(LADDER):
        print(f"  {label:52}" + "".join(f"{med([run[i] for run in ladders[c]]):9.3f}" for c in columns))
    totals = "".join(f"{med([sum(run) for run in ladders[c]]):9.3f}" for c in columns)
    print(f"  {'total (interpreter start not included)':52}{totals}")
    print("\ncached ask, imports by top-level package (s, self time, -X importtime, one run):")
    top = sorted(packages["lazy"], key=lambda k: -packages["lazy"][k])[:10]
    for name in top:
        print(f"  {name:28}" + "".join(f"{packages[c].get(name, 0.0):9.3f}" for c in columns))
    return _target(rows)


def _target(rows) -> int:
    def med(values: list[float]) -> float:
        return statistics.median(values) if values else float("nan")

    for label, key in (
        ("in process", "docintel ask PDF Q (cached, offline): CPU s"),
        ("via `docintel serve`, client + server", "ask via `docintel serve`: client + server CPU s"),
    ):
        if rows[key]["lazy"]:
            ask = med(rows[key]["lazy"])
            print(
                f"target: cached CLI ask < 0.4 s CPU, {label}: {'met' if ask < 0.4 else 'NOT met'} ({ask:.3f} s)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
