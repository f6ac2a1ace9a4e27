"""Snapshot tests of what a user sees from an offline ``ask`` on the bundled PDFs.

A golden pins the answer, its citations, the pending/external references, each pass's
decision and instructions, the resolutions and what stayed unresolved: not retrieval scores,
evidence windows or the trace, so a retrieval weight change that leaves the answers alone
rewrites nothing. Regenerate with DOCINTEL_UPDATE_GOLDEN=1 (the guard test then fails on
purpose, so the flag cannot be left on).
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
#: Fields of ``ask --json`` a user reads; the loop's passes and resolutions are cut to their
#: outcome below.
SEEN = (
    "answer",
    "answer_completeness",
    "citations",
    "pending_references",
    "external_references",
    "conditions",
    "loop_count",
    "unresolved",
    "warnings",
)
RESOLUTION_FIELDS = ("reference", "status", "method", "target", "sub_selector", "target_pages")


def user_view(result) -> dict:
    """What a user sees of an answer, as JSON (tuples as lists)."""
    full = json.loads(json.dumps(result.to_json_dict(), default=str))
    view = {k: full[k] for k in SEEN}
    view["passes"] = [{"decision": p["decision"], "instructions": p["instructions"]} for p in full["passes"]]
    view["resolutions"] = [{k: r[k] for k in RESOLUTION_FIELDS} for r in full["resolutions"]]
    return view


@pytest.fixture(scope="module")
def tables_by_pdf(tmp_path_factory):
    out = tmp_path_factory.mktemp("golden-artifacts")
    # ocr="never": snapshots must not depend on whether (or which) Tesseract is installed
    return {name: parse(PDFS / name, out_dir=out, ocr="never") for name in {q["pdf"] for q in QUESTIONS}}, out


@pytest.mark.parametrize("q", QUESTIONS, ids=[q["id"] for q in QUESTIONS])
def test_offline_answer_matches_golden(q, tables_by_pdf, tmp_path):
    tables, out = tables_by_pdf
    res = ask(
        PDFS / q["pdf"],
        q["question"],
        backend="offline",
        tables=tables[q["pdf"]],
        trace_path=tmp_path / "trace.json",
        out_dir=out,
    )
    got = user_view(res)
    golden = GOLDEN / f"{q['id']}.json"
    if UPDATE_GOLDEN:
        golden.write_text(json.dumps(got, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    assert golden.exists(), f"missing golden {golden.name}: run with DOCINTEL_UPDATE_GOLDEN=1"
    assert got == json.loads(golden.read_text())
