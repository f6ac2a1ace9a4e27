"""Cost against document length: warm ask and parse on 25..600 pages, beside the raw floors.

Usage: python benchmarks/bench_scale.py [--sizes 25,150,600] [--source PDF ...] [--modes never,auto]
       [--questions N] [--repeat R] [--no-parse] [--baseline TREE] [--per-question] [--aa]

Documents of each size are cut from public-domain NIST publications (default: the longest SPs
of ../shared/corpus/nist/pdfs, concatenated in order with pymupdf, then cut to the size), so the
pages are real text, tables and figures. In one run, per size: the raw PyMuPDF floor
(``get_text("dict")``, with images decoded as our text pass never does, and the image-free
floor with ``TEXT_PRESERVE_IMAGES`` off), ``parse`` in each layout mode (in-process,
``DOCINTEL_PARSE_WORKER=0``, no cache; CPU seconds and the ratio to each floor), and the warm
``ask`` (tables and retrieval index cached, offline backend; median CPU of the questions). All
figures are CPU seconds of this process (2 shared cores: read the ratios). Asserts nothing.
``--baseline TREE`` also times the warm ask of another docintel tree (e.g. the branch point,
``git archive``d) on the same documents in the same run, each tree in its own child process,
the two interleaved per size; ``--per-question`` prints every question's warm-ask CPU. With ``--repeat`` > 1 the bench also prints
each tree's largest/smallest ratio per round and its range, and ``--aa`` times this tree a second
time in processes of its own ("again"), so one run shows the gap noise alone puts between two
copies of the same code (the A/A spread a before/after difference must beat).

What "warm" is: a process with docintel imported and the document parsed and indexed in the
cache, asking by path as ``docintel serve`` does for each ask: the first ask loads and checks the
tables and the stored retrieval index; later asks get what the process kept (session 9's
``docintel.parsing.warm`` memo, re-validated by a stat of the PDF and of every cache file read; a tree
without it reads and checks everything again per ask). Before session 9 this bench dropped the
in-memory index and labelled-line memo before every ask (what the server then did). ``--repeat R`` asks the
questions in R rounds (in order, every round): ``1st`` is round 1 alone (each question's first
ask on the document, which also stores the references it learned: the figure this bench printed
before R existed), ``med`` each question's median over the R rounds, ``min`` its minimum (the
least disturbed by other processes); each column is the median over the questions.

Rounds are interleaved (session 10): each (tree, size) has its own child process that keeps its one
document warm and answers one round of the questions when the parent asks; the parent asks every
child's round 1, then every child's round 2, ... (the order reversed every other round), so a burst
of load on the shared machine falls on every tree and size alike instead of on one block (before,
one child ran all its rounds of one size in a row: two identical trees measured 1.37x and 2.51x in
one run). Every ask is the one it was (same process state, same questions in the same order);
only the wall-clock spacing between rounds changed: a cache file written by a round-1 ask is
rechecked by content only while it is under 2 s old (``stamps.RACY_NS``), so with rounds spread
out fewer later asks of the small document pay that check. Each child also idles while the others
run, so its round starts with colder CPU caches (more of a cost for the 600-page working set), and
every child stays alive for the whole run (six processes with a baseline): figures from before
session 10 are not directly comparable with these.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
NIST = Path(os.environ.get("DOCINTEL_SHARED") or REPO.parent / "shared") / "corpus" / "nist" / "pdfs"
SOURCES = ["sp800-60v2r1.pdf", "sp800-161.pdf", "sp800-53r3.pdf"]
QUESTIONS = [
    "What is the main contribution described in the introduction?",
    "What results are reported in Table 1?",
    "What does Section 2 say about the scope?",
    "Which security controls address supply chain risk?",
    "How is the impact level of an information type determined?",
]


def build(sources: list[Path], pages: int, out: Path) -> Path:
    import pymupdf

    doc = pymupdf.open()
    for src in sources:
        if doc.page_count >= pages:
            break
        with pymupdf.open(src) as s:
            doc.insert_pdf(s, to_page=min(s.page_count, pages - doc.page_count) - 1)
    if doc.page_count < pages:
        raise SystemExit(f"Error: the sources hold only {doc.page_count} pages, {pages} asked")
    path = out / f"nist-{pages}p.pdf"
    doc.save(path, garbage=3, deflate=True)
    return path


def floors(path: Path) -> tuple[float, float]:
    """CPU s of get_text('dict') over every page, with and without image decoding."""
    import pymupdf

    out = []
    for flags in (None, pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES):
        with pymupdf.open(path) as doc:
            t0 = time.process_time()
            for page in doc:
                page.get_text("dict") if flags is None else page.get_text("dict", flags=flags)
            out.append(time.process_time() - t0)
    return out[0], out[1]


def parse_cpu(path: Path, mode: str, tmp: Path) -> tuple[float, int]:
    from docintel.api import parse

    t0 = time.process_time()
    tables = parse(path, out_dir=tmp / f"parse-{mode}", layout=mode, ocr="never", use_cache=False)
    cpu = time.process_time() - t0
    escalated = int((tables.page_df["parse_method"] == "layout").sum()) if len(tables.page_df) else 0
    return cpu, escalated


def ask_cpu(
    path: Path, tmp: Path, questions: list[str], repeat: int = 1, *, load: bool = True, rounds: bool = True
) -> tuple[float, list[list[float]]]:
    """(CPU s of the first ask, which builds and stores the index; CPU s of each question's warm
    ask, one list per round). ``load=False``: the document is already parsed and asked in this
    process (no first ask, 0.0 for it); ``rounds=False``: the first ask only."""
    from docintel.api import ask, parse
    from docintel.retrieval import bm25

    out = tmp / "ask"
    kw = {"backend": "offline", "out_dir": out, "layout": "never", "ocr": "never"}
    first = 0.0
    if load:
        parse(path, out_dir=out, layout="never", ocr="never")  # into the cache, no index yet
        bm25._CACHE.clear()  # as a new process would: the index comes from the cache entry
        t0 = time.process_time()
        ask(path, questions[0], trace_path=out / "t.json", **kw)
        first = time.process_time() - t0
    if not rounds:
        return first, []
    rounds_out = []
    for _ in range(max(1, repeat)):
        times = []
        for q in questions:  # nothing dropped: the server keeps what it loaded (see the docstring)
            t0 = time.process_time()
            ask(path, q, trace_path=out / "t.json", **kw)
            times.append(time.process_time() - t0)
        rounds_out.append(times)
    return first, rounds_out


def summary(rounds: list[list[float]]) -> dict[str, float | list[float]]:
    """``1st``/``med``/``min`` (median over the questions, see the module docstring) and each
    question's median over the rounds."""
    per_q = list(zip(*rounds, strict=True))
    med = [statistics.median(q) for q in per_q]
    return {
        "1st": statistics.median(rounds[0]),
        "med": statistics.median(med),
        "min": statistics.median(min(q) for q in per_q),
        "per_q_med": med,
    }


def spread_report(asked: dict[str, dict[int, list[list[float]]]], small: int, big: int) -> str:
    """How far the ``big``/``small`` ratio of the medians moves with noise alone: per tree, the ratio
    of each round's median (the rounds are interleaved, so each is a repeat of the same
    measurement) and their range from round 2 on (round 1 asks each question first, which
    stores what it learned, and a tree edited while the bench runs rebuilds its index there); with two copies of one tree (``--aa``), the gap between the
    two copies' ratios, which no code difference explains."""
    out, med = [], {}
    for name, by_size in asked.items():
        per_round = [
            statistics.median(b) / statistics.median(s)
            for s, b in zip(by_size[small], by_size[big], strict=True)
        ]
        later = per_round[1:] or per_round  # round 1 is each question's first ask (see the docstring)
        med[name] = summary(by_size[big])["med"] / summary(by_size[small])["med"]
        # a range needs two later rounds: with one it would print 0.00 and read as a measurement
        spread = (
            f" (range {max(later) - min(later):.2f} over rounds 2-{len(per_round)})"
            if len(later) >= 2
            else ""
        )
        out.append(
            f"{name} {big}/{small} med ratio {med[name]:.2f}; by round "
            + " ".join(f"{r:.2f}" for r in per_round)
            + spread
        )
    if "again" in med:
        out.append(
            f"A/A spread (this vs again, the same code): {med['this']:.2f} vs {med['again']:.2f}, "
            f"gap {abs(med['this'] - med['again']):.2f}"
        )
    return "\n".join(out)


#: What a worker's answer lines open with (anything else it prints is not read).
_MARK = "@@bench "


def worker(path: Path, tmp: Path, questions: list[str]) -> None:
    """The child side of :class:`TreeWorker`: :func:`ask_cpu`'s first ask, then one round of the
    questions per ``round`` line on stdin (CPU s of each ask), until stdin closes."""
    first, _ = ask_cpu(path, tmp, questions[:1], 0, rounds=False)
    print(_MARK + json.dumps(first), flush=True)
    for line in sys.stdin:
        if line.strip() != "round":
            break
        _, (times,) = ask_cpu(path, tmp, questions, 1, load=False)
        print(_MARK + json.dumps(times), flush=True)


class TreeWorker:
    """The warm asks of one tree's docintel on one document, in a child process of its own (its
    own imports; the document kept as ``docintel serve`` keeps it), one round at a time."""

    def __init__(self, tree: Path, path: Path, tmp: Path, questions: list[str]):
        env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONSAFEPATH": "1", "DOCINTEL_PARSE_WORKER": "0"}
        code = (
            f"import json, sys; sys.path.insert(0, {str(REPO / 'benchmarks')!r});"
            "from pathlib import Path; import bench_scale as b;"  # it puts this tree first on the path:
            f"sys.path[:] = [{str(tree)!r}] + [p for p in sys.path if p != {str(REPO)!r}];"
            f"b.worker(Path({str(path)!r}), Path({str(tmp)!r}), {questions!r})"
        )
        tmp.mkdir(parents=True, exist_ok=True)
        self.tree, self.log = tree, (tmp / "worker.log").open("w+")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.log, text=True,
        )  # fmt: skip
        self.first: float = self._answer()

    def _answer(self):
        for line in self.proc.stdout:
            if line.startswith(_MARK):
                return json.loads(line[len(_MARK) :])
        self.log.seek(0)
        raise SystemExit(f"Error: the ask in {self.tree} failed: {self.log.read().strip().splitlines()[-1:]}")

    def round(self) -> list[float]:
        """CPU s of each question's ask, in order."""
        self.proc.stdin.write("round\n")
        self.proc.stdin.flush()
        return self._answer()

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()
        self.log.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="25,150,600")
    ap.add_argument("--source", nargs="*", type=Path, default=None)
    ap.add_argument("--modes", default="never,auto")
    ap.add_argument("--questions", type=int, default=len(QUESTIONS))
    ap.add_argument("--no-parse", action="store_true", help="only the floors and the warm ask")
    ap.add_argument(
        "--baseline", type=Path, default=None, help="another docintel tree, timed beside this one"
    )
    ap.add_argument("--per-question", action="store_true", help="print each question's warm-ask CPU")
    ap.add_argument("--repeat", type=int, default=1, help="rounds of the questions (see the docstring)")
    ap.add_argument(
        "--aa", action="store_true", help="also time this tree a second time (A/A: the bench's own spread)"
    )
    args = ap.parse_args()
    if args.baseline is not None and not (args.baseline / "docintel").is_dir():
        print(f"Error: no docintel package in baseline tree {args.baseline}", file=sys.stderr)
        return 1
    os.environ["DOCINTEL_PARSE_WORKER"] = "0"
    sources = args.source or [NIST / s for s in SOURCES]
    missing = [str(s) for s in sources if not s.is_file()]
    if missing:
        print(f"Error: source PDF not found: {', '.join(missing)}", file=sys.stderr)
        return 1
    sizes = [int(s) for s in args.sizes.split(",")]
    modes = [] if args.no_parse else [m for m in args.modes.split(",") if m]
    questions = QUESTIONS[: max(1, args.questions)]
    stats = ("1st", "med", "min") if args.repeat > 1 else ("1st",)
    trees = {"this": REPO} if args.baseline is None else {"this": REPO, "base": args.baseline}
    if args.aa:
        trees["again"] = REPO  # the same code in its own processes: what the bench's noise alone gives
    head = f"{'pages':>6}{'floor':>8}{'no-img':>8}"
    for m in modes:
        head += f"{m + ' s':>10}{'x floor':>8}{'x no-img':>9}{'escal':>6}"
    for t in trees:
        head += f"{t + ' 1st ask':>14}" + "".join(f"{k + ' ms':>8}{k + '/25p':>9}" for k in stats)
    print(f"sources: {', '.join(s.name for s in sources)}; CPU seconds of this process\n{head}")
    small: dict[str, dict] = {}
    per_q: list[str] = []
    with tempfile.TemporaryDirectory(prefix="docintel-bench-scale-") as t:
        tmp = Path(t)
        rows: dict[int, str] = {}
        workers: dict[tuple[int, str], TreeWorker] = {}
        try:  # the workers are closed even when an ask fails
            for n in sizes:
                path = build(sources, n, tmp)
                full, noimg = floors(path)
                row = f"{n:>6}{full:>8.2f}{noimg:>8.2f}"
                for m in modes:
                    cpu, esc = parse_cpu(path, m, tmp)
                    row += f"{cpu:>10.2f}{cpu / full:>8.1f}{cpu / noimg:>9.1f}{esc:>6}"
                rows[n] = row
                for name, tree in trees.items():  # each (tree, size) in its own process
                    workers[(n, name)] = TreeWorker(tree, path, tmp / f"{name}{n}", questions)
            asked: dict[tuple[int, str], list[list[float]]] = {key: [] for key in workers}
            order = list(workers)
            for r in range(max(1, args.repeat)):  # round r of every worker, then round r + 1
                for key in order if r % 2 == 0 else order[::-1]:
                    asked[key].append(workers[key].round())
        finally:
            for w in workers.values():
                w.close()
        for n in sizes:
            row = rows[n]
            for name in trees:
                first, rounds = workers[(n, name)].first, asked[(n, name)]
                got = summary(rounds)
                small.setdefault(name, got)
                row += f"{first * 1000:>14.0f}"
                row += "".join(f"{got[k] * 1000:>8.0f}{got[k] / small[name][k]:>9.2f}" for k in stats)
                per_q.append(f"{n:>6} p  {name} 1st: " + " ".join(f"{x * 1000:>7.0f}" for x in rounds[0]))
                if args.repeat > 1:
                    per_q.append(
                        f"{n:>6} p  {name} med: " + " ".join(f"{x * 1000:>7.0f}" for x in got["per_q_med"])
                    )
            print(row, flush=True)
    print(
        "floor: get_text('dict') (images decoded); no-img: the same without TEXT_PRESERVE_IMAGES; "
        "parse: in-process, no cache, --ocr never;\nask: warm, offline backend, asked by path as the "
        f"server does (what the process kept is used), median of {len(questions)} questions, {args.repeat} round(s) "
        "(1st: round 1, as before --repeat; med/min: each question's median/minimum over the rounds);"
        "\n1st ask: the first ask on the document, which builds and stores the index"
    )
    if args.repeat > 1 and len(sizes) > 1:
        print(
            spread_report({name: {n: asked[(n, name)] for n in sizes} for name in trees}, sizes[0], sizes[-1])
        )
    if args.per_question:
        print("warm-ask CPU ms of each question, in order:")
        print("\n".join(per_q))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
