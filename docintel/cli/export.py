"""`docintel export` and `docintel sql`: argument parsing and printing only.

A verb module of :mod:`docintel.cli` (listed in ``VERBS``); :func:`run` dispatches on
``args.command``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

COMMANDS = ("export", "sql")


def add_parser(subparsers) -> None:
    """Add the ``export`` and ``sql`` verbs to ``docintel``'s subparsers.

    ``-o`` is the output file and ``--artifacts`` the cache folder, as on every verb.
    """
    from docintel.cli.common import add_parse_options
    from docintel.export import FORMATS
    from docintel.sql import DEFAULT_ROW_LIMIT, DEFAULT_TIMEOUT

    p = subparsers.add_parser(
        "export", help="write the document as Markdown, DoclingDocument JSON or JSON Lines"
    )
    p.add_argument("pdf")
    p.add_argument("--format", choices=list(FORMATS), default="markdown", help="default markdown")
    p.add_argument("-o", "--output", default=None, help="output file (default: stdout)")
    add_parse_options(p)
    p.set_defaults(func=run)

    p = subparsers.add_parser(
        "sql",
        help="run one read-only SELECT over a document's tables, or a corpus as one user (DuckDB)",
    )
    p.add_argument("pdf", nargs="?", default=None, help="the document (or --corpus STORE --as USER)")
    p.add_argument(
        "query",
        help="one SELECT over line_df, page_df, toc_df, object_registry, cell_df, cross_ref_df"
        " (with --corpus also documents, access, members, blocks: the user's rows only)",
    )
    p.add_argument("--corpus", default=None, metavar="STORE", help="an embedded corpus store folder")
    p.add_argument(
        "--as",
        dest="user",
        default=None,
        metavar="USER",
        help="with --corpus: read as USER (env DOCINTEL_USER)",
    )
    p.add_argument("--format", choices=["text", "csv", "json"], default="text")
    p.add_argument(
        "--limit",
        type=int,
        default=DEFAULT_ROW_LIMIT,
        help=f"rows returned, 0 for all (default {DEFAULT_ROW_LIMIT})",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help=f"seconds before the query is stopped (default {DEFAULT_TIMEOUT:g})",
    )
    add_parse_options(p)
    p.set_defaults(func=run)


def _parse(args):
    from docintel.api import parse
    from docintel.cli.common import parse_kwargs

    return parse(args.pdf, **parse_kwargs(args))


def cmd_export(args) -> int:
    from docintel.errors import UsageError
    from docintel.export import get_writer

    writer = get_writer(args.format)  # an unknown format fails before parsing
    if args.output and Path(args.output).is_dir():
        raise UsageError(
            f"-o {args.output} is a folder; give the output file's name (e.g. out{writer.suffix})"
        )
    text = writer.render(_parse(args))
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {args.output} ({len(text.encode()):,} bytes)", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def cmd_sql(args) -> int:
    import pandas as pd

    from docintel.errors import UsageError
    from docintel.sql import check_select, query_document

    if (args.pdf is None) == (args.corpus is None):
        raise UsageError("give either a PDF or --corpus STORE --as USER, not both or neither")
    if args.user and not args.corpus:
        raise UsageError("--as USER reads a corpus: give --corpus STORE instead of the PDF")
    check_select(args.query)  # a refused query fails before parsing or opening the store
    if args.corpus:
        result = _query_corpus(args)
    else:
        result = query_document(_parse(args), args.query, limit=args.limit, timeout=args.timeout)
    df = result.frame
    more = f"more rows left out after the first {result.limit} (--limit 0 for all)"
    if args.format == "csv":
        sys.stdout.write(df.to_csv(index=False))
    elif args.format == "json":
        sys.stdout.write(df.to_json(orient="records", lines=True, force_ascii=False))
    else:
        with pd.option_context("display.max_rows", None, "display.max_columns", None, "display.width", 200):
            print(df.to_string(index=False, na_rep="NULL") if len(df) else "(no rows)")
        print(f"({len(df)} row{'s' if len(df) != 1 else ''}{'; ' + more if result.truncated else ''})")
        return 0
    if result.truncated:
        print(more, file=sys.stderr)
    return 0


def _query_corpus(args):
    from docintel.corpus.access import current_user
    from docintel.corpus.stores import open_store
    from docintel.sql import query_corpus

    corpus = open_store(args.corpus)  # the store only: no index is opened for SQL
    try:
        return query_corpus(
            corpus, current_user(args.user), args.query, limit=args.limit, timeout=args.timeout
        )
    finally:
        corpus.close()


def run(args: argparse.Namespace) -> int:
    """Run ``docintel export`` or ``docintel sql``; returns the exit code."""
    return {"export": cmd_export, "sql": cmd_sql}[args.command](args)
