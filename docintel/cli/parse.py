"""`docintel parse` and `docintel tables`: parse a PDF, show its tables."""

from __future__ import annotations

import sys
import time

from docintel.cli.common import add_parse_options, parse_kwargs

VERBS = ("parse", "tables")


def add_parser(sub) -> None:
    p = sub.add_parser("parse", help="parse a PDF into Parquet tables")
    p.add_argument("pdf")
    add_parse_options(p)
    p.set_defaults(func=run_parse)

    p = sub.add_parser("tables", help="show a parsed table (parses first if needed)")
    p.add_argument("pdf")
    p.add_argument(
        "table", nargs="?", help="line_df, page_df, toc_df, object_registry, cell_df or cross_ref_df"
    )
    p.add_argument("--format", choices=["text", "csv", "json"], default="text")
    p.add_argument("--limit", type=int, default=50, help="rows shown in text format")
    add_parse_options(p)
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
    if m.get("image_only_pages"):
        print(f"image-only pages (no text layer, need OCR): {m['image_only_pages']}")
    if m.get("failed_pages"):
        print(f"failed pages (document is partial): {m['failed_pages']}")
    hit = " (cache hit)" if m.get("cache_hit") else ""
    print(f"tables: {m.get('cache_dir')}{hit}")
    print(f"time: {time.perf_counter() - t0:.2f}s")
    return 0


def run_tables(args) -> int:
    from docintel.api import parse
    from docintel.schema.tables import TABLES

    tables = parse(args.pdf, **parse_kwargs(args))
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
