"""The embedded store: corpus tables as Parquet generations, queried with DuckDB. No server.

Layout::

    STORE/CURRENT                 name of the readable generation (swapped with os.replace)
    STORE/tables/<gen>/*.parquet  documents, access, members, blocks (one committer writes a
                                  whole new generation; unchanged tables are hard links)
    STORE/docs/                   the per-document Parquet cache (docintel.parsing), reused as is
    STORE/index/                  the keyword index (docintel.corpus.index)
    STORE/answers/<seq>/*.parquet append-only tables (stored answers and their edges): one
                                  part per commit, renamed into place whole; ``<seq>c`` is a
                                  compaction holding every row up to it

A reader opens the generation CURRENT names and keeps it: an ingest that is interrupted, or
still running, never shows it a half-written corpus. Append-only rows do not make generations
(a burst of stored answers would otherwise churn them and prune a reader's files): each query
reads the parts present when it starts, each part whole or not at all, newest row per key.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
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
    merge_change,
    next_rows,
    readable_rows_sql,
)
from docintel.errors import MissingDependencyError, UsageError

KEEP_GENERATIONS = 3
#: Tables written as append-only parts instead of generations (``TableSpec.scope == "append"``).
APPEND_TABLES = tuple(n for n, spec in TABLES.items() if spec.scope == "append")
PARTS = "answers"  # DESIGN: STORE/answers/, append-only stored answers and their edges
#: Parts after the newest compaction before the next commit compacts them into one.
COMPACT_PARTS = 64


def arrow_schema(name: str):
    import pyarrow as pa

    spec = TABLES[name]
    return pa.schema(
        [
            (c, pa.int64() if c in spec.ints else pa.float64() if c in spec.floats else pa.string())
            for c in spec.columns
        ]
    )


def write_parquet(df: pd.DataFrame, name: str, path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = arrow_schema(name)
    df = df.reindex(columns=TABLE_COLUMNS[name])
    df = df.astype(object).where(df.notna(), None)
    pq.write_table(pa.Table.from_pandas(df, schema=schema, preserve_index=False), path)


@contextlib.contextmanager
def writer_lock(root: Path):
    """One committer per store: an exclusive lock on STORE/.lock (released on exit or crash)."""
    import fcntl

    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UsageError(
                f"{root}: another ingest is writing this store; try again when it ends"
            ) from None
        yield


def _link(prev: Path, dest: Path) -> None:
    """An unchanged table in the next generation: shared with the previous one, not copied."""
    try:
        os.link(prev, dest)
    except OSError:
        shutil.copy2(prev, dest)


class EmbeddedStore:
    kind = "embedded"

    def __init__(self, root: Path, *, create: bool = False, docs_dir: str | Path | None = None):
        self.root = Path(root)
        self.location = str(self.root)
        if not create and not (self.root / "CURRENT").exists():
            raise UsageError(
                f"{self.root}: not a corpus store (run `docintel ingest DIR --corpus {self.root}`)"
            )
        self.docs_dir = Path(docs_dir) if docs_dir else self.root / "docs"
        self.index_dir = self.root / "index"
        self._con = None
        self._parts_seen: tuple[str, ...] | None = None
        self._blocks_loaded = None  # the connection whose _blocks_mem is loaded
        self._gen = self._read_current()

    def _read_current(self) -> str | None:
        try:
            return (self.root / "CURRENT").read_text().strip() or None
        except FileNotFoundError:
            return None

    def generation(self) -> str:
        return self._gen or "0"

    def writer_lock(self):
        """The store's writer lock; once taken, this store reads the latest generation, so what a
        committer computes its change from is what it commits over."""

        @contextlib.contextmanager
        def locked():
            with writer_lock(self.root):
                self.refresh()
                yield

        return locked()

    def refresh(self) -> str:
        """Move to the generation CURRENT names now (another process may have committed)."""
        cur = self._read_current()
        if cur != self._gen:
            self.close()
            self._gen = cur
        return self.generation()

    def _connect(self):
        if self._con is not None:
            return self._con
        try:
            import duckdb
        except ImportError:
            raise MissingDependencyError("corpus mode needs DuckDB: pip install 'docintel[corpus]'") from None
        con = duckdb.connect(":memory:")
        for name in TABLE_COLUMNS:
            f = self.root / "tables" / str(self._gen) / f"{name}.parquet"
            if self._gen and f.exists():
                con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{f.as_posix()}')")
            else:
                import pyarrow as pa

                con.register(f"_{name}", pa.Table.from_pylist([], schema=arrow_schema(name)))
                con.execute(f"CREATE VIEW {name} AS SELECT * FROM _{name}")
        self._con = con
        self._parts_seen = None
        return con

    # -- append-only parts --
    def _part_names(self) -> tuple[str, ...]:
        """The parts a reader reads now, oldest first: from the newest compaction on."""
        try:
            names = sorted(n for n in os.listdir(self.root / PARTS) if not n.startswith("."))
        except FileNotFoundError:
            return ()
        full = [i for i, n in enumerate(names) if n.endswith("c")]
        return tuple(names[full[-1] :] if full else names)

    def table_sql(self, name: str) -> str | None:
        """A FROM source (parenthesised SELECT, absolute paths) of table ``name`` as of now;
        None when nothing was ever written to it. Append tables: the newest row per key of the
        parts (and of the generation's file, until a compaction has taken it in)."""
        gen = self.root / "tables" / str(self._gen) / f"{name}.parquet" if self._gen else None
        gen = gen if gen is not None and gen.exists() else None
        if name not in APPEND_TABLES:
            return f"(SELECT * FROM read_parquet('{gen.resolve().as_posix()}'))" if gen else None
        names = self._part_names()
        parts = (self.root / PARTS).absolute()
        files = [(parts / n / f"{name}.parquet").as_posix() for n in names]
        files = [f for f in files if os.path.exists(f)]
        srcs = []
        if gen is not None and not (names and names[0].endswith("c")):
            srcs.append(f"SELECT *, 0 AS _p, '' AS _f FROM read_parquet('{gen.resolve().as_posix()}')")
        if files:
            listed = ", ".join(f"'{f}'" for f in files)
            srcs.append(
                f"SELECT * EXCLUDE (filename), 1 AS _p, filename AS _f FROM read_parquet([{listed}], filename = true)"
            )
        if not srcs:
            return None
        cols = ", ".join(TABLE_COLUMNS[name])
        key = ", ".join(TABLES[name].key)
        union = " UNION ALL BY NAME ".join(srcs)
        return (
            f"(SELECT {cols} FROM (SELECT *, row_number() OVER (PARTITION BY {key} ORDER BY _p DESC, _f DESC)"
            f" AS _rank FROM ({union})) WHERE _rank = 1)"
        )

    def _sync_parts(self, con) -> None:
        """Point the append tables' views at the parts present now (a listing per query)."""
        names = self._part_names()
        if names == self._parts_seen:
            return
        for name in APPEND_TABLES:
            src = self.table_sql(name)
            if src is not None:
                con.execute(f"CREATE OR REPLACE VIEW {name} AS SELECT * FROM {src}")
        self._parts_seen = names

    def _append(self, rows: dict[str, pd.DataFrame]) -> None:
        """One part holding ``rows`` (append tables), renamed into place whole."""
        parts = self.root / PARTS
        parts.mkdir(parents=True, exist_ok=True)
        self._write_part(parts, rows, "")
        if len(self._part_names()) > COMPACT_PARTS:
            self._compact()

    def _write_part(self, parts: Path, rows: dict[str, pd.DataFrame], suffix: str) -> str:
        import uuid

        tmp = parts / f".tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        tmp.mkdir()
        try:
            for name, df in rows.items():
                key = list(TABLES[name].key)
                write_parquet(df.drop_duplicates(subset=key, keep="last"), name, tmp / f"{name}.parquet")
            while True:
                have = [n for n in os.listdir(parts) if not n.startswith(".")]
                seq = max((int(n.rstrip("c")) for n in have), default=0) + 1
                dest = parts / f"{seq:09d}{suffix}"
                try:
                    os.rename(tmp, dest)  # the atomic step; a taken number: take the next
                    return dest.name
                except OSError:
                    if not dest.exists():
                        raise
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise

    def _compact(self) -> None:
        """Every append table's current rows as one part ``<seq>c``; the parts before the
        previous compaction go (a reader listing now starts at the new one, and one that
        listed before it still finds every file it listed)."""
        parts = self.root / PARTS
        before = sorted(n for n in os.listdir(parts) if not n.startswith("."))
        rows = {name: self.table(name) for name in APPEND_TABLES}
        self._write_part(parts, rows, "c")
        full = [i for i, n in enumerate(before) if n.endswith("c")]
        for n in before[: full[-1]] if full else []:
            shutil.rmtree(parts / n, ignore_errors=True)

    def _query(self, sql: str, params: dict | None = None) -> pd.DataFrame:
        import re

        import duckdb

        sql = re.sub(r"(?<![:\w]):(\w+)", r"$\1", sql)  # :name -> $name (DuckDB's named parameters)
        con = self._connect()
        self._sync_parts(con)
        try:
            return con.execute(sql, params or {}).df()
        except duckdb.IOException:  # a part compacted away under this query: list again, once
            self._parts_seen = None
            self._sync_parts(con)
            return con.execute(sql, params or {}).df()

    # -- reads (every one takes the user; the filter is in the SQL) --
    def user_groups(self, user: str | None) -> list[str]:
        return self._query(USER_GROUPS, {"user": user or ""})["grp"].tolist()

    def readable_documents(self, user: str | None) -> pd.DataFrame:
        return self._query(READABLE_DOCS, {"user": user or ""})

    def _blocks_held(self) -> str:
        """The generation's blocks as an in-memory DuckDB table, loaded on the first block read
        of this connection: a look-up then costs a few ms instead of decoding the whole Parquet
        file (text included) on every ask, which grew with the corpus. A generation never
        changes, so the copy is exact until the connection moves to the next one."""
        con = self._connect()
        if self._blocks_loaded is not con:
            con.execute("CREATE OR REPLACE TEMP TABLE _blocks_mem AS SELECT * FROM blocks")
            self._blocks_loaded = con
        return "_blocks_mem"

    def blocks(self, user: str | None, block_ids: list[str]) -> pd.DataFrame:
        sql = (
            f"SELECT b.* FROM {self._blocks_held()} b WHERE list_contains(:ids, b.block_id)"
            f" AND b.doc_id IN ({READABLE_IDS})"
        )
        return self._query(sql, {"user": user or "", "ids": list(block_ids)})

    def rows(
        self, name: str, user: str | None, where: str = "", params: dict | None = None, order: str = ""
    ) -> pd.DataFrame:
        """Rows of table ``name`` that ``user`` may read; ``where`` is SQL over alias ``t``."""
        return self._query(readable_rows_sql(name, where, order), {**(params or {}), "user": user or ""})

    # -- writer side --
    def table(self, name: str) -> pd.DataFrame:
        if name not in TABLE_COLUMNS:
            raise KeyError(name)
        return self._query(f"SELECT * FROM {name}")

    def doc_blocks(self, doc_ids: list[str]) -> pd.DataFrame:
        return self._query(
            f"SELECT * FROM {self._blocks_held()} WHERE list_contains(:ids, doc_id)", {"ids": list(doc_ids)}
        )

    def commit(self, change: Change) -> str:
        """Write a new generation and swap CURRENT to it (the old one stays readable until
        then); rows of append tables go to one new part instead, so a commit of stored answers
        alone keeps the generation."""
        self.refresh()  # the next generation follows the newest one, not the one this reader opened
        appended = {
            n: df for n, df in change.rows.items() if n in APPEND_TABLES and df is not None and not df.empty
        }
        if appended:
            rest = {n: df for n, df in change.rows.items() if n not in APPEND_TABLES}
            change = dataclasses.replace(change, rows=rest)
        gen = self._commit_generation(change) if not (self._gen and change.is_empty()) else self._gen
        if appended:  # after the generation: a reader never sees an edge before its document change
            self._append(appended)
        return gen

    def _commit_generation(self, change: Change) -> str:
        current = {n: self.table(n) for n in CORPUS_TABLES}
        small = merge_change(current, change)
        gen = f"{int(self._gen or 0) + 1:06d}"
        tables = self.root / "tables"
        tables.mkdir(parents=True, exist_ok=True)
        tmp = tables / f".tmp-{gen}-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        try:
            same = {
                "documents": change.documents.empty,
                "access": not change.access,
                "members": not change.members,
            }
            for name, df in small.items():
                prev = tables / str(self._gen) / f"{name}.parquet" if self._gen else None
                if same[name] and prev is not None and prev.exists():
                    _link(prev, tmp / f"{name}.parquet")
                else:
                    write_parquet(df, name, tmp / f"{name}.parquet")
            for name in TABLES:
                if name in CORPUS_TABLES:
                    continue
                prev = tables / str(self._gen) / f"{name}.parquet" if self._gen else None
                new = change.rows.get(name)
                untouched = (new is None or new.empty) and (
                    TABLES[name].scope != "document" or not change.touched(name)
                )
                # an untouched table is not read at all: a stored answer's commit costs its own
                # rows, not a pass over every block of the corpus
                after = None if untouched else next_rows(name, self.table(name), change)
                if after is None and prev is not None and prev.exists():
                    _link(prev, tmp / f"{name}.parquet")
                elif after is not None:
                    write_parquet(after, name, tmp / f"{name}.parquet")
                # else: a table nobody has written yet stays absent (read as empty)
            tmp.rename(tables / gen)
            pointer = self.root / "CURRENT.tmp"
            pointer.write_text(gen + "\n")
            os.replace(pointer, self.root / "CURRENT")  # the atomic step
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        self.close()
        self._gen = gen
        self._prune()
        return gen

    def _prune(self) -> None:
        gens = sorted(
            p for p in (self.root / "tables").iterdir() if p.is_dir() and not p.name.startswith(".")
        )
        for old in gens[:-KEEP_GENERATIONS]:
            shutil.rmtree(old, ignore_errors=True)

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None
