"""The CLI reads as a person expects: `tables` readable by default, one meaning per flag."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pymupdf
import pytest

from docintel.cli import main
from docintel.cli.show import ELLIPSIS, fit_width, render_text
from docintel.schema.tables import TABLES

QUIET = ["--layout", "never", "--ocr", "never"]


@pytest.fixture(scope="module")
def small_pdf(tmp_path_factory):
    path = tmp_path_factory.mktemp("pdf") / "small.pdf"
    doc = pymupdf.open()
    for i in range(3):
        page = doc.new_page()
        for j in range(12):
            page.insert_text((72, 72 + 14 * j), f"Line {j + 1} of page {i + 1} " + "word " * (j % 5))
    doc.save(path)
    return path


def test_integer_columns_print_as_integers_even_with_missing_values():
    df = pd.DataFrame({"doc_id": ["d", "d"], "toc_id": ["1", "2"], "page_start": [16.0, None]})
    text, hidden = render_text(df, spec=TABLES["toc_df"], limit=0, width=200)
    assert "16" in text and "16.0" not in text and "nan" not in text.lower()
    assert hidden == 0


def test_limit_counts_the_rows_left_out_and_zero_means_all():
    df = pd.DataFrame({"page": list(range(1, 31)), "text": ["x"] * 30})
    assert render_text(df, limit=10, width=80)[1] == 20
    text, hidden = render_text(df, limit=0, width=80)
    assert hidden == 0 and len(text.splitlines()) == 31


def test_long_text_is_cut_with_an_ellipsis_to_fit_the_width():
    df = pd.DataFrame({"page": [1, 2], "text": ["a" * 300, "short"], "font": ["Times-Roman" * 5, "x"]})
    fitted = fit_width(df, 80)
    assert fitted["text"][0].endswith(ELLIPSIS) and fitted["text"][1] == "short"
    text, _ = render_text(df, limit=0, width=80)
    assert max(len(line) for line in text.splitlines()) <= 80


def test_unknown_table_is_one_line_naming_the_valid_ones(tmp_path, capsys):
    assert main(["tables", str(tmp_path / "never-parsed.pdf"), "line_dfx"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("Error: unknown table 'line_dfx'")
    assert all(name in err[0] for name in TABLES)


def test_negative_limit_is_refused(tmp_path, capsys):
    assert main(["tables", str(tmp_path / "x.pdf"), "line_df", "--limit", "-1"]) == 1
    assert "--limit" in capsys.readouterr().err


def test_tables_says_how_many_rows_it_left_out(small_pdf, tmp_path, capsys):
    art = str(tmp_path / "art")
    assert main(["tables", str(small_pdf), "line_df", "--limit", "5", "--artifacts", art, *QUIET]) == 0
    out = capsys.readouterr().out
    assert "== line_df (36 rows" in out and "... 31 more rows (--limit 0 for all)" in out
    assert main(["tables", str(small_pdf), "line_df", "--limit", "0", "--artifacts", art, *QUIET]) == 0
    out = capsys.readouterr().out
    assert "--limit 0 for all" not in out and "Line 12" in out


def test_old_o_flag_of_parse_still_means_the_artifacts_folder_with_a_warning(small_pdf, tmp_path, capsys):
    art = tmp_path / "old"
    assert main(["parse", str(small_pdf), "-o", str(art), *QUIET]) == 0
    assert "deprecated; use --artifacts" in capsys.readouterr().err
    assert any(art.rglob("*.parquet"))


def test_ask_o_is_the_answer_file_and_a_folder_is_refused(small_pdf, tmp_path, capsys):
    art = str(tmp_path / "art")
    assert main(["ask", str(small_pdf), "What is on page 2?", "-o", str(tmp_path), "--artifacts", art]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is a folder" in err[0] and "--artifacts" in err[0]
    out = tmp_path / "answer.json"
    code = main(["ask", str(small_pdf), "What is on page 2?", "-o", str(out), "--artifacts", art, *QUIET])
    assert code == 0 and out.is_file()
    assert "answer" in json.loads(out.read_text())


def test_eval_without_an_evaluation_set_is_one_line_naming_it(tmp_path, capsys):
    assert main(["eval", str(tmp_path / "questions.jsonl"), "--pdf-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("Error: ") and "evaluation set" in err[0]
    q = tmp_path / "q.jsonl"
    q.write_text(json.dumps({"id": "a", "pdf": "absent.pdf", "question": "What?"}) + "\n")
    assert main(["eval", str(q), "--pdf-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "absent.pdf" in err[0]


def test_export_structure_without_the_evaluation_set_is_one_error_line(tmp_path):
    script = Path(__file__).resolve().parents[1] / "scripts" / "export_structure.py"
    env = {**os.environ, "DOCINTEL_SHARED": str(tmp_path / "none")}
    for extra in ([], ["--score"]):
        proc = subprocess.run(
            [sys.executable, str(script), *extra, "-o", str(tmp_path / "out")],
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )  # fmt: skip
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 1 and len(lines) == 1, proc.stderr
        assert lines[0].startswith("Error: ") and "evaluation set" in lines[0]


def test_a_cut_download_is_reported_as_truncated_not_as_empty(tmp_path, nist_pdf, capsys):
    f = tmp_path / "cut.pdf"
    f.write_bytes(nist_pdf.read_bytes()[:2000])
    assert main(["parse", str(f), "--artifacts", str(tmp_path / "o"), *QUIET]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "damaged or truncated" in err[0], err
