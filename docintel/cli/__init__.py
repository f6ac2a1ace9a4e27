"""Command line: parses arguments and calls the API. No pipeline logic here.

Each verb lives in a module of this package with ``add_parser(subparsers)`` (which sets
``func`` on its parser(s)) and the function it sets; a new verb is a new module listed in
:data:`VERB_MODULES`.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from docintel import __version__
from docintel.cli import answers as answers_verb
from docintel.cli import ask as ask_verb
from docintel.cli import corpus as corpus_verbs
from docintel.cli import eval as eval_verb
from docintel.cli import export as export_verb
from docintel.cli import links as links_verb
from docintel.cli import parse as parse_verb
from docintel.cli import records as records_verb
from docintel.errors import DocintelError

#: The verb modules, in help order: each has ``add_parser(subparsers)``. Add one to add a verb.
VERB_MODULES = [
    parse_verb,
    ask_verb,
    eval_verb,
    export_verb,
    corpus_verbs,
    records_verb,
    links_verb,
    answers_verb,
]


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="docintel", description="PDF document intelligence that follows cross-references."
    )
    ap.add_argument("--version", action="version", version=f"docintel {__version__}")
    ap.add_argument("--debug", action="store_true", help="show tracebacks and debug logs")
    sub = ap.add_subparsers(dest="command", required=True)
    for verb in VERB_MODULES:
        verb.add_parser(sub)
    return ap


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv  # accepted anywhere on the line, not only before the command
    ap = build_parser()
    # `ask/eval --corpus STORE` are the corpus verbs; `ask PDF QUESTION` keeps its arguments
    args = ap.parse_args(corpus_verbs.corpus_argv([a for a in argv if a != "--debug"]))
    args.debug = debug
    logging.basicConfig(
        level=logging.DEBUG if args.debug else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if not args.debug:  # distributed's INFO chatter (ingest --workers) is not a verb's output;
        # read by distributed when it is imported, and inherited by its worker processes
        os.environ.setdefault("DASK_DISTRIBUTED__LOGGING__DISTRIBUTED", "warning")
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
