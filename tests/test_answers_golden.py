"""Snapshot tests of offline answers and traces on the bundled PDFs.

Regenerate with DOCINTEL_UPDATE_GOLDEN=1 (the guard test then fails on purpose,
so the flag cannot be left on). Volatile fields (times, paths, versions,
timestamps) are normalized before comparing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docintel.api import ask, parse

from .conftest import PDFS, UPDATE_GOLDEN

GOLDEN = Path(__file__).parent / "golden" / "answers"
QUESTIONS = [
    json.loads(line) for line in (GOLDEN / "questions.jsonl").read_text().splitlines() if line.strip()
]
VOLATILE = {"created_at", "timings", "versions", "trace_path", "path", "python", "cache_hit", "seconds"}


def normalize(obj):
    if isinstance(obj, dict):
        return {k: normalize(v) for k, v in obj.items() if k not in VOLATILE}
    if isinstance(obj, list):
        return [normalize(v) for v in obj]
    if isinstance(obj, float):
        return round(obj, 4)
    return obj


@pytest.fixture(scope="module")
def tables_by_pdf(tmp_path_factory):
    out = tmp_path_factory.mktemp("golden-artifacts")
    # ocr="never": snapshots must not depend on whether (or which) Tesseract is installed
    return {name: parse(PDFS / name, out_dir=out, ocr="never") for name in {q["pdf"] for q in QUESTIONS}}, out


@pytest.mark.parametrize("q", QUESTIONS, ids=[q["id"] for q in QUESTIONS])
def test_offline_answer_and_trace_match_golden(q, tables_by_pdf, tmp_path):
    tables, out = tables_by_pdf
    trace_path = tmp_path / "trace.json"
    res = ask(
        PDFS / q["pdf"],
        q["question"],
        backend="offline",
        tables=tables[q["pdf"]],
        trace_path=trace_path,
        out_dir=out,
    )
    got = normalize({"answer": res.to_json_dict(), "trace": json.loads(trace_path.read_text())})
    got = json.loads(json.dumps(got, default=str))  # tuples -> lists, as the golden file stores them
    golden = GOLDEN / f"{q['id']}.json"
    if UPDATE_GOLDEN:
        golden.write_text(json.dumps(got, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    assert golden.exists(), f"missing golden {golden.name}: run with DOCINTEL_UPDATE_GOLDEN=1"
    expected = json.loads(golden.read_text())
    assert got["answer"] == expected["answer"]
    assert got["trace"] == expected["trace"]
