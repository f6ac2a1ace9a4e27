"""The CLI builds only the verb it runs, and a cached ask imports only what it uses (issue 18C)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from docintel import cli

#: Loaded by a cached single-document ask only if something imports them for nothing.
NOT_FOR_A_CACHED_ASK = (
    "pymupdf",
    "dask",
    "duckdb",
    "docintel.sql",
    "docintel.corpus.tools_sql",
    "docintel.identifiers",
    "docintel.cli.export",
    "docintel.cli.corpus",
    "docintel.cli.parse",
)


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip().splitlines()[-1]


def test_verbs_map_lists_what_each_module_adds():
    for name, verbs in cli.VERBS.items():
        ap = argparse.ArgumentParser()
        sub = ap.add_subparsers()
        cli.verb_modules(verbs[0])[0].add_parser(sub)
        assert tuple(sub.choices) == verbs, name
    full = cli.build_parser()
    every = [v for verbs in cli.VERBS.values() for v in verbs]
    sub = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == every  # help order unchanged


def test_one_verb_parser_is_the_same_parser():
    full = next(a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for verb in ("ask", "tables", "sql", "corpus-ask"):
        alone = next(a for a in cli.build_parser(verb)._actions if isinstance(a, argparse._SubParsersAction))
        assert list(alone.choices) == list(cli.VERBS[next(m for m, v in cli.VERBS.items() if verb in v)])
        assert alone.choices[verb].format_help() == full.choices[verb].format_help()


@pytest.mark.parametrize(
    ("argv", "verb"),
    [
        (["ask", "a.pdf", "q"], "ask"),
        (["--debug", "tables", "a.pdf"], "tables"),
        (["-h", "ask"], None),
        (["--version"], None),
        ([], None),
        (["bogus"], "bogus"),
    ],
)
def test_the_verb_of_a_command_line(argv, verb):
    assert cli._verb(argv) == verb


def test_unknown_verb_still_lists_every_verb(capsys):
    with pytest.raises(SystemExit):
        cli.main(["bogus"])
    err = capsys.readouterr().err
    assert "invalid choice: 'bogus'" in err and "'corpus-ask'" in err and "'answers'" in err


def test_ask_with_corpus_is_still_the_corpus_verb():
    assert cli.corpus_argv(["ask", "q", "--corpus", "s"]) == ["corpus-ask", "q", "--corpus", "s"]
    assert cli.corpus_argv(["ask", "a.pdf", "q"]) == ["ask", "a.pdf", "q"]


def test_reference_grammar_and_generation_import_without_pandas():
    code = (
        "import sys, docintel.refscan, docintel.generation.validator, docintel.generation.offline, "
        "docintel.questions, docintel.parsing; "
        "print([m for m in ('pandas', 'pyarrow', 'numpy') if m in sys.modules])"
    )
    assert _run(code) == "[]"


def test_cached_ask_imports_only_what_it_uses(tmp_path, nist_pdf):
    art = tmp_path / "art"
    run = (
        "import json, runpy, sys\n"
        f"sys.argv = ['docintel', 'ask', {str(nist_pdf)!r}, 'How is the rv_length_indicator computed?',"
        f" '--artifacts', {str(art)!r}, '--backend', 'offline']\n"
        "try:\n    runpy.run_module('docintel', run_name='__main__')\n"
        "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
        f"print(json.dumps([m for m in {list(NOT_FOR_A_CACHED_ASK)!r} if m in sys.modules]))"
    )
    _run(run)  # parses (in the budgeted worker) and caches the tables
    assert json.loads(_run(run)) == []  # the cached ask
    # the check sees a module a run does load: the full parser imports every verb module
    every = _run(
        "import json, sys; from docintel.cli import build_parser; build_parser(); "
        f"print(json.dumps([m for m in {list(NOT_FOR_A_CACHED_ASK)!r} if m in sys.modules]))"
    )
    assert {"docintel.cli.export", "docintel.cli.corpus", "docintel.cli.parse"} <= set(json.loads(every))
