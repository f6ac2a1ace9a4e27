"""`docintel sql`: read-only SQL over a document's tables, in a DuckDB that cannot reach out.

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

:func:`guarded_connection` takes any mapping view name -> Parquet paths, so one guard serves
one document here and a user's slice of a corpus elsewhere.
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

    from docintel.schema.document import DocTables

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


def guarded_connection(views: Mapping[str, str | Path | Sequence[str | Path]]):
    """An in-memory DuckDB connection holding ``views`` (name -> Parquet file(s)) and nothing else.

    See the module docstring for what is locked and in which order. Raises UsageError for
    a view name that is not a plain identifier and DocumentError for a missing file.
    """
    duckdb = _duckdb()
    con = duckdb.connect(
        ":memory:",
        config={
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
            "allow_community_extensions": False,
        },
    )
    allowed: list[str] = []
    try:
        for name, paths in views.items():
            if not _IDENT.match(name):
                raise UsageError(f"view name {name!r} is not a plain SQL identifier")
            files = [paths] if isinstance(paths, str | Path) else list(paths)
            if not files:
                raise UsageError(f"view {name!r} has no Parquet file")
            for f in files:
                if not Path(f).is_file():
                    raise DocumentError(f"{f}: no such Parquet file (parse the document again)")
            resolved = [str(Path(f).resolve()) for f in files]
            allowed += resolved
            files_sql = "[" + ", ".join(_literal(f) for f in resolved) + "]"
            con.execute(f'CREATE VIEW "{name}" AS SELECT * FROM read_parquet({files_sql})')
        con.execute(f"SET allowed_paths = [{', '.join(_literal(f) for f in allowed)}]")
        con.execute("SET enable_external_access = false")
        con.execute(f"SET memory_limit = {_literal(MEMORY_LIMIT)}")
        con.execute(f"SET threads = {THREADS}")
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def check_select(sql: str) -> str:
    """``sql`` when it is exactly one SELECT statement (by DuckDB's parser), else UsageError."""
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
    return sql


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


def document_views(tables: DocTables) -> dict[str, Path]:
    """Every table of a parsed document -> its cached Parquet file (the document must be cached)."""
    from docintel.schema.tables import TABLES

    cache = (tables.manifest or {}).get("cache_dir")
    if not cache:
        raise UsageError("docintel sql reads the cached Parquet tables: parse with an artifacts folder")
    return {name: Path(cache) / f"{name}.parquet" for name in TABLES}


def query_document(
    tables: DocTables, sql: str, *, limit: int = DEFAULT_ROW_LIMIT, timeout: float = DEFAULT_TIMEOUT
) -> SqlResult:
    """Run one SELECT over the document's tables (views ``line_df``, ``toc_df`` ...)."""
    check_select(sql)  # refuse before opening anything
    con = guarded_connection(document_views(tables))
    try:
        return run_query(con, sql, limit=limit, timeout=timeout)
    finally:
        con.close()
