"""`docintel eval`: run a question set and print its scores."""

from __future__ import annotations

import json
import sys

from docintel.cli.common import add_parse_options, parse_kwargs
from docintel.settings import DEFAULTS

VERBS = ("eval",)


def add_parser(sub) -> None:
    p = sub.add_parser("eval", help="run a question set (JSONL) and print its scores")
    p.add_argument("questions")
    p.add_argument("--pdf-dir", required=True)
    p.add_argument("--backend", default=None)
    p.add_argument("--max-loops", type=int, default=None)
    p.add_argument(
        "-o",
        "--output",
        "--out",
        dest="output",
        default=None,
        metavar="FILE.jsonl",
        help="write one JSON line per question to this file",
    )
    p.add_argument("--json", action="store_true", help="print the scores as JSON")
    add_parse_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from docintel.evaluation import format_summary, run_eval

    kw = parse_kwargs(args)
    kw.pop("progress", None)

    def progress(i, n, row):
        mark = "ok" if row["evidence_complete"] else "--"
        print(
            f"[{i}/{n}] {row['id']:<12} evidence {mark} loop={'y' if row['loop_fired'] else 'n'} "
            f"tokens={row['tokens']}",
            file=sys.stderr,
        )

    summary = run_eval(
        args.questions,
        args.pdf_dir,
        backend=args.backend,
        out=args.output,
        max_loops=args.max_loops if args.max_loops is not None else DEFAULTS.max_loops,
        parse_options=kw,
        progress=progress,
    )
    if args.json:
        print(json.dumps(summary["groups"], indent=2))
    else:
        print(format_summary(summary))
    return 0
