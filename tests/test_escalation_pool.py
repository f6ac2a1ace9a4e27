"""The layout model in worker processes: same tables as in-process, in page order; a dead worker
leaves its pages on the fast parse."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from docintel.parsing import escalate
from tests._page_stage import parse_pages

FIXTURE = Path(__file__).resolve().parent / "data" / "fixtures" / "contents_page.pdf"


def _tables(monkeypatch, workers: str):
    monkeypatch.setenv("DOCINTEL_LAYOUT_WORKERS", workers)
    t = parse_pages(FIXTURE, layout_mode="always")
    return t.line_df, t.page_df.drop(columns="parse_seconds")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the pool forks")
def test_pooled_pages_equal_in_process_pages(monkeypatch):
    calls = []
    real = escalate._run_forked
    monkeypatch.setattr(escalate, "_run_forked", lambda *a: calls.append(a[2]) or real(*a))
    lines_1, pages_1 = _tables(monkeypatch, "1")
    assert not calls
    lines_2, pages_2 = _tables(monkeypatch, "2")
    assert calls == [2]  # two workers ran
    assert set(pages_2["parse_method"]) == {"layout"}
    assert lines_2.equals(lines_1) and pages_2.equals(pages_1)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the pool forks")
def test_a_worker_that_dies_leaves_the_fast_parse(monkeypatch):
    monkeypatch.setattr(escalate, "_worker", lambda doc, chunk, conn: os._exit(3))
    monkeypatch.setenv("DOCINTEL_LAYOUT_WORKERS", "2")
    t = parse_pages(FIXTURE, layout_mode="always")
    pdf_ = t.page_df
    assert set(pdf_["parse_method"]) == {"fast"}
    assert pdf_["escalation_signals"].str.contains("layout_failed: the layout worker stopped").all()


def test_one_worker_per_page_at_most(monkeypatch):
    monkeypatch.setenv("DOCINTEL_LAYOUT_WORKERS", "4")
    assert escalate.workers_for(1) == 1
    assert escalate.workers_for(2) == (2 if hasattr(os, "fork") else 1)


def test_model_sessions_are_built_with_one_thread_and_the_default_comes_back():
    ort = pytest.importorskip("onnxruntime")
    from docintel.parsing import layout

    base = ort.SessionOptions
    with layout._one_thread_sessions():
        so = ort.SessionOptions()
        assert (so.intra_op_num_threads, so.inter_op_num_threads) == (1, 1)
    assert ort.SessionOptions is base
