"""`docintel sql`: read-only SQL over a document's tables, in a DuckDB that cannot reach out.

The guard itself (connection lock-down, statement checks, the per-user corpus slices on both
stores) is :mod:`docintel.corpus.tools_sql`, re-exported here; this module adds one document's
tables as views (:func:`query_document`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from docintel.corpus.tools_sql import (  # noqa: F401 - the public guard, re-exported
    DEFAULT_ROW_LIMIT,
    DEFAULT_TIMEOUT,
    INSTALL_HINT,
    MEMORY_LIMIT,
    PG_REFUSED_FUNCTIONS,
    THREADS,
    SqlResult,
    check_postgres_select,
    check_select,
    corpus_connection,
    guarded_connection,
    parse_tree,
    query_corpus,
    query_postgres,
    run_query,
    schema_text,
)
from docintel.errors import UsageError

if TYPE_CHECKING:
    from docintel.schema.document import DocTables


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
