"""Ingestion on Dask: a loopback cluster of two worker processes commits what a serial ingest does.

Worker *processes* (not threads): PyMuPDF is not thread-safe, and processes are what a real
cluster runs, at the price of a few seconds' start-up.
"""

from __future__ import annotations

import pytest

from docintel.corpus import Corpus
from tests.corpus_fixtures import make_corpus

pytest.importorskip("dask.distributed")

VOLATILE = ["ingested_at", "path", "cache_dir"]


def _tables(loc):
    store = Corpus(loc).store
    docs = store.table("documents").drop(columns=VOLATILE).sort_values("doc_id").reset_index(drop=True)
    blocks = store.table("blocks").sort_values("block_id").reset_index(drop=True)
    access = store.table("access").sort_values(["doc_id", "grp"]).reset_index(drop=True)
    return docs, blocks, access


def test_dask_ingest_equals_serial(tmp_path, monkeypatch):
    from dask.distributed import LocalCluster

    folder = make_corpus(tmp_path / "in", bad=True)
    opts = {"layout": "never", "ocr": "never"}
    serial = Corpus.ingest(
        tmp_path / "serial", [folder], groups_file=folder / "groups.json", parse_options=opts
    )
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", cluster.scheduler_address)  # as on a real cluster
        dask = Corpus.ingest(
            tmp_path / "dask", [folder], groups_file=folder / "groups.json", parse_options=opts
        )
    assert dask.executor == f"dask {cluster.scheduler_address}"
    assert sorted(dask.failures) == sorted(serial.failures) and len(dask.failures) == 3
    assert (dask.parsed, dask.pages) == (serial.parsed, serial.pages) == (3, 10)
    for a, b in zip(_tables(tmp_path / "serial"), _tables(tmp_path / "dask"), strict=True):
        assert a.equals(b)


def test_cli_ingest_on_workers_prints_the_ingest_not_the_schedulers_log(tmp_path):
    import subprocess
    import sys

    folder = make_corpus(tmp_path / "in")
    out = subprocess.run(
        [sys.executable, "-m", "docintel", "ingest", str(folder), "--corpus", str(tmp_path / "s"),
         "--group", "public", "--workers", "2", "--layout", "never", "--ocr", "never"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    assert "documents:" in out.stdout + out.stderr and "dask 2 workers" in out.stdout + out.stderr
    assert "INFO distributed" not in out.stderr
