"""`docintel parse` and `docintel tables`: parse a PDF, show its tables."""

from __future__ import annotations

import sys
import time

from docintel.cli.common import add_parse_options, parse_kwargs

VERBS = ("parse", "tables")
#: Rows of each table ``docintel tables`` prints in text format unless ``--limit`` says otherwise.
DEFAULT_LIMIT = 20


def add_parser(sub) -> None:
    p = sub.add_parser("parse", help="parse a PDF into Parquet tables")
    p.add_argument("pdf")
    add_parse_options(p, deprecated_out=True)
    p.set_defaults(func=run_parse)

    p = sub.add_parser("tables", help="show a parsed table (parses first if needed)")
    p.add_argument("pdf")
    p.add_argument(
        "table", nargs="?", help="line_df, page_df, toc_df, object_registry, cell_df or cross_ref_df"
    )
    p.add_argument("--format", choices=["text", "csv", "json"], default="text")
    p.add_argument(
        "--limit",
        type=int,
        default=DEFAULT_LIMIT,
        help=f"rows shown in text format, 0 for all (default {DEFAULT_LIMIT}; csv and json give every row)",
    )
    add_parse_options(p, deprecated_out=True)
    p.set_defaults(func=run_tables)


def run_parse(args) -> int:
    from docintel.api import parse

    t0 = time.perf_counter()
    tables = parse(args.pdf, **parse_kwargs(args))
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
    for line in _image_only_lines(m):
        print(line)
    if m.get("failed_pages"):
        print(f"failed pages (document is partial): {m['failed_pages']}")
    if m.get("damaged_pages"):
        print(f"damaged pages (read as far as MuPDF could): {m['damaged_pages']}")
    for stage, why in (m.get("stage_errors") or {}).items():
        print(f"stage failed, its table left empty: {stage}: {why}")
    hit = " (cache hit)" if m.get("cache_hit") else ""
    print(f"tables: {m.get('cache_dir')}{hit}")
    print(f"time: {time.perf_counter() - t0:.2f}s")
    return 0


def _image_only_lines(m: dict) -> list[str]:
    """What happened to the image-only pages, as it happened: read by OCR, or not and why."""
    pages = m.get("image_only_pages") or []
    read = [p for p in pages if p in set(m.get("ocr_pages") or [])]
    unread = [p for p in pages if p not in read]
    out = []
    if read:
        out.append(f"image-only pages read by OCR (Tesseract; may contain recognition errors): {read}")
    if unread:
        if (m.get("options") or {}).get("ocr") == "never":
            why = "OCR off: --ocr never"
        else:
            from docintel.parsing.ocr import INSTALL_HINT, tessdata

            why = (
                "OCR read nothing or failed, see the warning"
                if tessdata()
                else f"Tesseract is not installed: {INSTALL_HINT}"
            )
        out.append(f"image-only pages not read ({why}): {unread}")
    return out


def _check_table_args(args) -> list[str]:
    """The tables to show; an unknown name or a negative limit fails before any parsing."""
    from docintel.errors import UsageError
    from docintel.schema.tables import TABLES

    if args.limit < 0:
        raise UsageError(f"--limit must be 0 (all rows) or a positive number of rows, not {args.limit}")
    if args.table and args.table not in TABLES:
        raise UsageError(f"unknown table {args.table!r}; the tables are: {', '.join(TABLES)}")
    return [args.table] if args.table else list(TABLES)


def run_tables(args) -> int:
    from docintel.api import parse
    from docintel.cli.show import render_text
    from docintel.schema.tables import TABLES

    names = _check_table_args(args)
    tables = parse(args.pdf, **parse_kwargs(args))
    for name in names:
        df = tables.table(name)
        if args.format == "csv":
            sys.stdout.write(df.to_csv(index=False))
        elif args.format == "json":
            sys.stdout.write(df.to_json(orient="records", lines=True, force_ascii=False))
        else:
            # one document: its doc_id goes in the heading rather than on every row
            doc = f", doc_id {tables.doc_id}" if "doc_id" in df.columns else ""
            text, hidden = render_text(
                df.drop(columns=["doc_id"], errors="ignore"), spec=TABLES[name], limit=args.limit
            )
            print(
                f"{'' if name == names[0] else chr(10)}== {name} ({len(df)} row{'s' if len(df) != 1 else ''}{doc})"
            )
            print(text)
            if hidden:
                print(f"... {hidden} more row{'s' if hidden != 1 else ''} (--limit 0 for all)")
    return 0
