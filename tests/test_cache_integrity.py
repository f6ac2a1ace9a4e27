"""The cache never lies, never leaks, never vanishes: corruption, passwords, limits, full disk."""

from __future__ import annotations

import errno
import logging
import os
from pathlib import Path

import pytest

from docintel.errors import DocumentError, EncryptedDocumentError, StorageError, UsageError
from docintel.parsing import parse_document, store
from tests.fuzz import hostile

FAST = {"layout": "never", "ocr": "never"}


@pytest.fixture
def small_pdf(tmp_path) -> Path:
    f = tmp_path / "small.pdf"
    f.write_bytes(hostile.text_pdf(3))
    return f


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in Path(directory).iterdir()}


def _leftovers(directory: Path) -> list[str]:
    """Everything in the document folder but the link and the version it names."""
    live = directory.resolve()
    return sorted(
        p.name for p in directory.parent.iterdir() if p not in (directory, live) and p.name != "traces"
    )


def _parse(pdf, out, **kw):
    return parse_document(pdf, out_dir=out, **{**FAST, **kw})


def test_entry_records_source_and_table_checksums(small_pdf, artifacts):
    t = _parse(small_pdf, artifacts)
    m = t.manifest
    assert set(m["checksums"]) == {
        "line_df",
        "page_df",
        "toc_df",
        "object_registry",
        "cell_df",
        "cross_ref_df",
    }
    again, problem = store.load_checked(Path(m["cache_dir"]), source_sha256=m["source_sha256"])
    assert problem is None and again.line_df.equals(t.line_df)
    _, problem = store.load_checked(Path(m["cache_dir"]), source_sha256="0" * 64)
    assert "other source" in problem


def _flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset % len(data)] ^= 0x01
    path.write_bytes(bytes(data))


@pytest.fixture(scope="module")
def two_cached_docs(tmp_path_factory):
    """An artifacts folder holding two parsed documents (copied per test, parsed once)."""
    root = tmp_path_factory.mktemp("two")
    (root / "small.pdf").write_bytes(hostile.text_pdf(3))
    (root / "other.pdf").write_bytes(hostile.text_pdf(2))
    small = _parse(root / "small.pdf", root / "artifacts")
    other = _parse(root / "other.pdf", root / "artifacts")
    return root, small, Path(other.manifest["cache_dir"]).relative_to(root / "artifacts")


@pytest.mark.parametrize(
    "damage",
    [
        lambda d, other: _flip(d / "line_df.parquet", 200),
        lambda d, other: _flip(d / "page_df.parquet", -300),
        lambda d, other: (d / "line_df.parquet").write_bytes(b"PAR1 not really"),
        lambda d, other: (d / "toc_df.parquet").unlink(),
        lambda d, other: (d / "manifest.json").write_text('{"doc_id": "x", "sch'),
        lambda d, other: (d / "line_df.parquet").write_bytes((other / "line_df.parquet").read_bytes()),
    ],
    ids=["flip-line_df", "flip-page_df", "garbage", "missing", "truncated-manifest", "other-docs-line_df"],
)
def test_damaged_entry_is_a_miss_with_one_warning_then_healed(tmp_path, two_cached_docs, caplog, damage):
    import shutil

    root, good, other_rel = two_cached_docs
    artifacts = tmp_path / "artifacts"
    shutil.copytree(root / "artifacts", artifacts, symlinks=True)
    small_pdf = root / "small.pdf"
    cache = artifacts / Path(good.manifest["cache_dir"]).relative_to(root / "artifacts")
    damage(cache.resolve(), (artifacts / other_rel).resolve())
    with caplog.at_level(logging.WARNING, logger="docintel"):
        again = _parse(small_pdf, artifacts)
    warnings = [r for r in caplog.records if "not used" in r.getMessage()]
    assert len(warnings) == 1, caplog.text
    assert again.manifest["cache_hit"] is False
    assert again.line_df.equals(good.line_df)
    caplog.clear()
    third = _parse(small_pdf, artifacts)  # the re-parse replaced the damaged entry
    assert third.manifest["cache_hit"] is True and not caplog.records
    assert _leftovers(cache) == []


def test_encrypted_source_is_never_served_without_its_password(tmp_path, artifacts):
    f = tmp_path / "enc.pdf"
    f.write_bytes(hostile.encrypted())
    good = _parse(f, artifacts, password="secret")
    assert "quick brown fox" in " ".join(good.line_df["text"])
    with pytest.raises(EncryptedDocumentError, match="give its --password"):
        _parse(f, artifacts)
    with pytest.raises(EncryptedDocumentError, match="wrong password"):
        _parse(f, artifacts, password="guess")
    assert _parse(f, artifacts, password="secret").manifest["cache_hit"] is True


def test_page_limit_holds_on_a_cache_hit_and_is_validated(tmp_path, artifacts):
    f = tmp_path / "twelve.pdf"
    f.write_bytes(hostile.text_pdf(12))
    _parse(f, artifacts)
    with pytest.raises(DocumentError, match="12 pages is over the 10-page limit"):
        _parse(f, artifacts, max_pages=10)
    for bad in (0, -1, 2.5):
        with pytest.raises(UsageError, match="--max-pages"):
            _parse(f, artifacts, max_pages=bad)


def test_full_disk_leaves_nothing_partial_and_the_old_tables_intact(small_pdf, artifacts, monkeypatch):
    good = _parse(small_pdf, artifacts)
    cache = Path(good.manifest["cache_dir"])
    before = _snapshot(cache)
    calls = {"n": 0}

    def full_disk(path, data):
        calls["n"] += 1
        if calls["n"] >= 3:  # a few tables fit, then the disk is full mid-file
            with open(path, "wb") as fh:
                fh.write(data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        with open(path, "wb") as fh:
            fh.write(data)

    monkeypatch.setattr(store, "_write_file", full_disk)
    with pytest.raises(StorageError, match="the disk is full"):
        _parse(small_pdf, artifacts, use_cache=False)
    assert _snapshot(cache) == before
    assert _leftovers(cache) == []


def test_first_parse_into_a_full_disk_leaves_no_empty_folders(small_pdf, tmp_path, monkeypatch):
    def full_disk(path, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(store, "_write_file", full_disk)
    out = tmp_path / "fresh"
    with pytest.raises(StorageError):
        _parse(small_pdf, out)
    assert not out.exists()


def test_full_disk_is_one_error_line_from_the_cli(small_pdf, tmp_path, monkeypatch, capsys):
    from docintel.cli import main

    def full_disk(path, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(store, "_write_file", full_disk)
    code = main(
        ["parse", str(small_pdf), "--artifacts", str(tmp_path / "o"), "--layout", "never", "--ocr", "never"]
    )
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert code == 1 and len(err) == 1 and err[0].startswith("Error: could not save the tables")


def test_stale_temp_folders_of_dead_writers_are_cleaned(small_pdf, artifacts):
    good = _parse(small_pdf, artifacts)
    cache = Path(good.manifest["cache_dir"])
    dead = cache.parent / f".{cache.name}.tmp-999999999-abc"
    dead.mkdir()
    (dead / "line_df.parquet").write_bytes(b"half")
    alive = cache.parent / f".{cache.name}.tmp-{os.getppid()}-xyz"  # a live writer's: left alone
    alive.mkdir()
    assert _parse(small_pdf, artifacts).manifest["cache_hit"] is True
    assert not dead.exists() and alive.exists()


def test_interrupted_save_of_an_older_docintel_is_restored(small_pdf, artifacts):
    """The killed two-rename save left the final path missing and the tables in .old-PID."""
    good = _parse(small_pdf, artifacts)
    cache = Path(good.manifest["cache_dir"])
    before = _snapshot(cache)
    live = cache.resolve()
    cache.unlink()
    live.rename(cache.parent / f".{cache.name}.old-424242")
    again = _parse(small_pdf, artifacts)
    assert again.manifest["cache_hit"] is True
    assert _snapshot(cache) == before and _leftovers(cache) == []


def test_appended_cross_refs_keep_the_manifest_consistent(small_pdf, artifacts):
    import pandas as pd

    t = _parse(small_pdf, artifacts)
    row = {"doc_id": t.doc_id, "origin_page": 1, "origin_line": 1, "anchor_text": "Section 9"}
    store.append_cross_refs(t, pd.DataFrame([{**row, "source": "regex", "ref_type": "section"}]))
    cache = Path(t.manifest["cache_dir"])
    again, problem = store.load_checked(cache, source_sha256=t.manifest["source_sha256"])
    assert problem is None and len(again.cross_ref_df) == len(t.cross_ref_df)
    assert _leftovers(cache) == []


def test_atomic_write_never_leaves_a_partial_file(tmp_path, monkeypatch):
    from docintel import atomic

    target = tmp_path / "traces" / "t.json"
    atomic.atomic_write_text(target, '{"old": true}')

    def no_space(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(atomic.os, "fsync", no_space)
    with pytest.raises(OSError):
        atomic.atomic_write_text(target, '{"new": ' + "1" * 10000 + "}")
    assert target.read_text() == '{"old": true}'
    assert [p.name for p in target.parent.iterdir()] == ["t.json"]
