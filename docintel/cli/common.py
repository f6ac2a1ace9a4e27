"""What several verbs share: the parse options (flag > env > default) and progress on stderr."""

from __future__ import annotations

import argparse
import sys
import time

from docintel.settings import Settings, pick


def progress_printer(label: str):
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


#: Flags that meant the artifacts folder before ``-o`` became "the output file" everywhere.
DEPRECATED_ARTIFACT_FLAGS = ("-o", "--out")


def add_parse_options(p: argparse.ArgumentParser, *, deprecated_out: bool = False) -> None:
    """The parse options every verb that parses shares. ``--artifacts DIR`` is the cache folder
    on every verb; ``deprecated_out`` also accepts the old ``-o/--out DIR`` (parse, tables),
    with a warning, for scripts written before ``-o`` meant an output file."""
    p.add_argument(
        "--artifacts",
        dest="artifacts",
        default=None,
        metavar="DIR",
        help="artifacts (cache) folder (env DOCINTEL_ARTIFACTS; default ./artifacts)",
    )
    if deprecated_out:
        p.add_argument(*DEPRECATED_ARTIFACT_FLAGS, dest="artifacts_old", default=None, help=argparse.SUPPRESS)
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


def artifacts_dir(args) -> str | None:
    """``--artifacts``, or the deprecated ``-o/--out`` of parse/tables (with a warning)."""
    old = getattr(args, "artifacts_old", None)
    if old is not None and args.artifacts is None:
        print(
            f"warning: -o/--out for the artifacts folder is deprecated; use --artifacts {old}",
            file=sys.stderr,
        )
        args.artifacts, args.artifacts_old = old, None
    return args.artifacts


def parse_kwargs(args) -> dict:
    s = Settings.resolve(layout=args.layout, ocr=args.ocr, parser=args.parser)
    kw = {
        "layout": s.layout,
        "ocr": s.ocr,
        "parser": s.parser,
        "docling_json": args.docling_json,
        "password": pick(args.password, "password"),
        "eager_refs": args.eager_refs,
        "out_dir": artifacts_dir(args),
        "use_cache": not args.no_cache,
        "progress": progress_printer("parse"),
    }
    if args.max_pages is not None:  # 0 or a negative is refused by the API, never "no limit"
        kw["max_pages"] = args.max_pages
    return kw
