"""The process's memo of cached documents (docintel.parsing.warm): served again only while unchanged."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pandas as pd
import pytest

from docintel import api
from docintel.parsing import store, warm
from tests.fuzz import hostile

FAST = {"layout": "never", "ocr": "never"}
OLD = 10**9 * 1_000_000_000  # 2001: older than store.RACY_NS before any read


@pytest.fixture(autouse=True)
def _fresh_memo():
    warm.clear()
    yield
    warm.clear()


@pytest.fixture
def small_pdf(tmp_path) -> Path:
    f = tmp_path / "small.pdf"
    f.write_bytes(hostile.text_pdf(3))
    return f


def _age(*paths: Path) -> None:
    """Date files back, as a cache entry written long before it is read (no racy stamp)."""
    for p in paths:
        for f in [p] if p.is_file() else [x for x in p.iterdir() if x.is_file()]:
            os.utime(f, ns=(OLD, OLD))


def _cached(pdf: Path, out: Path):
    fresh = api.parse(pdf, out_dir=out, **FAST)  # parsed and saved: a fresh parse is never kept
    _age(pdf, store.live_version(Path(fresh.manifest["cache_dir"])))
    first = api.parse(pdf, out_dir=out, **FAST)  # read from the cache, checked, kept
    assert first.manifest["cache_hit"] is True
    return first


def _served(again, first) -> bool:
    """Whether ``again`` came from the memo entry ``first`` came from: its own object, the same frames."""
    assert again is not first
    return again.line_df is first.line_df


def _entry(out: Path) -> Path:
    (doc,) = [d for d in out.iterdir() if d.is_dir()]
    (link,) = [d for d in doc.iterdir() if d.is_symlink()]
    return link


def test_second_load_is_served_from_the_memo(small_pdf, tmp_path):
    out = tmp_path / "art"
    first = _cached(small_pdf, out)
    assert _served(api.parse(small_pdf, out_dir=out, **FAST), first)
    # another option is another entry
    assert not _served(api.parse(small_pdf, out_dir=out, layout="never", ocr="never", eager_refs=True), first)


def test_table_changed_in_place_is_checked_again(small_pdf, tmp_path, caplog):
    out = tmp_path / "art"
    first = _cached(small_pdf, out)
    target = store.live_version(_entry(out)) / "line_df.parquet"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF
    with open(target, "r+b") as fh:  # in place: same inode, same size, only the mtime moves
        fh.write(bytes(data))
    with caplog.at_level(logging.WARNING):
        again = api.parse(small_pdf, out_dir=out, **FAST)
    assert not _served(again, first)
    assert "line_df.parquet checksum mismatch" in caplog.text  # as a first load reports it


def test_new_version_and_changed_pdf_are_loaded_again(small_pdf, tmp_path):
    out = tmp_path / "art"
    first = _cached(small_pdf, out)
    assert store.save_sidecar(first, "extra", b"x", "k", built_from=("line_df",))  # a new version
    second = api.parse(small_pdf, out_dir=out, **FAST)
    assert not _served(second, first)
    _age(store.live_version(_entry(out)))
    third = api.parse(small_pdf, out_dir=out, **FAST)
    assert _served(api.parse(small_pdf, out_dir=out, **FAST), third)
    os.utime(small_pdf)  # the PDF touched: read and hashed again
    assert not _served(api.parse(small_pdf, out_dir=out, **FAST), third)


def test_recently_written_files_are_compared_by_content(small_pdf, tmp_path, caplog):
    out = tmp_path / "art"
    api.parse(small_pdf, out_dir=out, **FAST)
    _age(small_pdf)  # (a PDF itself written just before is never kept)
    first = api.parse(small_pdf, out_dir=out, **FAST)  # its cache files were written just now
    assert first.manifest["cache_hit"] is True
    assert _served(api.parse(small_pdf, out_dir=out, **FAST), first)
    target = store.live_version(_entry(out)) / "page_df.parquet"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF
    st = target.stat()
    with open(target, "r+b") as fh:
        fh.write(bytes(data))
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # even with its mtime put back
    with caplog.at_level(logging.WARNING):
        again = api.parse(small_pdf, out_dir=out, **FAST)
    assert not _served(again, first)
    assert "page_df.parquet checksum mismatch" in caplog.text


def test_memo_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(warm, "MAX_DOCS", 2)
    out = tmp_path / "art"
    pdfs = []
    for i in range(3):
        f = tmp_path / f"d{i}.pdf"
        f.write_bytes(hostile.text_pdf(2 + i))
        pdfs.append(f)
    kept = [_cached(f, out) for f in pdfs]
    assert len(warm._MEMO) == 2
    assert not _served(api.parse(pdfs[0], out_dir=out, **FAST), kept[0])  # the oldest went first
    assert _served(api.parse(pdfs[2], out_dir=out, **FAST), kept[2])


def test_callers_changes_stay_their_own(small_pdf, tmp_path, monkeypatch):
    """A caller that narrows a frame, edits the manifest or has learned references appended (even
    when the cache write fails) changes its own tables, not what the next parse() gets."""
    out = tmp_path / "art"
    first = _cached(small_pdf, out)
    n_lines, n_refs = len(first.line_df), len(first.cross_ref_df)
    first.line_df = first.line_df[first.line_df["page"] == 1]
    first.manifest["cache_hit"] = "edited"
    first.manifest["checksums"].clear()
    assert len(first.line_df) < n_lines
    monkeypatch.setattr(store, "_republish", lambda *a, **k: None)  # the write does not happen
    row = {"origin_page": 1, "origin_line": 0, "anchor_text": "Section 9", "source": "regex"}
    store.append_cross_refs(first, pd.DataFrame([row]))
    assert len(first.cross_ref_df) == n_refs + 1
    again = api.parse(small_pdf, out_dir=out, **FAST)
    assert len(again.line_df) == n_lines and len(again.cross_ref_df) == n_refs
    assert again.manifest["cache_hit"] is True and again.manifest["checksums"]


def test_served_copies_share_the_retrieval_index(small_pdf, tmp_path, monkeypatch):
    from docintel.retrieval import bm25

    out = tmp_path / "art"
    first = _cached(small_pdf, out)
    built = []
    real = bm25.build_index
    monkeypatch.setattr(bm25, "build_index", lambda t: built.append(1) or real(t))
    index = bm25.page_index(first)
    assert bm25.page_index(api.parse(small_pdf, out_dir=out, **FAST)) is index
    assert len(built) == 1


def test_pdf_written_just_before_it_is_read_is_compared_by_content(tmp_path):
    """A same-size rewrite of the PDF within its mtime's tick (FAT, SMB/NFS, HFS+: put back here
    with os.utime) must not be served the old document's tables; unchanged, it is served."""
    pdf, out = tmp_path / "doc.pdf", tmp_path / "art"
    before = hostile.text_pdf(2, deflate=False)
    after = before.replace(b"quick brown", b"quick green")
    assert len(before) == len(after) and before != after
    pdf.write_bytes(before)
    api.parse(pdf, out_dir=out, **FAST)
    first = api.parse(pdf, out_dir=out, **FAST)  # a cache hit, the PDF written under RACY_NS ago
    assert first.manifest["cache_hit"] is True and "quick brown" in " ".join(first.line_df["text"])
    assert _served(api.parse(pdf, out_dir=out, **FAST), first)
    st = pdf.stat()
    with open(pdf, "r+b") as fh:
        fh.write(after)
    os.utime(pdf, ns=(st.st_atime_ns, st.st_mtime_ns))
    again = api.parse(pdf, out_dir=out, **FAST)
    assert "quick green" in " ".join(again.line_df["text"])
    # an old PDF's stat is trusted: kept and served
    _age(pdf)
    kept = api.parse(pdf, out_dir=out, **FAST)
    assert _served(api.parse(pdf, out_dir=out, **FAST), kept)


def test_every_parse_argument_is_in_the_memo_key(small_pdf, tmp_path, monkeypatch):
    """Each argument of api.parse (a limit too) that can change its tables keys the memo apart, or
    bypasses it: a parameter added to parse cannot be forgotten in the key."""
    import inspect

    from docintel import parsing

    class Looked(Exception):
        pass

    def look(key, path):
        raise Looked(key)

    monkeypatch.setattr(warm, "lookup", look)
    out = tmp_path / "art"

    def key(**kw):
        try:
            api.parse(small_pdf, out_dir=out, **kw)
        except Looked as exc:
            return exc.args[0]
        raise AssertionError(f"the memo was not consulted for {kw}")

    base = key()
    params = inspect.signature(api.parse).parameters
    checked = []
    for name, param in params.items():
        if name in ("path", "out_dir", "progress") or param.kind is param.VAR_KEYWORD:
            continue
        other = object() if param.default is None else f"other-{param.default!r}"
        if name in ("use_cache", "docling_json"):  # no memo at all for these
            with monkeypatch.context() as m:
                m.setattr(parsing, "parse_document", lambda *a, **k: "parsed")
                value = False if name == "use_cache" else "x.json"
                assert api.parse(small_pdf, out_dir=out, **{name: value}) == "parsed"
            continue
        assert key(**{name: other}) != base, name
        checked.append(name)
    assert key(max_pages=7) != base and key(max_bytes=10**6) != base  # **limits, one by one
    assert {"layout", "ocr", "parser", "password", "eager_refs"} <= set(checked)
