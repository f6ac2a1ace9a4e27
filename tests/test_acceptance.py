"""The seed article's running example, end to end with the offline backend.

Needs the Transformer paper from ../shared/eval/pdfs (its licence keeps it out of this repo);
skipped with a reason when that folder is absent.
"""

from __future__ import annotations

import json

import pytest

from docintel.api import ask


@pytest.fixture(scope="module")
def attention(shared_dir):
    pdf = shared_dir / "eval" / "pdfs" / "attention_1706.03762v7.pdf"
    if not pdf.exists():
        pytest.skip(f"{pdf} not present")
    return pdf


def test_table_3_row_e_is_followed_to_page_9(attention, tmp_path):
    trace_path = tmp_path / "trace.json"
    res = ask(
        attention,
        "Do learned positional embeddings give similar results to sinusoidal ones?",
        backend="offline",
        out_dir=tmp_path / "art",
        trace_path=trace_path,
    )
    first, final = res.passes[0], res.passes[-1]
    assert [e["page"] for e in first["evidence"]][0] == 6
    assert first["decision"] == "resolve_references"
    assert res.loop_count == 1
    assert any(
        r["reference"] == "Table 3 row (E)" and r["target"] == "table:3" and r["sub_selector"] == "row (E)"
        for r in res.resolutions
    )
    assert "4.92" in res.answer.answer and "25.7" in res.answer.answer
    via_ref = [c for c in res.answer.citations if c.page == 9 and c.retrieved_via == "reference"]
    assert via_ref and via_ref[0].referenced_from[0] == 6 and via_ref[0].reference_text == "Table 3 row (E)"
    assert res.answer.answer_completeness == "complete"
    # pass 2 got row (E) with the table header, not the whole page of unrelated rows
    pulled = [e for e in final["evidence"] if e["retrieved_via"] == "reference"]
    text = "\n".join(e["text"] for e in pulled)
    assert "(E)" in text and "PPL" in text and "(A)" not in text
    trace = json.loads(trace_path.read_text())
    kinds = [e["kind"] for e in trace["events"]]
    assert kinds.count("pass") == 2 and "resolution" in kinds
    assert trace["candidates"][0]["page"] == 6


def test_direct_question_does_not_loop(attention, tmp_path):
    res = ask(
        attention,
        "What is the maximum path length of a self-attention layer compared with a recurrent layer?",
        backend="offline",
        out_dir=tmp_path / "art",
        write_trace=False,
    )
    assert res.loop_count == 0
