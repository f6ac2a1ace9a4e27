"""`docintel sql --corpus STORE --as USER`: one user's slice of an embedded store, nothing more."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from docintel import sql
from docintel.cli import main
from docintel.corpus import Corpus
from docintel.errors import UsageError
from docintel.schema.tables import TABLES
from tests.corpus_fixtures import DRAFT_SECRETS, make_corpus

CORPUS_TABLES = ("documents", "access", "members", "blocks")
DOC_TABLES = tuple(TABLES)
PUBLIC = {"sp800-901.pdf", "sp800-902.pdf"}
DRAFT = "sp800-903-draft.pdf"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """Three documents in two groups: 'analyst' reads the two public ones, 'drafter' the draft only."""
    root = tmp_path_factory.mktemp("sqlcorpus")
    folder = make_corpus(root / "in")
    loc = str(root / "store")
    Corpus.ingest(
        loc, [folder], parse_options={"layout": "never", "ocr": "never"}, groups_file=folder / "groups.json"
    )
    corpus = Corpus(loc)
    corpus.member("drafter", "reviewers")
    docs = corpus.store.table("documents").set_index("file")
    corpus.close()
    return loc, docs


@pytest.fixture
def analyst(store):
    con = sql.corpus_connection(Corpus(store[0]), "analyst")
    yield con
    con.close()


def _ids(docs, files) -> set[str]:
    return {docs.loc[f, "doc_id"] for f in files}


@pytest.mark.parametrize(("user", "files"), [("analyst", PUBLIC), ("drafter", {DRAFT})])
def test_every_table_holds_only_the_users_documents(store, user, files):
    loc, docs = store
    con = sql.corpus_connection(Corpus(loc), user)
    try:
        for name in CORPUS_TABLES + DOC_TABLES:
            got = sql.run_query(con, f"SELECT * FROM {name}", limit=0).frame
            if name == "members":
                assert set(got["usr"]) == {user}, name
                continue
            assert set(got["doc_id"]) <= _ids(docs, files), name
            if name in ("documents", "access", "blocks", "line_df", "page_df"):
                assert set(got["doc_id"]) == _ids(docs, files), name
        assert set(sql.run_query(con, "SELECT file FROM documents").frame["file"]) == files
        text = " ".join(sql.run_query(con, "SELECT text FROM line_df", limit=0).frame["text"])
        secrets_seen = [s for s in DRAFT_SECRETS if s in text]
        assert secrets_seen == (DRAFT_SECRETS if DRAFT in files else [])
    finally:
        con.close()


def test_corpus_tables_are_in_memory_copies_not_views(analyst):
    kinds = dict(analyst.execute("SELECT table_name, table_type FROM information_schema.tables").fetchall())
    assert all(kinds[n] == "BASE TABLE" for n in CORPUS_TABLES)
    assert all(kinds[n] == "VIEW" for n in DOC_TABLES)


def _other_files(store) -> dict[str, Path]:
    loc, docs = store
    gen = (Path(loc) / "CURRENT").read_text().strip()
    return {
        "draft line_df": Path(docs.loc[DRAFT, "cache_dir"]) / "line_df.parquet",
        "corpus blocks": Path(loc) / "tables" / gen / "blocks.parquet",
        "corpus documents": Path(loc) / "tables" / gen / "documents.parquet",
    }


@pytest.mark.parametrize("which", ["draft line_df", "corpus blocks", "corpus documents"])
def test_other_users_files_cannot_be_read(store, analyst, which):
    f = _other_files(store)[which]
    assert f.is_file()  # the file is there: the guard, not its absence, refuses it
    for query in (f"SELECT * FROM read_parquet('{f}')", f"SELECT * FROM '{f}'"):
        with pytest.raises(UsageError, match="Permission Error"):
            sql.run_query(analyst, query)


def test_the_users_own_files_are_not_browsable(store, analyst):
    cache = store[1].loc["sp800-901.pdf", "cache_dir"]
    for query in (
        f"SELECT * FROM read_text('{cache}/manifest.json')",
        f"SELECT * FROM glob('{cache}/*')",
        f"SELECT * FROM glob('{store[0]}/**')",
    ):
        with pytest.raises(UsageError, match="Permission Error"):
            sql.run_query(analyst, query)


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ("SELECT * FROM read_csv('/etc/passwd')", "Permission Error"),
        ("COPY line_df TO '/tmp/out.csv'", "not COPY"),
        ("ATTACH '/tmp/other.duckdb'", "not ATTACH"),
        ("SET lock_configuration = false", "not SET"),
        ("INSTALL httpfs", "not LOAD"),
        ("LOAD httpfs", "not LOAD"),
        ("WITH x AS (SELECT 1) INSERT INTO blocks SELECT * FROM blocks", "not INSERT"),
        ("SELECT 1; SELECT 2", "exactly one SELECT statement, not 2"),
    ],
)
def test_escapes_are_refused(analyst, query, why):
    with pytest.raises(UsageError, match=why):
        sql.run_query(analyst, query)


def test_the_lock_holds_when_the_statement_check_is_bypassed(store, analyst, tmp_path):
    target = tmp_path / "out.csv"
    with pytest.raises(duckdb.Error, match="Permission Error"):
        analyst.execute(f"COPY blocks TO '{target}'")
    assert not target.exists()
    with pytest.raises(duckdb.Error, match="lock"):
        analyst.execute("SET lock_configuration = false")
    with pytest.raises(duckdb.Error):
        analyst.execute(f"ATTACH '{tmp_path / 'x.duckdb'}'")
    with pytest.raises(duckdb.Error):
        analyst.execute("LOAD httpfs")
    with pytest.raises(duckdb.Error, match="Permission Error"):
        analyst.execute(f"SELECT * FROM read_parquet('{_other_files(store)['draft line_df']}')")


@pytest.mark.parametrize("user", ["stranger", None])
def test_an_unknown_user_sees_the_schema_and_no_rows(store, analyst, user):
    con = sql.corpus_connection(Corpus(store[0]), user)
    try:
        for name in CORPUS_TABLES + DOC_TABLES:
            got = sql.run_query(con, f"SELECT * FROM {name}").frame
            assert got.empty, name
            want = sql.run_query(analyst, f"SELECT * FROM {name} LIMIT 0").frame
            assert list(got.columns) == list(want.columns), name
        with pytest.raises(UsageError, match="Permission Error"):
            sql.run_query(con, f"SELECT * FROM read_parquet('{_other_files(store)['draft line_df']}')")
    finally:
        con.close()


def test_cli_sql_corpus(store, capsys, monkeypatch, tmp_path):
    loc, _ = store
    q = "SELECT file FROM documents ORDER BY file"
    assert main(["sql", "--corpus", loc, "--as", "analyst", q, "--format", "csv"]) == 0
    assert capsys.readouterr().out.split() == ["file", *sorted(PUBLIC)]
    monkeypatch.setenv("DOCINTEL_USER", "drafter")
    assert main(["sql", "--corpus", loc, "SELECT count(*) AS n FROM blocks WHERE doc_id IS NULL"]) == 0
    assert main(["sql", "--corpus", loc, q, "--format", "csv"]) == 0
    assert capsys.readouterr().out.split()[-1] == DRAFT
    capsys.readouterr()
    for argv, why in (
        (["sql", "x.pdf", q, "--corpus", loc], "Error: give either a PDF or --corpus"),
        (["sql", q], "Error: give either a PDF or --corpus"),
        (
            ["sql", "--corpus", "postgresql://nobody@127.0.0.1:1/x", q],
            "Error: cannot connect to the corpus database",
        ),
        (["sql", "--corpus", str(tmp_path / "nothing"), q], "not a corpus store"),
        (["sql", "--corpus", loc, "SELECT * FROM read_csv('/etc/passwd')"], "Permission Error"),
    ):
        assert main(argv) == 1, argv
        err = capsys.readouterr().err
        assert err.startswith(why if why.startswith("Error") else "Error:") and why in err, argv
        assert len(err.strip().splitlines()) == 1, err
