"""The escape list of issue 15 as regression tests, on the embedded store and on PostgreSQL.

Each escape must be refused (a UsageError, one line), write nothing, read nothing outside the
user's documents; a runaway query is stopped within its limit.
"""

from __future__ import annotations

import pytest

from docintel import sql
from docintel.cli import main
from docintel.corpus import Corpus
from docintel.errors import UsageError
from tests.corpus_fixtures import DRAFT_SECRETS, make_corpus

OPTS = {"layout": "never", "ocr": "never"}

#: Refused on both stores (the DuckDB and the PostgreSQL spelling where they differ).
BOTH = [
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM glob('/etc/*')",
    "COPY blocks TO '/tmp/docintel-escape.csv'",
    "COPY (SELECT * FROM blocks) TO '/tmp/docintel-escape.csv'",
    "EXPORT DATABASE '/tmp/docintel-escape-db'",
    "ATTACH '/tmp/docintel-escape.duckdb' AS x",
    "SET lock_configuration = false",
    "SET enable_external_access = true",
    "WITH x AS (DELETE FROM blocks RETURNING *) SELECT * FROM x",
    "WITH x AS (SELECT 1) INSERT INTO members VALUES ('analyst', 'reviewers')",
    "SELECT 1; DELETE FROM blocks",
    "INSTALL httpfs",
    "LOAD httpfs",
]
POSTGRES_ONLY = [
    "SELECT pg_read_file('/etc/passwd')",
    "SELECT pg_catalog.pg_read_file('/etc/passwd')",
    "COPY blocks FROM PROGRAM 'id'",
    "SELECT lo_import('/etc/passwd')",
    "SELECT * FROM dblink('dbname=postgres', 'SELECT 1')",
    "SELECT set_config('docintel.user', 'reviewer', false), count(*) FROM blocks",
    "SELECT set_config('role', 'postgres', false)",
    "SELECT * FROM pg_catalog.pg_authid",
    "SELECT * FROM meta",
    "SELECT * FROM pg_settings",
]
RUNAWAY = {
    "embedded": "SELECT sum(i * i % 7) FROM range(100000000000) t(i)",
    "postgres": "SELECT sum(i % 7) FROM generate_series(1, 100000000000) i",
}


@pytest.fixture(scope="module", params=["embedded", "postgres"])
def store(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"guard-{request.param}")
    folder = make_corpus(root / "in")
    if request.param == "embedded":
        loc, docs = str(root / "store"), None
    else:
        loc, docs = request.getfixturevalue("pg").create_db("guard"), root / "docs"
    Corpus.ingest(loc, [folder], parse_options=OPTS, groups_file=folder / "groups.json",
                  **({"docs_dir": docs} if docs else {}))  # fmt: skip
    c = Corpus(loc, **({"docs_dir": docs} if docs else {}))
    yield c
    c.close()


def _escapes(store):
    return BOTH + (POSTGRES_ONLY if store.store.kind == "postgres" else [])


def test_every_escape_is_refused_and_nothing_changes(store, tmp_path):
    before = {n: len(store.store.table(n)) for n in ("blocks", "members", "documents")}
    for query in _escapes(store):
        with pytest.raises(UsageError) as err:
            sql.query_corpus(store.store, "analyst", query, timeout=5)
        assert "\n" not in str(err.value), query
    after = {n: len(store.store.table(n)) for n in ("blocks", "members", "documents")}
    assert after == before  # 0 writes
    assert not list(tmp_path.parent.glob("docintel-escape*"))
    import pathlib

    assert not pathlib.Path("/tmp/docintel-escape.csv").exists()
    assert not pathlib.Path("/tmp/docintel-escape-db").exists()


def test_reads_only_the_users_documents(store):
    readable = set(store.store.readable_documents("analyst")["doc_id"])
    for table in ("documents", "blocks", "access", "records", "mentions", "identities"):
        got = sql.query_corpus(store.store, "analyst", f"SELECT * FROM {table}", limit=0).frame
        assert set(got["doc_id"]) <= readable, table
    text = " ".join(
        sql.query_corpus(store.store, "analyst", "SELECT text FROM blocks", limit=0).frame["text"]
    )
    assert text and not any(s in text for s in DRAFT_SECRETS)
    assert sql.query_corpus(store.store, "nobody", "SELECT count(*) AS n FROM blocks").frame["n"][0] == 0
    # the row cap holds and says so
    capped = sql.query_corpus(store.store, "analyst", "SELECT block_id FROM blocks", limit=1)
    assert len(capped.frame) == 1 and capped.truncated


def test_runaway_query_is_stopped_within_the_limit(store):
    with pytest.raises(UsageError, match="stopped after 0.5 s"):
        sql.query_corpus(store.store, "analyst", RUNAWAY[store.store.kind], timeout=0.5, limit=0)


def test_cli_sql_on_both_stores(store, capsys):
    loc = store.location
    assert main(["sql", "--corpus", loc, "--as", "analyst", "SELECT count(*) AS n FROM documents"]) == 0
    assert capsys.readouterr().out.split()[1] == "2"
    assert main(["sql", "--corpus", loc, "--as", "analyst", "SELECT * FROM read_csv('/etc/passwd')"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error:") and len(err.strip().splitlines()) == 1


def test_agent_tools_read_as_the_user_on_both_stores(store):
    """The agent's tools on each store: the user's rows only, empty tables give empty results."""
    from docintel.corpus import tools as T

    ctx = T.ToolContext(store, "analyst")
    hits = T.TOOLS["search_blocks"].call(ctx, {"query": "incident records retention zebra mappings"})
    assert hits.rows and not any(s in r["text"] for r in hits.rows for s in DRAFT_SECRETS)
    one = T.TOOLS["get_block"].call(ctx, {"block_id": hits.rows[0]["block_id"]})
    assert one.rows[0]["text"] == hits.rows[0]["text"]
    # ingest derived the mentions: 901 cites SP 800-902; the analyst never sees the draft in a link
    docs = store.store.table("documents").set_index("file")["doc_id"]
    draft = docs["sp800-903-draft.pdf"]
    cites = T.TOOLS["cites"].call(ctx, {"document": "sp800-901.pdf"}).rows
    assert cites and all(
        docs["sp800-902.pdf"] in r["cited_docs"] and draft not in r["cited_docs"] for r in cites
    )
    cited_by = T.TOOLS["cited_by"].call(ctx, {"document": "sp800-902.pdf"}).rows
    assert docs["sp800-901.pdf"] in {r["citing_doc"] for r in cited_by}
    assert draft not in {r["citing_doc"] for r in cited_by}
    rev = T.TOOLS["cited_by"].call(T.ToolContext(store, "reviewer"), {"document": "sp800-902.pdf"}).rows
    assert len(rev) >= len(cited_by)
    assert T.TOOLS["list_records"].call(ctx, {"record_type": "phase", "contains": "x"}).rows == []
    assert T.TOOLS["lookup_identifier"].call(ctx, {"identifier": "SP 800-53"}).rows == []
    n = T.TOOLS["sql"].call(ctx, {"query": "SELECT count(*) AS n FROM documents"}).rows[0]["n"]
    assert n == 2
    with pytest.raises(T.ToolError, match="SQL refused"):
        T.TOOLS["sql"].call(ctx, {"query": "SELECT * FROM read_csv('/etc/passwd')"})
    with pytest.raises(T.ToolError, match=T.NOT_READABLE):
        T.TOOLS["cites"].call(ctx, {"document": "sp800-903-draft.pdf"})
