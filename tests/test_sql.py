"""`docintel sql`: one read-only SELECT over a document's views, and nothing else reachable."""

from __future__ import annotations

import json

import pytest

from docintel.cli import main
from docintel.errors import DocumentError, UsageError
from docintel.parsing import parse_document

from .analyst_fixture import make_report

duckdb = pytest.importorskip("duckdb")
from docintel import sql  # noqa: E402


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("sql")
    pdf = make_report(root / "report.pdf")
    return pdf, parse_document(pdf, out_dir=root / "artifacts")


@pytest.fixture
def con(report):
    c = sql.guarded_connection(sql.document_views(report[1]))
    yield c
    c.close()


def test_every_table_is_a_view(report):
    _, tables = report
    for name, df in tables.tables().items():
        res = sql.query_document(tables, f"SELECT count(*) AS n FROM {name}")
        assert int(res.frame["n"][0]) == len(df), name


def test_result_keeps_integer_types_and_caps_rows(report):
    _, tables = report
    res = sql.query_document(tables, "SELECT page, line, text FROM line_df ORDER BY page, line", limit=3)
    assert res.truncated and len(res.frame) == 3
    assert str(res.frame["page"].dtype) == "int32"
    assert res.frame["line"].tolist() == [1, 2, 3]
    full = sql.query_document(tables, "SELECT * FROM line_df", limit=0)
    assert not full.truncated and len(full.frame) == len(tables.line_df)


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM read_text('/etc/passwd')",
        "SELECT * FROM glob('/etc/*')",
        "SELECT * FROM read_parquet('/tmp/*/*.parquet')",
    ],
)
def test_file_functions_cannot_reach_other_files(con, query):
    with pytest.raises(UsageError, match="Permission Error"):
        sql.run_query(con, query)


def test_the_documents_own_folder_is_not_browsable(con, report):
    cache = report[1].manifest["cache_dir"]
    for query in (f"SELECT * FROM read_text('{cache}/manifest.json')", f"SELECT * FROM glob('{cache}/*')"):
        with pytest.raises(UsageError, match="Permission Error"):
            sql.run_query(con, query)


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ("COPY line_df TO '/tmp/out.csv'", "not COPY"),
        ("EXPORT DATABASE '/tmp/exported'", "not EXPORT"),
        ("ATTACH '/tmp/other.duckdb'", "not ATTACH"),
        ("SET lock_configuration = false", "not SET"),
        ("SET enable_external_access = true", "not SET"),
        ("INSTALL httpfs", "not LOAD"),
        ("LOAD httpfs", "not LOAD"),
        ("WITH x AS (SELECT 1) INSERT INTO line_df SELECT * FROM line_df", "not INSERT"),
        ("CREATE TABLE t AS SELECT 1", "not CREATE"),
        ("SELECT 1; SELECT 2", "exactly one SELECT statement, not 2"),
        ("SELECT 1; COPY line_df TO '/tmp/out.csv'", "exactly one"),
        ("SELEC 1", "does not parse"),
    ],
)
def test_only_one_select_statement_is_accepted(con, query, why):
    with pytest.raises(UsageError, match=why):
        sql.run_query(con, query)


def test_the_lock_holds_even_when_the_statement_check_is_bypassed(con, tmp_path):
    """Defence in depth: the connection itself refuses what the SELECT check already refuses."""
    target = tmp_path / "out.csv"
    with pytest.raises(duckdb.Error, match="Permission Error"):
        con.execute(f"COPY line_df TO '{target}'")
    assert not target.exists()
    with pytest.raises(duckdb.Error, match="lock"):
        con.execute("SET lock_configuration = false")
    with pytest.raises(duckdb.Error):
        con.execute("SET enable_external_access = true")
    with pytest.raises(duckdb.Error):
        con.execute("LOAD httpfs")
    settings = dict(con.execute("SELECT name, value FROM duckdb_settings()").fetchall())
    assert settings["enable_external_access"] == "false"
    assert settings["autoinstall_known_extensions"] == "false"
    assert settings["autoload_known_extensions"] == "false"
    assert settings["lock_configuration"] == "true"


def test_a_runaway_query_is_interrupted(con):
    with pytest.raises(UsageError, match="stopped after 0.5 s"):
        sql.run_query(con, "SELECT count(*) FROM range(1000000000000) a, range(1000) b", timeout=0.5)
    assert sql.run_query(con, "SELECT 42 AS x").frame["x"][0] == 42  # the connection is still usable


def test_the_guard_takes_any_mapping_of_views(report, tmp_path):
    """The corpus package reuses the guard with its own view -> files mapping."""
    cache = report[1].manifest["cache_dir"]
    con = sql.guarded_connection({"lines": [f"{cache}/line_df.parquet", f"{cache}/line_df.parquet"]})
    try:
        n = sql.run_query(con, "SELECT count(*) AS n FROM lines").frame["n"][0]
        assert n == 2 * len(report[1].line_df)
        with pytest.raises(UsageError, match="toc_df"):
            sql.run_query(con, "SELECT * FROM toc_df")  # only the views it was given
    finally:
        con.close()
    with pytest.raises(UsageError, match="identifier"):
        sql.guarded_connection({"bad name; DROP": f"{cache}/line_df.parquet"})
    with pytest.raises(DocumentError, match="no such Parquet file"):
        sql.guarded_connection({"lines": tmp_path / "missing.parquet"})


def test_cli_sql_formats_and_errors(report, tmp_path, capsys):
    pdf, _ = report
    art = str(tmp_path / "art")
    q = "SELECT toc_id, title, level FROM toc_df ORDER BY page_start"
    assert main(["sql", str(pdf), q, "--artifacts", art]) == 0
    out = capsys.readouterr().out
    assert "Introduction" in out and out.rstrip().endswith("(3 rows)")
    assert main(["sql", str(pdf), q, "--format", "json", "--artifacts", art]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows[0] == {"toc_id": "1", "title": "Introduction", "level": 1}
    assert main(["sql", str(pdf), q, "--format", "csv", "--limit", "1", "--artifacts", art]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["toc_id,title,level", "1,Introduction,1"]
    assert "more rows left out" in captured.err
    assert main(["sql", str(pdf), "DROP VIEW line_df", "--artifacts", art]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: only SELECT") and len(err.strip().splitlines()) == 1
