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
import dataclasses
import hashlib
import os
import re
import warnings
from pathlib import Path

import pandas as pd

from docintel.corpus.store import (
    CORPUS_TABLES,
    READABLE_DOCS,
    READABLE_IDS,
    TABLE_COLUMNS,
    TABLES,
    USER_GROUPS,
    Change,
    readable_rows_sql,
)
from docintel.errors import MissingDependencyError, UsageError

READER = "docintel_reader"


def _type(spec, column: str) -> str:
    return "bigint" if column in spec.ints else "float8" if column in spec.floats else "text"


def _ddl() -> list[str]:
    out = []
    for name, spec in TABLES.items():
        body = ", ".join(f"{c} {_type(spec, c)}" for c in spec.columns)
        out.append(f"CREATE TABLE IF NOT EXISTS {name} ({body}, PRIMARY KEY ({', '.join(spec.key)}))")
        if spec.scope == "document" and "doc_id" in spec.columns:
            out.append(f"CREATE INDEX IF NOT EXISTS {name}_doc ON {name} (doc_id)")
    out += [
        "CREATE TABLE IF NOT EXISTS meta (key text PRIMARY KEY, value text)",
        "INSERT INTO meta VALUES ('generation', '0') ON CONFLICT DO NOTHING",
        f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{READER}')"
        f" THEN CREATE ROLE {READER} NOLOGIN; END IF; END $$",
        f"GRANT {READER} TO CURRENT_USER",
        f"GRANT USAGE ON SCHEMA public TO {READER}",
        f"GRANT SELECT ON {', '.join(TABLES)}, meta TO {READER}",
        # the owner's view of access/members, evaluated once per query for the session user
        "CREATE OR REPLACE FUNCTION docintel_readable() RETURNS SETOF text LANGUAGE sql STABLE"
        " SECURITY DEFINER SET search_path = public AS $$ SELECT a.doc_id FROM access a JOIN members m"
        " ON m.grp = a.grp WHERE m.usr = current_setting('docintel.user', true) $$",
        "REVOKE ALL ON FUNCTION docintel_readable() FROM PUBLIC",
        f"GRANT EXECUTE ON FUNCTION docintel_readable() TO {READER}",
    ]
    for name, spec in TABLES.items():
        # row-level security: the same predicate as the reads, the session user's readable ids
        pred = spec.predicate("SELECT docintel_readable()")
        if pred is None:
            continue
        pred = pred.replace(":user", "current_setting('docintel.user', true)")
        out += [
            f"ALTER TABLE {name} ENABLE ROW LEVEL SECURITY",
            f"DROP POLICY IF EXISTS by_group ON {name}",
            f"DROP POLICY IF EXISTS own_rows ON {name}",
            f"CREATE POLICY by_group ON {name} AS PERMISSIVE FOR SELECT TO {READER} USING ("
            + re.sub(r"\bt\.", f"{name}.", pred)
            + ")",
        ]
    return out


def _ddl_sha() -> str:
    return hashlib.sha256("\n".join(_ddl()).encode()).hexdigest()[:16]


def _psycopg():
    try:
        import psycopg
    except ImportError:
        raise MissingDependencyError(
            "a postgresql:// store needs psycopg: pip install 'docintel[postgres]'"
        ) from None
    return psycopg


def _sql(q: str) -> str:
    """``:name`` parameters as psycopg's ``%(name)s`` (``::type`` casts left alone)."""
    return re.sub(r"(?<![:\w]):(\w+)", r"%(\1)s", q)


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
        if create or self._ddl_stale():
            self._install()
        self._read = None

    def _ddl_stale(self) -> bool:
        """The store's tables, grants and row-level policies predate this code's (``meta.ddl``)."""
        row = self._own.execute("SELECT value FROM meta WHERE key = 'ddl'").fetchone()
        return row is None or row[0] != _ddl_sha()

    def _install(self) -> None:
        """Create or bring up to date every table, grant and policy, in one transaction (all
        idempotent), and record which DDL did it: an existing store opened by newer code gets the
        newer access rules once (session 13: answers of the old format show to their asker only)."""
        try:
            with self._own.transaction():
                for stmt in _ddl():
                    self._own.execute(stmt)
                self._own.execute(
                    "INSERT INTO meta VALUES ('ddl', %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                    (_ddl_sha(),),
                )
        except self.psycopg.errors.InsufficientPrivilege:
            warnings.warn(  # the reads' own SQL still applies the new rules; the SQL tool's RLS does not
                "corpus database: not its owner, so its row-level policies could not be updated",
                stacklevel=3,
            )

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

    def rows(
        self, name: str, user: str | None, where: str = "", params: dict | None = None, order: str = ""
    ) -> pd.DataFrame:
        """Rows of table ``name`` that ``user`` may read (the same SQL, under row-level security)."""
        return self._query_as(
            user, readable_rows_sql(name, where, order), {**(params or {}), "user": user or ""}
        )

    def guarded_query(self, user: str | None, sql: str, *, limit: int, timeout: float) -> tuple[list, list]:
        """Run an already checked SELECT as ``user`` (``docintel sql``, the agent's SQL tool).

        A fresh connection per query (nothing the query does outlives it), the SELECT-only
        role, row-level security for ``user``, a READ ONLY transaction that is rolled back, a
        ``statement_timeout`` of ``timeout`` seconds and at most ``limit`` rows fetched (0: all).
        Returns (column names, rows); a server error is one UsageError line."""
        psycopg = self.psycopg
        con = psycopg.connect(self.dsn, autocommit=True)
        try:
            con.execute(f"SET ROLE {READER}")
            con.execute("BEGIN READ ONLY")
            con.execute(f"SET LOCAL statement_timeout = {max(1, int(timeout * 1000))}")
            con.execute("SELECT set_config('docintel.user', %s, true)", (user or "",))
            try:
                cur = con.execute(sql)  # no parameters: the text is sent as it is
                rows = cur.fetchmany(limit) if limit else cur.fetchall()
            except psycopg.errors.QueryCanceled as exc:
                raise UsageError(
                    f"query stopped after {timeout:g} s (raise --timeout for a longer one)"
                ) from exc
            except psycopg.Error as exc:
                raise UsageError(f"SQL error: {str(exc).strip().splitlines()[0]}") from exc
            return [d.name for d in cur.description or []], [list(r) for r in rows]
        finally:
            con.close()  # the transaction is rolled back with it

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
                for name, spec in TABLES.items():
                    if name not in CORPUS_TABLES:
                        _write_rows(cur, name, spec, change)
                if _moves_generation(change):  # stored answers alone keep it, as in the embedded store
                    cur.execute("UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'generation'")
        return self.generation()

    def close(self) -> None:
        for con in (self._read, self._own):
            if con is not None and not con.closed:
                con.close()
        self._read = None


def _moves_generation(change: Change) -> bool:
    """Whether ``change`` holds more than rows of append tables (stored answers and edges)."""
    rows = {n: df for n, df in change.rows.items() if n not in TABLES or TABLES[n].scope != "append"}
    return not dataclasses.replace(change, rows=rows).is_empty()


def _write_rows(cur, name: str, spec, change: Change) -> None:
    """One derived/appended table's part of a commit (inside the commit's transaction)."""
    new = change.rows.get(name)
    has_new = new is not None and not new.empty
    if spec.scope == "document":
        gone = sorted(change.touched(name))
        if gone:
            cur.execute(f"DELETE FROM {name} WHERE doc_id = ANY(%s)", (gone,))
    if not has_new:
        return
    cols = spec.columns
    new = new.reindex(columns=cols).drop_duplicates(subset=list(spec.key), keep="last")
    if spec.scope == "document":
        with cur.copy(f"COPY {name} ({', '.join(cols)}) FROM STDIN") as cp:
            for r in new.itertuples(index=False):
                cp.write_row(_row(r, cols, spec))
        return
    upd = ", ".join(f"{c} = EXCLUDED.{c}" for c in cols if c not in spec.key)
    sql = (
        f"INSERT INTO {name} ({', '.join(cols)}) VALUES ({', '.join(['%s'] * len(cols))})"
        f" ON CONFLICT ({', '.join(spec.key)}) DO " + (f"UPDATE SET {upd}" if upd else "NOTHING")
    )
    cur.executemany(sql, [_row(r, cols, spec) for r in new.itertuples(index=False)])


def _row(r, cols, spec=None) -> list:
    spec = spec or TABLES["documents"]
    out = []
    for c, v in zip(cols, r, strict=True):
        if v is None or (isinstance(v, float) and v != v):
            out.append(None)
        elif c in spec.ints:
            out.append(int(v))
        elif c in spec.floats:
            out.append(float(v))
        else:
            out.append(v if isinstance(v, (int, float)) else str(v).replace("\x00", ""))
    return out
