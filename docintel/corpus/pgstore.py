"""The PostgreSQL store: the same corpus tables and queries, for teams that share one store.

Reads run as a SELECT-only role (``docintel_reader``, taken with ``SET ROLE``) under
row-level security: policies on ``documents``, ``blocks``, ``access`` and ``members`` admit
only rows of documents whose groups meet the session user's groups (``docintel.user``,
set per query by the store); an unset or unknown user sees no rows. Every read connection
has a ``statement_timeout``. Writes run as the owner in one transaction per commit, so a
reader never sees a half-ingested corpus. The per-document Parquet cache and the keyword
index stay files on the client side (``docs_dir``).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

import pandas as pd

from docintel.corpus.store import (
    INT_COLUMNS,
    READABLE_DOCS,
    READABLE_IDS,
    TABLE_COLUMNS,
    USER_GROUPS,
    Change,
)
from docintel.errors import MissingDependencyError, UsageError

READER = "docintel_reader"
_TYPES = {
    "bytes": "bigint",
    "pages": "bigint",
    "version": "bigint",
    "page": "bigint",
    "line_start": "bigint",
    "line_end": "bigint",
    "x0": "float8",
    "y0": "float8",
    "x1": "float8",
    "y1": "float8",
}
_KEYS = {"documents": "doc_id", "access": "doc_id, grp", "members": "usr, grp", "blocks": "block_id"}


def _ddl() -> list[str]:
    out = []
    for name, cols in TABLE_COLUMNS.items():
        body = ", ".join(f"{c} {_TYPES.get(c, 'text')}" for c in cols)
        out.append(f"CREATE TABLE IF NOT EXISTS {name} ({body}, PRIMARY KEY ({_KEYS[name]}))")
    out += [
        "CREATE INDEX IF NOT EXISTS blocks_doc ON blocks (doc_id)",
        "CREATE TABLE IF NOT EXISTS meta (key text PRIMARY KEY, value text)",
        "INSERT INTO meta VALUES ('generation', '0') ON CONFLICT DO NOTHING",
        f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{READER}')"
        f" THEN CREATE ROLE {READER} NOLOGIN; END IF; END $$",
        f"GRANT {READER} TO CURRENT_USER",
        f"GRANT USAGE ON SCHEMA public TO {READER}",
        f"GRANT SELECT ON documents, access, members, blocks, meta TO {READER}",
        # the owner's view of access/members, evaluated once per query for the session user
        "CREATE OR REPLACE FUNCTION docintel_readable() RETURNS SETOF text LANGUAGE sql STABLE"
        " SECURITY DEFINER SET search_path = public AS $$ SELECT a.doc_id FROM access a JOIN members m"
        " ON m.grp = a.grp WHERE m.usr = current_setting('docintel.user', true) $$",
        "REVOKE ALL ON FUNCTION docintel_readable() FROM PUBLIC",
        f"GRANT EXECUTE ON FUNCTION docintel_readable() TO {READER}",
    ]
    for name in ("documents", "blocks", "access"):
        out += [
            f"ALTER TABLE {name} ENABLE ROW LEVEL SECURITY",
            f"DROP POLICY IF EXISTS by_group ON {name}",
            f"CREATE POLICY by_group ON {name} FOR SELECT TO {READER}"
            " USING (doc_id IN (SELECT docintel_readable()))",
        ]
    out += [
        "ALTER TABLE members ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS own_rows ON members",
        f"CREATE POLICY own_rows ON members FOR SELECT TO {READER}"
        " USING (usr = current_setting('docintel.user', true))",
    ]
    return out


def _psycopg():
    try:
        import psycopg
    except ImportError:
        raise MissingDependencyError(
            "a postgresql:// store needs psycopg: pip install 'docintel[postgres]'"
        ) from None
    return psycopg


def _sql(q: str) -> str:
    return q.replace(":user", "%(user)s").replace(":ids", "%(ids)s")


class PostgresStore:
    kind = "postgres"

    def __init__(
        self,
        dsn: str,
        *,
        create: bool = False,
        docs_dir: str | Path | None = None,
        statement_timeout_ms: int = 10_000,
    ):
        self.psycopg = _psycopg()
        self.dsn = dsn
        self.location = dsn
        self.docs_dir = Path(docs_dir or os.environ.get("DOCINTEL_CORPUS_DOCS") or "artifacts/corpus")
        self.index_dir = self.docs_dir / ".index" / hashlib.sha256(dsn.encode()).hexdigest()[:12]
        self.timeout = int(statement_timeout_ms)
        try:
            self._own = self.psycopg.connect(dsn, autocommit=True)
        except self.psycopg.OperationalError as exc:
            raise UsageError(
                f"cannot connect to the corpus database: {str(exc).strip().splitlines()[0]}"
            ) from None
        exists = self._own.execute("SELECT to_regclass('public.documents') IS NOT NULL").fetchone()[0]
        if not exists and not create:
            raise UsageError(
                "the database holds no corpus store (run `docintel ingest DIR --corpus DSN` first)"
            )
        if create:
            with self._own.transaction():
                for stmt in _ddl():
                    self._own.execute(stmt)
        self._read = None

    def _reader(self):
        if self._read is None:
            con = self.psycopg.connect(self.dsn, autocommit=True)
            con.execute(f"SET ROLE {READER}")  # SELECT-only, under row-level security
            con.execute(f"SET statement_timeout = {self.timeout}")
            self._read = con
        return self._read

    def _frame(self, cur, name: str | None = None) -> pd.DataFrame:
        cols = [d.name for d in cur.description]
        df = pd.DataFrame(cur.fetchall(), columns=cols)
        return df

    def _query_as(self, user: str | None, sql: str, params: dict) -> pd.DataFrame:
        con = self._reader()
        with con.transaction():
            con.execute("SELECT set_config('docintel.user', %s, true)", (user or "",))
            return self._frame(con.execute(_sql(sql), params))

    @contextlib.contextmanager
    def writer_lock(self):
        """One committer per database: a session advisory lock (released on exit or disconnect)."""
        key = int(hashlib.sha256(b"docintel-corpus-writer").hexdigest()[:15], 16)
        if not self._own.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0]:
            raise UsageError("another ingest is writing this corpus database; try again when it ends")
        try:
            yield
        finally:
            self._own.execute("SELECT pg_advisory_unlock(%s)", (key,))

    def generation(self) -> str:
        return self._own.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0]

    # -- reads: the shared SQL, and row-level security underneath it --
    def user_groups(self, user: str | None) -> list[str]:
        return self._query_as(user, USER_GROUPS, {"user": user or ""})["grp"].tolist()

    def readable_documents(self, user: str | None) -> pd.DataFrame:
        return self._query_as(user, READABLE_DOCS, {"user": user or ""})

    def blocks(self, user: str | None, block_ids: list[str]) -> pd.DataFrame:
        sql = f"SELECT b.* FROM blocks b WHERE b.block_id = ANY(:ids) AND b.doc_id IN ({READABLE_IDS})"
        return self._query_as(user, sql, {"user": user or "", "ids": list(block_ids)})

    # -- writer side (the owner) --
    def table(self, name: str) -> pd.DataFrame:
        if name not in TABLE_COLUMNS:
            raise KeyError(name)
        return self._frame(self._own.execute(f"SELECT * FROM {name}"))

    def doc_blocks(self, doc_ids: list[str]) -> pd.DataFrame:
        return self._frame(self._own.execute("SELECT * FROM blocks WHERE doc_id = ANY(%s)", (list(doc_ids),)))

    def commit(self, change: Change) -> str:
        con = self._own
        with con.transaction():
            docs = change.documents.reindex(columns=TABLE_COLUMNS["documents"])
            cols = TABLE_COLUMNS["documents"]
            upd = ", ".join(f"{c} = EXCLUDED.{c}" for c in cols if c != "doc_id")
            sql = (
                f"INSERT INTO documents ({', '.join(cols)}) VALUES ({', '.join(['%s'] * len(cols))})"
                f" ON CONFLICT (doc_id) DO UPDATE SET {upd}"
            )
            with con.cursor() as cur:
                cur.executemany(sql, [_row(r, cols) for r in docs.itertuples(index=False)])
                cur.executemany("INSERT INTO access VALUES (%s, %s) ON CONFLICT DO NOTHING", change.access)
                cur.executemany("INSERT INTO members VALUES (%s, %s) ON CONFLICT DO NOTHING", change.members)
                gone = sorted(change.drop_blocks_of | set(change.blocks["doc_id"]))
                if gone:
                    cur.execute("DELETE FROM blocks WHERE doc_id = ANY(%s)", (gone,))
                bcols = TABLE_COLUMNS["blocks"]
                if not change.blocks.empty:
                    with cur.copy(f"COPY blocks ({', '.join(bcols)}) FROM STDIN") as cp:
                        for r in change.blocks.reindex(columns=bcols).itertuples(index=False):
                            cp.write_row(_row(r, bcols))
                cur.execute("UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'generation'")
        return self.generation()

    def close(self) -> None:
        for con in (self._read, self._own):
            if con is not None and not con.closed:
                con.close()
        self._read = None


def _row(r, cols) -> list:
    out = []
    for c, v in zip(cols, r, strict=True):
        if v is None or (isinstance(v, float) and v != v):
            out.append(None)
        elif c in INT_COLUMNS or c in ("page", "line_start", "line_end"):
            out.append(int(v))
        else:
            out.append(v if isinstance(v, (int, float)) else str(v).replace("\x00", ""))
    return out
