"""Command line: parses arguments and calls the API. No pipeline logic here."""

from __future__ import annotations

import argparse
import logging
import sys
import time

from docintel import __version__
from docintel.errors import DocintelError
from docintel.settings import pick


def _progress_printer(label: str):
    """Progress on stderr for long documents: a live counter on a terminal, otherwise a
    line every few seconds (nothing at all for a parse that finishes quickly)."""
    tty = sys.stderr.isatty()
    state = {"start": time.monotonic(), "last": 0.0, "shown": False}

    def report(done: int, total: int) -> None:
        now = time.monotonic()
        if tty:
            if total >= 10 and (now - state["last"] > 0.3 or done == total):
                state["last"] = now
                print(f"\r{label}: page {done}/{total}", end="\n" if done == total else "", file=sys.stderr)
            return
        if now - state["start"] > 2 and (now - state["last"] > 5 or (done == total and state["shown"])):
            state["last"], state["shown"] = now, True
            print(f"{label}: page {done}/{total}", file=sys.stderr)

    return report


def _add_parse_options(p: argparse.ArgumentParser, out_flags: tuple[str, ...] = ("-o", "--out")) -> None:
    p.add_argument(
        *out_flags,
        dest="artifacts",
        default=None,
        help="artifacts folder (env DOCINTEL_ARTIFACTS; default ./artifacts)",
    )
    p.add_argument(
        "--layout",
        choices=["auto", "always", "never"],
        default=None,
        help="escalate pages to the layout model: auto (default), always, never (env DOCINTEL_LAYOUT)",
    )
    p.add_argument(
        "--ocr",
        choices=["auto", "never"],
        default=None,
        help="read image-only pages with Tesseract when installed: auto (default), never (env DOCINTEL_OCR)",
    )
    p.add_argument("--parser", default=None, help="pymupdf (default) or docling (env DOCINTEL_PARSER)")
    p.add_argument("--docling-json", default=None, help="map an existing Docling JSON export of this PDF")
    p.add_argument("--password", default=None, help="password of an encrypted PDF (env DOCINTEL_PASSWORD)")
    p.add_argument(
        "--eager-refs", action="store_true", help="run the in-prose reference extractor over every line"
    )
    p.add_argument("--no-cache", action="store_true", help="parse again even when cached tables exist")
    p.add_argument("--max-pages", type=int, default=None, help="refuse documents with more pages")


def _parse_kwargs(args) -> dict:
    kw = {
        "layout": pick(args.layout, "layout", "auto"),
        "ocr": pick(args.ocr, "ocr", "auto"),
        "parser": pick(args.parser, "parser", "pymupdf"),
        "docling_json": args.docling_json,
        "password": pick(args.password, "password"),
        "eager_refs": args.eager_refs,
        "out_dir": args.artifacts,
        "use_cache": not args.no_cache,
        "progress": _progress_printer("parse"),
    }
    if args.max_pages:
        kw["max_pages"] = args.max_pages
    return kw


def cmd_parse(args) -> int:
    from docintel.api import parse

    t0 = time.perf_counter()
    tables = parse(args.pdf, **_parse_kwargs(args))
    m = tables.manifest
    rows = ", ".join(f"{n} {len(df)}" for n, df in tables.tables().items())
    print(f"{m.get('source_name', args.pdf)}: doc_id {tables.doc_id}, {m.get('pages')} pages")
    print(f"rows: {rows}")
    esc = m.get("escalated_pages") or {}
    if esc:
        print(f"escalated to layout: {len(esc)} page(s)")
        for page, why in esc.items():
            print(f"  page {page}: {why}")
    else:
        print("escalated to layout: none")
    if m.get("image_only_pages"):
        print(f"image-only pages (no text layer, need OCR): {m['image_only_pages']}")
    if m.get("failed_pages"):
        print(f"failed pages (document is partial): {m['failed_pages']}")
    hit = " (cache hit)" if m.get("cache_hit") else ""
    print(f"tables: {m.get('cache_dir')}{hit}")
    print(f"time: {time.perf_counter() - t0:.2f}s")
    return 0


def cmd_tables(args) -> int:
    from docintel.api import parse
    from docintel.schema.tables import TABLES

    tables = parse(args.pdf, **_parse_kwargs(args))
    names = [args.table] if args.table else list(TABLES)
    for name in names:
        df = tables.table(name)
        if args.format == "csv":
            sys.stdout.write(df.to_csv(index=False))
        elif args.format == "json":
            sys.stdout.write(df.to_json(orient="records", lines=True, force_ascii=False))
        else:
            import pandas as pd

            print(f"== {name} ({len(df)} rows)")
            with pd.option_context(
                "display.max_rows",
                args.limit,
                "display.max_columns",
                None,
                "display.width",
                200,
                "display.max_colwidth",
                60,
            ):
                print(df.head(args.limit).to_string(index=False) if len(df) else "(empty)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="docintel", description="PDF document intelligence that follows cross-references."
    )
    ap.add_argument("--version", action="version", version=f"docintel {__version__}")
    ap.add_argument("--debug", action="store_true", help="show tracebacks and debug logs")
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("parse", help="parse a PDF into Parquet tables")
    p.add_argument("pdf")
    _add_parse_options(p)
    p.set_defaults(func=cmd_parse)

    p = sub.add_parser("tables", help="show a parsed table (parses first if needed)")
    p.add_argument("pdf")
    p.add_argument(
        "table", nargs="?", help="line_df, page_df, toc_df, object_registry, cell_df or cross_ref_df"
    )
    p.add_argument("--format", choices=["text", "csv", "json"], default="text")
    p.add_argument("--limit", type=int, default=50, help="rows shown in text format")
    _add_parse_options(p)
    p.set_defaults(func=cmd_tables)

    try:
        from docintel.cli_ask import add_ask_commands
    except ImportError:  # pragma: no cover - during bootstrap only
        pass
    else:
        add_ask_commands(sub, _add_parse_options, _parse_kwargs)
    from docintel.corpus.cli import add_parsers as add_corpus_parsers

    add_corpus_parsers(sub)
    return ap


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv  # accepted anywhere on the line, not only before the command
    ap = build_parser()
    from docintel.corpus.cli import corpus_argv  # `ask/eval --corpus STORE` are corpus verbs

    args = ap.parse_args(corpus_argv([a for a in argv if a != "--debug"]))
    args.debug = debug
    logging.basicConfig(
        level=logging.DEBUG if args.debug else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        return args.func(args)
    except DocintelError as exc:
        if args.debug:
            raise
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("Error: interrupted", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except Exception as exc:  # an unexpected failure still gets one line unless --debug
        if args.debug:
            raise
        print(
            f"Error: unexpected {type(exc).__name__}: {exc} (run with --debug for the traceback)",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
