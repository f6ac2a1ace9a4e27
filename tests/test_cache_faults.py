"""Kills and races: the last good tables are always there, byte-identical, with no leftovers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fuzz import hostile

REPO = Path(__file__).resolve().parents[1]
PARSE = (
    "import sys; from docintel.parsing import parse_document; "
    "t = parse_document(sys.argv[1], out_dir=sys.argv[2], layout='never', ocr='never', use_cache=sys.argv[3] == '1'); "
    "print('hit' if t.manifest['cache_hit'] else 'parsed', t.manifest['cache_dir'])"
)


def _run(
    pdf: Path, out: Path, *, cache: bool = True, fault: str | None = None
) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("DOCINTEL_FAULT", None)
    if fault:
        env["DOCINTEL_FAULT"] = fault
    return subprocess.run(
        [sys.executable, "-c", PARSE, str(pdf), str(out), "1" if cache else "0"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in directory.iterdir()}


@pytest.fixture
def small_pdf(tmp_path) -> Path:
    f = tmp_path / "small.pdf"
    f.write_bytes(hostile.text_pdf(3))
    return f


@pytest.mark.parametrize("fault", ["mid-tables", "after-version", "after-swap"])
def test_kill_mid_save_keeps_the_last_good_tables(small_pdf, tmp_path, fault):
    out = tmp_path / "out"
    first = _run(small_pdf, out)
    assert first.returncode == 0, first.stderr
    cache = Path(first.stdout.split()[1])
    before = _snapshot(cache)
    killed = _run(small_pdf, out, cache=False, fault=fault)
    assert killed.returncode == -signal.SIGKILL
    if fault == "after-swap":  # the new version was complete and live: it is the last good one
        from docintel.parsing import store

        assert store.load_checked(cache)[1] is None and set(_snapshot(cache)) == set(before)
    else:  # killed before the swap: the previous tables, present and byte-identical
        assert _snapshot(cache) == before
    again = _run(small_pdf, out)
    assert again.returncode == 0 and again.stdout.startswith("hit"), again.stderr
    names = sorted(p.name for p in cache.parent.iterdir())
    assert names == sorted([cache.name, cache.resolve().name])  # no temp folder, no stray version


def test_kill_during_the_first_save_leaves_nothing_served(small_pdf, tmp_path):
    out = tmp_path / "out"
    killed = _run(small_pdf, out, fault="mid-tables")
    assert killed.returncode == -signal.SIGKILL
    again = _run(small_pdf, out)
    assert again.returncode == 0 and again.stdout.startswith("parsed"), again.stderr
    cache = Path(again.stdout.split()[1])
    assert sorted(p.name for p in cache.parent.iterdir()) == sorted([cache.name, cache.resolve().name])


def test_two_processes_parsing_one_file_at_once(small_pdf, tmp_path):
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, "-c", PARSE, str(small_pdf), str(out), "1"]
    procs = [
        subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for _ in range(2)
    ]
    results = [p.communicate(timeout=300) + (p.returncode,) for p in procs]
    assert [r[2] for r in results] == [0, 0], [r[1] for r in results]
    kinds = sorted(r[0].split()[0] for r in results)
    assert kinds == ["hit", "parsed"]  # the second waited for the first, then read its result
    cache = Path(results[0][0].split()[1])
    assert sorted(p.name for p in cache.parent.iterdir()) == sorted([cache.name, cache.resolve().name])
