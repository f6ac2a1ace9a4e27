"""Hostile and damaged PDFs: one clear error in bounded time, or a parse that flags what it lost."""

from __future__ import annotations

import pytest

from docintel.cli import main
from tests.fuzz import hostile


@pytest.fixture
def tight_budget(monkeypatch):
    # small budgets so the bombs are stopped quickly; an honest 2-page file needs far less
    monkeypatch.setenv("DOCINTEL_PAGE_TIMEOUT", "8")
    monkeypatch.setenv("DOCINTEL_PARSE_TIMEOUT", "60")
    monkeypatch.setenv("DOCINTEL_MAX_MEMORY_MB", "1024")


def _cli(tmp_path, capsys, name: str, data: bytes) -> tuple[int, list[str], str]:
    f = tmp_path / f"{name}.pdf"
    f.write_bytes(data)
    code = main(
        ["parse", str(f), "--artifacts", str(tmp_path / "out"), "--layout", "never", "--ocr", "never"]
    )
    cap = capsys.readouterr()
    return code, [ln for ln in cap.err.splitlines() if ln.strip() and "page " not in ln[:12]], cap.out


@pytest.mark.parametrize("name", ["bad_page_count", "encrypted"])
def test_hostile_file_is_one_clear_error(tmp_path, capsys, tight_budget, name):
    code, err, out = _cli(tmp_path, capsys, name, hostile.HOSTILE[name][0]())
    assert code == 1 and out == ""
    assert len(err) == 1 and err[0].startswith("Error: ") and "unexpected" not in err[0], err
    assert not (tmp_path / "out").exists()  # a failed first parse leaves no (empty) folder


def test_bomb_stopped_by_the_time_budget_names_it(tmp_path, capsys, tight_budget):
    code, err, _ = _cli(tmp_path, capsys, "bomb", hostile.xobject_bomb())
    assert code == 1 and ("time budget" in err[0] or "memory" in err[0]), err


def test_content_bomb_ends_within_the_budget(tmp_path, capsys, tight_budget):
    code, err, _ = _cli(tmp_path, capsys, "content_bomb", hostile.content_bomb())
    if code == 1:  # stopped by its budget: one clear line
        assert len(err) == 1 and err[0].startswith("Error: ") and "unexpected" not in err[0], err
    else:
        assert code == 0


def test_memory_budget_stops_a_bomb(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DOCINTEL_PAGE_TIMEOUT", "120")
    monkeypatch.setenv("DOCINTEL_MAX_MEMORY_MB", "200")
    code, err, _ = _cli(tmp_path, capsys, "bomb", hostile.xobject_bomb())
    assert code == 1 and len(err) == 1 and "memory" in err[0], err


@pytest.mark.parametrize("name", ["deep_outline", "junk_prefix"])
def test_odd_but_valid_file_parses(tmp_path, capsys, tight_budget, name):
    code, err, out = _cli(tmp_path, capsys, name, hostile.HOSTILE[name][0]())
    assert code == 0, err
    assert "2 pages" in out


def test_deep_outline_is_read_whole(tmp_path, tight_budget):
    from docintel.parsing import parse_document

    f = tmp_path / "deep.pdf"
    f.write_bytes(hostile.deep_outline(1000))
    t = parse_document(f, out_dir=None, layout="never", ocr="never")
    assert (t.toc_df["source"] == "outline").sum() >= 1000


@pytest.mark.parametrize(
    "name, page", [("no_contents", 2), ("wrong_filter", 2), ("image_filter", 2), ("halved_streams", 1)]
)
def test_damaged_page_is_flagged_never_silently_empty(tmp_path, tight_budget, name, page):
    from docintel.parsing import parse_document

    f = tmp_path / f"{name}.pdf"
    f.write_bytes(hostile.HOSTILE[name][0]())
    t = parse_document(f, out_dir=tmp_path / "out", layout="never", ocr="never")
    row = t.page_df.set_index("page").loc[page]
    assert row["n_lines"] == 0 and isinstance(row["error"], str) and row["error"]
    assert page in (t.manifest["failed_pages"] | t.manifest["damaged_pages"])
    honest = parse_document(_write(tmp_path, hostile.text_pdf(2)), out_dir=None, layout="never", ocr="never")
    assert honest.page_df["error"].isna().all()  # the same document undamaged has no flag


def _write(tmp_path, data: bytes):
    f = tmp_path / "honest.pdf"
    f.write_bytes(data)
    return f


def test_damaged_bytes_quoted_by_mupdf_are_recorded_not_a_crash(tmp_path, tight_budget):
    """Fuzz finding: MuPDF quotes the damaged bytes, which arrived as lone surrogates and made
    page_df unwritable (UnicodeEncodeError)."""
    from docintel.parsing import parse_document

    f = tmp_path / "kw.pdf"
    f.write_bytes(hostile.bad_keyword())
    t = parse_document(f, out_dir=tmp_path / "out", layout="never", ocr="never")
    err = t.page_df.set_index("page").loc[1, "error"]
    assert "unknown keyword" in err and 1 in t.manifest["damaged_pages"]
    assert t.page_df.set_index("page").loc[1, "n_lines"] > 0  # read as far as MuPDF could
