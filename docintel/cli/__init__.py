"""Command line: parses arguments and calls the API. No pipeline logic here.

Each verb lives in a module of this package with ``add_parser(subparsers)`` (which sets
``func`` on its parser(s)) and the function it sets; a new verb is a new module listed in
:data:`VERBS` with the verbs it adds. A command line naming a verb imports and builds only
that verb's module (a cached ``ask`` pays for no other verb's imports or arguments);
``--help``, ``--version`` or an unknown verb builds them all.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from importlib import import_module
from types import ModuleType

from docintel import __version__
from docintel.errors import DocintelError

#: The verb modules of this package, in help order, and the verbs each one's ``add_parser`` adds
#: (``tests/test_cli_verbs.py`` checks the two agree).
VERBS: dict[str, tuple[str, ...]] = {
    "parse": ("parse", "tables"),
    "ask": ("ask",),
    "eval": ("eval",),
    "export": ("export", "sql"),
    "corpus": ("ingest", "docs", "access", "corpus-ask", "corpus-eval"),
    "records": ("records",),
    "links": ("links",),
    "answers": ("answers",),
    "serve": ("serve",),
}


def verb_modules(verb: str | None = None) -> list[ModuleType]:
    """The module adding ``verb``, or every verb module (in help order) for ``None`` or an unknown verb."""
    names = [m for m, verbs in VERBS.items() if verb in verbs] or list(VERBS)
    return [import_module(f"docintel.cli.{name}") for name in names]


def __getattr__(name: str):
    if name == "VERB_MODULES":  # every verb module, imported on first use
        return verb_modules()
    raise AttributeError(name)


def corpus_argv(argv: list[str]) -> list[str]:
    """``ask/eval ... --corpus STORE`` are the corpus verbs; ``ask PDF QUESTION`` keeps its arguments."""
    if (
        argv
        and argv[0] in ("ask", "eval")
        and any(a == "--corpus" or a.startswith("--corpus=") for a in argv[1:])
    ):
        return [f"corpus-{argv[0]}", *argv[1:]]
    return argv


def _verb(argv: list[str]) -> str | None:
    """The verb of a command line: its first word that is not an option (the top-level options
    take no value); ``None`` when help or the version is asked for before it."""
    for arg in argv:
        if arg in ("-h", "--help", "--version"):
            return None
        if not arg.startswith("-"):
            return arg
    return None


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The ``docintel`` parser with every verb, or with ``verb`` alone when it is one of :data:`VERBS`."""
    ap = argparse.ArgumentParser(
        prog="docintel", description="PDF document intelligence that follows cross-references."
    )
    ap.add_argument("--version", action="version", version=f"docintel {__version__}")
    ap.add_argument("--debug", action="store_true", help="show tracebacks and debug logs")
    sub = ap.add_subparsers(dest="command", required=True)
    for module in verb_modules(verb):
        module.add_parser(sub)
    return ap


def main(argv: list[str] | None = None) -> int:
    """``docintel ARGV``. The command line's ``ask`` (``argv`` None: ``sys.argv``) goes to a
    running ``docintel serve`` of the same code when one answers (``docintel.cli.server.client``:
    standard library only), else runs here; a call with an explicit ``argv`` always runs here
    (a program or a test calling ``main`` keeps its own process state). An interactive ask
    that no server answered starts one in the background once it has answered (see
    ``client.start_after_ask``)."""
    forwardable = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    if not (forwardable and _verb(corpus_argv([a for a in argv if a != "--debug"])) == "ask"):
        return run(argv)
    from docintel.cli.server import client

    code = client.forward(argv)
    if code is not None:
        return code
    code = run(argv)
    client.start_after_ask()  # only for an interactive ask that no server answered
    return code


def run(argv: list[str]) -> int:
    """``docintel ARGV`` in this process (what the server runs for a forwarded ask)."""
    debug = "--debug" in argv  # accepted anywhere on the line, not only before the command
    argv = corpus_argv([a for a in argv if a != "--debug"])
    ap = build_parser(_verb(argv))
    args = ap.parse_args(argv)
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
