"""The README's promises: the quick start matches CI, and every table column is documented."""

from __future__ import annotations

import re

from docintel.schema.tables import TABLES

from .conftest import REPO

README = (REPO / "README.md").read_text()


def _quick_start() -> list[str]:
    block = README.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    return [ln.strip() for ln in block.strip().splitlines() if ln.strip()]


def test_quick_start_is_two_commands_and_ci_runs_the_test_one():
    commands = _quick_start()
    assert len(commands) == 2
    assert "python -m docintel ask pdfs/" in commands[0]
    ci = (REPO / ".ci" / "run").read_text()
    assert commands[1].replace("pip install", "pip install -q") in ci


def test_bundled_sample_of_the_quick_start_exists():
    pdf = re.search(r"ask (\S+\.pdf)", _quick_start()[0]).group(1)
    assert (REPO / pdf).exists()


def test_every_table_column_is_documented():
    for spec in TABLES.values():
        assert f"### `{spec.name}`" in README
        for col in spec.column_names:
            assert f"| `{col}` |" in README, f"{spec.name}.{col} missing from the README"
