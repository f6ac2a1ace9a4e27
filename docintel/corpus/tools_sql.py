"""The read-only SQL guard (``docintel sql`` and the agent's SQL tool), at the corpus layer so the
agent's tools can use it; :mod:`docintel.sql` re-exports it and adds the single-document views.

Read-only SQL over a document's tables, in a DuckDB that cannot reach out.

Every table of the document is a view over its cached Parquet file. DuckDB's ``read_only``
is no sandbox (an in-memory database can still read and write any file through
``read_csv``, ``COPY ... TO``, ``ATTACH`` or ``INSTALL``), so the connection is locked
down in this order, as measured with DuckDB 2.0:

1. extensions are never auto-installed or auto-loaded (connection config);
2. the views are created while files can still be opened;
3. ``allowed_paths`` is set to exactly the views' Parquet files, then
   ``enable_external_access=false``: any other file, directory, glob, ``COPY``, ``EXPORT``,
   ``ATTACH``, ``INSTALL`` or ``LOAD`` is a permission error;
4. ``lock_configuration=true`` last, so no statement can undo 1-3.

On top of that a query must be exactly one statement, and DuckDB's own parser must call it
a ``SELECT`` (``duckdb.extract_statements``): a ``WITH ... INSERT`` is an INSERT, two
statements are refused. Results stop at a row cap (saying so) and a timer thread interrupts
a query that runs past its time limit.

:func:`guarded_connection` takes any mapping view name -> Parquet paths; one guard serves
one document (:func:`query_document`) and one user's slice of an embedded corpus store
(:func:`corpus_connection`: the corpus tables copied in memory with only the user's rows, the
per-document tables as views over only the readable documents' files).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from docintel.errors import DocumentError, MissingDependencyError, UsageError

if TYPE_CHECKING:  # the CLI reads the defaults at start-up: importing this module stays cheap
    import pandas as pd

INSTALL_HINT = "pip install 'docintel[sql]'"
#: Rows returned unless the caller asks for more (``--limit``; 0 means no cap).
DEFAULT_ROW_LIMIT = 1000
#: Seconds a query may run before it is interrupted (``--timeout``).
DEFAULT_TIMEOUT = 10.0
#: DuckDB memory cap per connection: a join gone wrong must not take the shared machine's RAM.
MEMORY_LIMIT = "1GB"
#: DuckDB worker threads per connection (the machine has 2 cores, shared).
THREADS = 1
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass
class SqlResult:
    """A query's rows (at most ``limit``) and whether more rows were left out."""

    frame: pd.DataFrame
    truncated: bool
    limit: int


def _duckdb():
    try:
        import duckdb
    except ImportError as exc:
        raise MissingDependencyError(f"docintel sql needs DuckDB: {INSTALL_HINT}") from exc
    return duckdb


def _literal(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def _open():
    """A fresh in-memory DuckDB that never installs or loads an extension by itself."""
    return _duckdb().connect(
        ":memory:",
        config={
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
            "allow_community_extensions": False,
        },
    )


def _lock_down(con, allowed: Sequence[str]) -> None:
    """Steps 3-4 of the module docstring: only ``allowed`` files, no outside access, config locked."""
    con.execute(f"SET allowed_paths = [{', '.join(_literal(f) for f in allowed)}]")
    con.execute("SET enable_external_access = false")
    con.execute(f"SET memory_limit = {_literal(MEMORY_LIMIT)}")
    con.execute(f"SET threads = {THREADS}")
    con.execute("SET lock_configuration = true")


def _checked_files(name: str, paths: str | Path | Sequence[str | Path]) -> list[str]:
    if not _IDENT.match(name):
        raise UsageError(f"view name {name!r} is not a plain SQL identifier")
    files = [paths] if isinstance(paths, str | Path) else list(paths)
    if not files:
        raise UsageError(f"view {name!r} has no Parquet file")
    for f in files:
        if not Path(f).is_file():
            raise DocumentError(f"{f}: no such Parquet file (parse the document again)")
    return [str(Path(f).resolve()) for f in files]


def _view_sql(name: str, paths) -> tuple[str, list[str]]:
    """The SELECT a view is made of, and the files it reads.

    ``paths`` is a file, a list of files, or a mapping doc_id -> file: then each file's rows
    carry that doc_id and the files are stacked by column name.
    """
    if isinstance(paths, Mapping):
        parts, files = [], []
        for doc_id, path in paths.items():
            (f,) = _checked_files(name, path)
            files.append(f)
            parts.append(
                f"SELECT * REPLACE ({_literal(doc_id)}::VARCHAR AS doc_id) FROM read_parquet({_literal(f)})"
            )
        if not parts:
            raise UsageError(f"view {name!r} has no Parquet file")
        return " UNION ALL BY NAME ".join(parts), files
    files = _checked_files(name, paths)
    return "SELECT * FROM read_parquet([" + ", ".join(_literal(f) for f in files) + "])", files


def guarded_connection(views: Mapping[str, str | Path | Sequence[str | Path] | Mapping], *, load=None):
    """An in-memory DuckDB connection holding ``views`` (name -> Parquet file(s)) and nothing else.

    A view's files are a path, a list of paths, or a mapping doc_id -> path (see :func:`_view_sql`).

    ``load(con)``, when given, runs first, while files can still be opened: it may create
    in-memory tables (copies of rows, not file references). See the module docstring for what
    is locked and in which order. Raises UsageError for a view name that is not a plain
    identifier and DocumentError for a missing file.
    """
    con = _open()
    allowed: list[str] = []
    try:
        if load is not None:
            load(con)
        for name, paths in views.items():
            select, files = _view_sql(name, paths)
            allowed += files
            con.execute(f'CREATE VIEW "{name}" AS {select}')
        _lock_down(con, allowed)
    except BaseException:
        con.close()
        raise
    return con


def check_select(sql: str) -> str:
    """``sql`` when it is exactly one SELECT statement (by DuckDB's parser), else UsageError.

    A SELECT can still carry a write: ``WITH x AS (DELETE ... RETURNING *) SELECT ...`` is a
    SELECT statement to the parser (and DuckDB runs the DELETE), so the parsed tree is walked
    too and any INSERT / UPDATE / DELETE / MERGE node inside it is refused."""
    duckdb = _duckdb()
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise UsageError(f"SQL does not parse: {_first_line(exc)}") from exc
    if len(statements) != 1:
        raise UsageError(f"give exactly one SELECT statement, not {len(statements)}")
    kind = statements[0].type
    if kind != duckdb.StatementType.SELECT:
        raise UsageError(f"only SELECT queries are allowed, not {kind.name}")
    for node in _nodes(parse_tree(sql)):
        write = _WRITE_NODE.match(str(node.get("type", "")))
        if write:
            raise UsageError(f"only SELECT queries are allowed, not a {write.group(1)} inside the SELECT")
    return sql


_WRITE_NODE = re.compile(r"^(INSERT|UPDATE|DELETE|MERGE)\w*_NODE$")


def parse_tree(sql: str) -> dict:
    """DuckDB's parsed tree of ``sql`` (``json_serialize_sql``; the json extension is built in)."""
    import json

    con = _open()
    try:
        tree = json.loads(con.execute("SELECT json_serialize_sql(?)", [sql]).fetchone()[0])
    finally:
        con.close()
    if tree.get("error"):
        raise UsageError(f"SQL does not parse: {tree.get('error_message', 'unknown error')}")
    return tree


def _nodes(tree):
    """Every dict inside the parsed tree, depth first."""
    stack = [tree]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def run_query(
    con, sql: str, *, limit: int = DEFAULT_ROW_LIMIT, timeout: float = DEFAULT_TIMEOUT
) -> SqlResult:
    """Run one SELECT on a guarded connection; at most ``limit`` rows (0: all), within ``timeout`` s."""
    duckdb = _duckdb()
    check_select(sql)
    if limit < 0:
        raise UsageError(f"--limit must be 0 (no cap) or more, not {limit}")
    if timeout <= 0:
        raise UsageError(f"--timeout must be more than 0 seconds, not {timeout}")
    timer = threading.Timer(timeout, con.interrupt)
    timer.daemon = True
    timer.start()
    try:
        rel = con.sql(sql)
        frame = (rel.limit(limit + 1) if limit else rel).df()
    except duckdb.InterruptException as exc:
        raise UsageError(f"query stopped after {timeout:g} s (raise --timeout for a longer one)") from exc
    except duckdb.Error as exc:
        raise UsageError(f"SQL error: {_first_line(exc)}") from exc
    finally:
        timer.cancel()
    truncated = bool(limit) and len(frame) > limit
    return SqlResult(frame=frame.head(limit) if truncated else frame, truncated=truncated, limit=limit)


# -- a user's slice of a corpus (embedded store) -------------------------------------------


def _row_filter(name: str, columns: Sequence[str]) -> str | None:
    """The WHERE (over alias ``t``) that keeps a corpus table's rows the user may see: the
    table's own access rule (``TableSpec.predicate``; members: the user's own memberships,
    never who else is in a group). None: the table has no rule and is left out."""
    from docintel.corpus.store import TABLES

    spec = TABLES.get(name)
    pred = spec.predicate("SELECT doc_id FROM _readable") if spec is not None else None
    return None if pred is None else pred.replace(":user", "$user")


def corpus_connection(corpus, user: str | None):
    """A guarded connection over what ``user`` may read in an embedded corpus store.

    ``corpus`` is a :class:`docintel.corpus.Corpus` or its store; a PostgreSQL store is refused.

    - Corpus tables (documents, access, blocks, members and any later one) are IN-MEMORY
      tables holding only the user's rows (documents the user may read; their own
      memberships). They are copied while files are still open and their Parquet files are
      never allowed, so ``read_parquet`` of a corpus file is refused: it holds other users' rows.
    - Per-document tables (``line_df`` ...) are views over only the readable documents'
      cached Parquet files (one ``doc_id`` per file), and ``allowed_paths`` is exactly those.
    - A user who may read nothing gets every table with its columns and no rows.
    """
    import pyarrow as pa

    from docintel.corpus.embedded import arrow_schema
    from docintel.corpus.store import TABLE_COLUMNS
    from docintel.schema.tables import TABLES

    store = getattr(corpus, "store", corpus)  # a Corpus or its store
    if getattr(store, "kind", None) != "embedded":
        raise UsageError("a DuckDB connection serves an embedded store; PostgreSQL: query_corpus")
    docs = store.readable_documents(user)
    readable = [str(d) for d in docs["doc_id"]]
    views: dict[str, dict[str, Path]] = {}
    for name in TABLES:
        files = {}
        for doc_id, cache in zip(docs["doc_id"], docs["cache_dir"], strict=True):
            f = Path(str(cache)) / f"{name}.parquet" if isinstance(cache, str) and cache else None
            if f is not None and f.is_file():
                files[str(doc_id)] = f
        views[name] = files

    def load(con) -> None:
        con.register("_readable_src", pa.table({"doc_id": pa.array(readable, pa.string())}))
        con.execute("CREATE TEMP TABLE _readable AS SELECT * FROM _readable_src")
        con.unregister("_readable_src")
        for name, columns in TABLE_COLUMNS.items():
            where = _row_filter(name, columns)
            if where is None:
                continue
            f = store.table_sql(name)  # the generation's file, or an append table's parts
            if f is not None:
                src = f
            else:
                con.register(f"_{name}_src", pa.Table.from_pylist([], schema=arrow_schema(name)))
                src = f"_{name}_src"
            con.execute(
                f'CREATE TABLE "{name}" AS SELECT t.* FROM {src} t WHERE {where}',
                {"user": user or ""} if "$user" in where else None,
            )
            if f is None:
                con.unregister(f"_{name}_src")
        con.execute("DROP TABLE _readable")
        for name, files in views.items():
            if not files:  # nobody's rows: the table's columns, empty (doc_id stays first)
                con.register(f"_{name}_src", TABLES[name].arrow_schema.empty_table())
                con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM _{name}_src')
                con.unregister(f"_{name}_src")

    return guarded_connection({n: f for n, f in views.items() if f}, load=load)


def query_corpus(
    corpus, user: str | None, sql: str, *, limit: int = DEFAULT_ROW_LIMIT, timeout: float = DEFAULT_TIMEOUT
) -> SqlResult:
    """Run one SELECT over ``user``'s slice of the corpus: an embedded store through
    :func:`corpus_connection`, a PostgreSQL store through :func:`query_postgres`."""
    check_select(sql)
    store = getattr(corpus, "store", corpus)
    if getattr(store, "kind", None) == "postgres":
        return query_postgres(store, user, sql, limit=limit, timeout=timeout)
    con = corpus_connection(corpus, user)
    try:
        return run_query(con, sql, limit=limit, timeout=timeout)
    finally:
        con.close()


# -- a user's slice of a PostgreSQL store -------------------------------------------------

#: Functions refused on PostgreSQL before the server sees the query: ``set_config`` could change
#: the role, the row-security user (``docintel.user``) or the timeout from inside a SELECT.
#: Everything else is the server's to refuse (the reader role holds no file, program, large
#: object or extension privilege), and each query runs on its own connection, closed after it.
PG_REFUSED_FUNCTIONS = frozenset({"set_config"})


def check_postgres_select(sql: str) -> str:
    """:func:`check_select`, plus: tables only of the corpus store (or the query's own CTEs),
    no schema-qualified or system table, no function of :data:`PG_REFUSED_FUNCTIONS`."""
    from docintel.corpus.store import TABLES

    check_select(sql)
    tree = parse_tree(sql)
    ctes = {
        entry.get("key")
        for node in _nodes(tree)
        for entry in (node.get("cte_map") or {}).get("map", [])
        if isinstance(entry, dict)
    }
    for node in _nodes(tree):
        if node.get("type") == "BASE_TABLE":
            name, schema = (
                node.get("table_name", ""),
                node.get("schema_name", "") or node.get("catalog_name", ""),
            )
            if schema or (name not in TABLES and name not in ctes):
                shown = f"{schema}.{name}" if schema else name
                raise UsageError(f"no table {shown!r}: the corpus tables are {', '.join(TABLES)}")
        if (
            node.get("class") == "FUNCTION"
            and str(node.get("function_name", "")).lower() in PG_REFUSED_FUNCTIONS
        ):
            raise UsageError(f"function {node['function_name']}() is not allowed in a read-only query")
    return sql


def query_postgres(
    store, user: str | None, sql: str, *, limit: int = DEFAULT_ROW_LIMIT, timeout: float = DEFAULT_TIMEOUT
) -> SqlResult:
    """One SELECT as ``user`` on a PostgreSQL store: checked here (:func:`check_postgres_select`),
    then run by :meth:`PostgresStore.guarded_query` (a fresh connection as the SELECT-only role,
    row-level security for ``user``, a READ ONLY transaction rolled back after, a statement
    timeout, at most ``limit`` + 1 rows fetched)."""
    import pandas as pd

    check_postgres_select(sql)
    if limit < 0:
        raise UsageError(f"--limit must be 0 (no cap) or more, not {limit}")
    if timeout <= 0:
        raise UsageError(f"--timeout must be more than 0 seconds, not {timeout}")
    columns, rows = store.guarded_query(user, sql, limit=limit + 1 if limit else 0, timeout=timeout)
    truncated = bool(limit) and len(rows) > limit
    frame = pd.DataFrame(rows[:limit] if truncated else rows, columns=columns)
    return SqlResult(frame=frame, truncated=truncated, limit=limit)


def schema_text(store=None, *, full: bool = True) -> str:
    """The tables a guarded corpus query may read, one line each (given to a model before it
    writes SQL). On PostgreSQL only the corpus tables exist; an embedded store adds the
    per-document tables."""
    from docintel.corpus.store import TABLE_COLUMNS

    lines = [f"{name}({', '.join(cols)})" for name, cols in TABLE_COLUMNS.items()]
    if getattr(store, "kind", "embedded") == "embedded":
        from docintel.schema.tables import TABLES

        if full:
            lines += [f"{name}({', '.join(t.column_names)})" for name, t in TABLES.items()]
        else:
            lines.append(f"(per-document tables, columns on request: {', '.join(TABLES)})")
    return "\n".join(lines)
