"""`docintel ask`: argument parsing and printing only; the API answers."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from docintel.atomic import atomic_write_text
from docintel.cli.common import add_parse_options, parse_kwargs
from docintel.errors import UsageError
from docintel.settings import Settings

VERBS = ("ask",)


def add_parser(sub) -> None:
    p = sub.add_parser("ask", help="answer a question about a PDF, following its cross-references")
    p.add_argument("pdf")
    p.add_argument("question")
    add_backend_options(p)
    p.add_argument(
        "--top-k",
        type=int,
        default=None,
        help="pages retrieved for pass 1 (default 1; listing questions get one per relevant page)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "-o",
        "--output",
        default=None,
        metavar="FILE.json",
        help="also write the answer's JSON object to this file",
    )
    p.add_argument("--trace", default=None, help="write the trace here (default under the artifacts folder)")
    p.add_argument(
        "--highlight",
        default=None,
        metavar="OUT.pdf",
        help="write a copy of the PDF with the cited lines highlighted",
    )
    p.add_argument("--html", default=None, metavar="OUT.html", help="write a self-contained HTML report")
    add_parse_options(p)
    p.set_defaults(func=run)


def add_backend_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--backend",
        default=None,
        help="offline (default without an endpoint), openai, local, fake (env DOCINTEL_BACKEND)",
    )
    p.add_argument("--max-loops", type=int, default=None, help="loop budget for reference passes (default 1)")
    p.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint (env DOCINTEL_BASE_URL)")
    p.add_argument("--model", default=None, help="model name (env DOCINTEL_MODEL)")
    p.add_argument("--api-key", default=None, help="API key (env DOCINTEL_API_KEY)")
    p.add_argument(
        "--model-path", default=None, help="GGUF file for the local backend (env DOCINTEL_MODEL_PATH)"
    )
    p.add_argument(
        "--context-window",
        type=int,
        default=None,
        help="the model's context window in tokens (env DOCINTEL_CONTEXT_WINDOW)",
    )
    p.add_argument(
        "--timeout", type=float, default=None, help="seconds per model request (env DOCINTEL_TIMEOUT)"
    )
    p.add_argument(
        "--fallback",
        choices=["none", "offline"],
        default=None,
        help="when the model's output never validates: fail (none) or answer offline, labelled",
    )


def _backend_options(args) -> dict:
    opts = {}
    for key in ("base_url", "model", "api_key", "model_path", "context_window", "timeout"):
        value = getattr(args, key, None)
        if value is not None:
            opts[key] = value
    return opts


def _backend_and_fallback(args):
    from docintel.generation.registry import build_backend

    s = Settings.resolve(backend=args.backend, fallback=args.fallback)
    return build_backend(
        s.backend,
        fallback=s.fallback,
        **_backend_options(args),
    )


def _print_human(result) -> None:
    a = result.answer
    print(a.answer)
    print()
    for i, c in enumerate(a.citations, start=1):
        how = "primary evidence"
        if c.retrieved_via != "primary":
            src = f" on page {c.referenced_from[0]}, line {c.referenced_from[1]}" if c.referenced_from else ""
            how = f"via reference '{c.reference_text}'{src}"
        lines = f"line {c.line_start}" if c.line_start == c.line_end else f"lines {c.line_start}-{c.line_end}"
        print(f'[{i}] page {c.page}, {lines} ({how}): "{c.quote}"')
    for e in a.external_references:
        print(f"external (not fetched): {e.name} (page {e.origin_page}, line {e.origin_line})")
    for cond in a.conditions:
        print(f"condition: {cond}")
    print()
    if result.loop_count == 0:
        print(f"loop: did not run ({a.answer_completeness}).")
    else:
        done = [
            f"{r.reference} -> {r.target} ({r.method})" for r in result.resolutions if r.status == "resolved"
        ]
        print(
            f"loop: ran {result.loop_count} time(s); resolved: {'; '.join(done) or 'nothing'}"
            f" ({a.answer_completeness})."
        )
    for u in result.unresolved:
        print(f"unresolved: {u.raw_text} (page {u.origin_page}, line {u.origin_line}): {u.reason}")
    for r in result.completeness_reasons:
        print(f"partial because: {r.code}: {r.detail}")
    for w in result.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if result.trace_path:
        print(f"trace: {result.trace_path}", file=sys.stderr)


def _check_output(output: str | None) -> None:
    """``-o`` is the answer file on every verb, never the artifacts folder: refuse a folder."""
    if output and Path(output).is_dir():
        raise UsageError(
            f"-o {output} is a folder; -o is the answer's JSON file (the artifacts folder is --artifacts)"
        )


def run(args) -> int:
    from docintel.api import ask, parse
    from docintel.questions import parse_question

    question = parse_question(args.question)  # an empty or absurd question fails before any parsing
    _check_output(args.output)
    kw = parse_kwargs(args)
    tables = parse(args.pdf, **kw)  # parsed once, shared by ask and the reports
    result = ask(
        args.pdf,
        question,
        backend=_backend_and_fallback(args),
        tables=tables,
        max_loops=Settings.resolve(max_loops=args.max_loops).max_loops,
        top_k=args.top_k,
        trace_path=args.trace,
        out_dir=kw["out_dir"],
    )
    if args.json or args.output:
        text = json.dumps(result.to_json_dict(), indent=2, ensure_ascii=False, default=str)
        if args.output:
            atomic_write_text(Path(args.output), text + "\n")
            print(f"answer: {args.output}", file=sys.stderr)
    if args.json:
        print(text)
    else:
        _print_human(result)
    for flag, fn in (("highlight", "write_highlight_pdf"), ("html", "write_html_report")):
        target = getattr(args, flag, None)
        if target:
            from docintel import report

            getattr(report, fn)(result, args.pdf, target, tables=tables)
            print(f"{flag}: {target}", file=sys.stderr)
    return 0
