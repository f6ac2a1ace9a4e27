"""The Arrow IPC copies of the cached tables: read back as the very frames the Parquet gives,
used only when sound, never in place of the Parquet's own checks."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from docintel.api import ask, parse
from docintel.parsing import arrow_copies, store
from docintel.schema.tables import TABLES

from ._cross_refs import learned_frame
from .conftest import PDFS

PDF = PDFS / "nist_sp800-106.pdf"
FAST = {"layout": "never", "ocr": "never"}


def _entry(tables) -> Path:
    return Path(tables.manifest["cache_dir"])


def _no_parquet_decoding(monkeypatch) -> None:
    monkeypatch.setattr(
        arrow_copies, "parquet_table", lambda data: pytest.fail("a table was decoded from Parquet")
    )


def _assert_same_frames(a, b) -> None:
    for name in TABLES:
        x, y = a.table(name), b.table(name)
        pd.testing.assert_frame_equal(x, y, check_exact=True)
        assert list(x.dtypes) == list(y.dtypes) and x.index.equals(y.index)


def test_copies_give_the_parquet_frames_and_are_used(artifacts, monkeypatch):
    tables = parse(PDF, out_dir=artifacts, **FAST)
    assert store.missing_arrow_copies(tables) == list(TABLES)  # a fresh parse has none
    from_parquet, problem = store.load_checked(_entry(tables))
    assert problem is None
    assert store.save_arrow_copies(tables)
    assert store.missing_arrow_copies(tables) == []
    assert not store.save_arrow_copies(tables)  # nothing missing: no new version

    with monkeypatch.context() as m:
        _no_parquet_decoding(m)
        from_copies, problem = store.load_checked(_entry(tables))
    assert problem is None
    _assert_same_frames(from_copies, from_parquet)
    assert store.missing_arrow_copies(from_copies) == []


def test_an_ask_stores_them_once(artifacts, monkeypatch):
    ask(PDF, "How is the rv_length_indicator computed?", backend="offline", out_dir=artifacts, **FAST)
    again = parse(PDF, out_dir=artifacts, **FAST)
    assert store.missing_arrow_copies(again) == []
    monkeypatch.setattr(store, "save_arrow_copies", lambda t: pytest.fail("stored again"))
    ask(PDF, "How is the rv_length_indicator computed?", backend="offline", out_dir=artifacts, **FAST)


def test_a_damaged_copy_is_not_used(artifacts):
    tables = parse(PDF, out_dir=artifacts, **FAST)
    reference, _ = store.load_checked(_entry(tables))
    store.save_arrow_copies(tables)
    live = _entry(tables).resolve()
    copy = live / f"{arrow_copies.sidecar('line_df')}.arrow"
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 0x01
    copy.write_bytes(bytes(data))
    again, problem = store.load_checked(_entry(tables))
    assert problem is None  # the Parquet, decoded as before
    _assert_same_frames(again, reference)


def test_a_damaged_parquet_is_still_a_miss_with_copies(artifacts):
    tables = parse(PDF, out_dir=artifacts, **FAST)
    store.save_arrow_copies(tables)
    path = _entry(tables).resolve() / "page_df.parquet"
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0x01
    path.write_bytes(bytes(data))
    again, problem = store.load_checked(_entry(tables))
    assert again is None and "page_df.parquet checksum mismatch" in problem


def test_appended_references_rewrite_the_copy_in_the_same_version(artifacts, monkeypatch):
    """Learned references appended to ``cross_ref_df`` write its copy with the new Parquet (one
    version), so the next load decodes no Parquet and the next ask stores nothing."""
    tables = parse(PDF, out_dir=artifacts, **FAST)
    store.save_arrow_copies(tables)
    store.append_cross_refs(tables, learned_frame(tables))
    assert store.missing_arrow_copies(tables) == []
    live = _entry(tables).resolve()
    decoded = arrow_copies.parquet_table((live / "cross_ref_df.parquet").read_bytes()).to_pandas()
    with monkeypatch.context() as m:
        _no_parquet_decoding(m)
        again, problem = store.load_checked(_entry(tables))
    assert problem is None and (again.cross_ref_df["anchor_text"] == "Section 9.9").sum() == 1
    pd.testing.assert_frame_equal(again.cross_ref_df, decoded, check_exact=True)
    assert store.missing_arrow_copies(again) == []


def test_a_copy_of_other_parquet_bytes_is_rebuilt(artifacts, monkeypatch):
    """A table rewritten without its copy (an entry an older docintel appended to) has a stale
    copy: it is decoded from Parquet and the copy is written again from the new bytes."""
    tables = parse(PDF, out_dir=artifacts, **FAST)
    store.save_arrow_copies(tables)
    with monkeypatch.context() as m:
        m.setattr(store, "_write_arrow_copy", lambda *a: None)
        store.append_cross_refs(tables, learned_frame(tables))
    tables.manifest["sidecars"] = {}  # what the older append left in memory: nothing current
    fresh, _ = store.load_checked(_entry(tables))
    assert store.missing_arrow_copies(fresh) == ["cross_ref_df"]
    assert (fresh.cross_ref_df["anchor_text"] == "Section 9.9").sum() == 1
    assert store.save_arrow_copies(fresh)
    with monkeypatch.context() as m:
        _no_parquet_decoding(m)
        again, problem = store.load_checked(_entry(tables))
    assert problem is None
    _assert_same_frames(again, fresh)


@pytest.mark.parametrize("cut", ["copy", "parquet"])
@pytest.mark.parametrize("name", ["line_df", "cross_ref_df"])
def test_a_truncated_file_is_detected(artifacts, name, cut):
    """Both files are still checked on every load: a copy cut short falls back to the Parquet
    (the same frames), a Parquet cut short is a miss although its copy is sound."""
    tables = parse(PDF, out_dir=artifacts, **FAST)
    reference, _ = store.load_checked(_entry(tables))
    store.save_arrow_copies(tables)
    live = _entry(tables).resolve()
    path = live / (f"{arrow_copies.sidecar(name)}.arrow" if cut == "copy" else f"{name}.parquet")
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    again, problem = store.load_checked(_entry(tables))
    if cut == "copy":
        assert problem is None
        _assert_same_frames(again, reference)
    else:
        assert again is None and f"{name}.parquet checksum mismatch" in problem
