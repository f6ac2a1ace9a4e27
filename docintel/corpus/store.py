"""The corpus store interface and what both implementations share.

Two implementations, one set of queries: :class:`~docintel.corpus.embedded.EmbeddedStore`
(Parquet generations + DuckDB, no server; the default) and
:class:`~docintel.corpus.pgstore.PostgresStore` (row-level security by group, a SELECT-only
reading role, a statement timeout). Every read takes the user; the access filter is part of
the SQL (a join on ``access`` and ``members``), so nothing unreadable is ever ranked, counted
or returned. Writes go through :meth:`Store.commit`, one committer at a time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import pandas as pd

from docintel.corpus.blocks import BLOCK_COLUMNS

DOCUMENT_COLUMNS = [
    "doc_id",
    "file",
    "path",
    "sha256",
    "bytes",
    "pages",
    "title",
    "publication_id",
    "publication_base",
    "revision",
    "status",
    "content_sha",
    "duplicate_of",
    "aliases",
    "version",
    "supersedes",
    "superseded_by",
    "cache_dir",
    "parser_version",
    "ingested_at",
]
INT_COLUMNS = {"bytes", "pages", "version"}
ACCESS_COLUMNS = ["doc_id", "grp"]
MEMBER_COLUMNS = ["usr", "grp"]
#: The SQL subquery of the document ids the bound user (``:user``) may read.
READABLE_IDS = "SELECT a.doc_id FROM access a JOIN members m ON m.grp = a.grp WHERE m.usr = :user"


@dataclass(frozen=True)
class TableSpec:
    """One corpus table: its columns, key and how its rows live.

    ``scope``: ``corpus`` (documents, access, members: merged by the store itself),
    ``document`` (rows derived from one document, each with ``doc_id``: replaced whole when the
    document is re-ingested, dropped with it) or ``append`` (rows nobody re-derives, such as
    stored answers: upserted by key, never dropped by ingest). ``readable`` is the SQL predicate
    over the row alias ``t`` that admits the rows a user may read, ``{readable}`` standing for the
    readable document ids; None: a table with ``doc_id`` admits the readable documents' rows.
    """

    columns: list[str]
    key: tuple[str, ...]
    scope: str = "document"
    ints: frozenset[str] = frozenset()
    floats: frozenset[str] = frozenset()
    readable: str | None = None

    def predicate(self, readable_ids: str) -> str | None:
        """The access predicate over alias ``t``, ``readable_ids`` being a subquery or set."""
        if self.readable is not None:
            return self.readable.format(readable=readable_ids)
        if "doc_id" in self.columns:
            return f"t.doc_id IN ({readable_ids})"
        return None


_SPAN = frozenset({"page", "line_start", "line_end"})
_BOX = frozenset({"x0", "y0", "x1", "y1"})
#: Derived content inherits the most restrictive groups of its sources: every doc id in
#: ``t.source_docs`` must be readable (the same SQL in DuckDB and PostgreSQL; an empty list
#: splits differently in the two, hence the explicit no-source branch: the asker only).
_ALL_SOURCES = (
    "(COALESCE(t.source_docs, '') <> '' AND NOT EXISTS (SELECT 1 FROM"
    " unnest(string_to_array(t.source_docs, '|')) AS s(d) WHERE s.d NOT IN ({readable})))"
    " OR (COALESCE(t.source_docs, '') = '' AND t.usr = :user)"
)
#: Answers format 2 (session 13): ``source_docs`` holds every doc id anywhere in the answer
#: (:func:`docintel.corpus.provenance.source_doc_ids`); the answer row's ``versions`` JSON says so
#: with this key. Before it, ``source_docs`` counted citations, the winner and corpus references:
#: all a search or list answer names, but not a follow answer's links, linked evidence and
#: editions nor an agent's tool results. So an older row of any other route shows to its asker
#: only (who still needs every listed source); its edges follow their answer row.
ANSWERS_FORMAT_KEY = "answers_format"
_COMPLETE_SOURCES = (
    f"(strpos(COALESCE({{alias}}.versions, ''), '\"{ANSWERS_FORMAT_KEY}\"') > 0"
    " OR {alias}.route IN ('search', 'list'))"
)
_ANSWER_ROWS = f"({_ALL_SOURCES}) AND (t.usr = :user OR {_COMPLETE_SOURCES.format(alias='t')})"
#: An edge follows its answer row's format (edges carry no ``versions``).
_EDGE_ROWS = (
    f"({_ALL_SOURCES}) AND (t.usr = :user OR EXISTS (SELECT 1 FROM answers f"
    f" WHERE f.answer_id = t.answer_id AND {_COMPLETE_SOURCES.format(alias='f')}))"
)
_RECORDS = TableSpec(
    [
        "record_id",
        "record_type",
        "key",
        "fields",
        "text",
        "doc_id",
        "page",
        "line_start",
        "page_end",
        "line_end",
        "source",
        "note",
        "block_id",
    ],
    ("record_id",),
    "document",
    frozenset({"page", "line_start", "page_end", "line_end"}),
)
#: Every corpus table. A later table is one entry here plus, if ingest derives it from each
#: document, one line in :data:`docintel.corpus.derive.DERIVERS`.
TABLES: dict[str, TableSpec] = {
    "documents": TableSpec(DOCUMENT_COLUMNS, ("doc_id",), "corpus", frozenset(INT_COLUMNS)),
    "access": TableSpec(ACCESS_COLUMNS, ("doc_id", "grp"), "corpus"),
    "members": TableSpec(MEMBER_COLUMNS, ("usr", "grp"), "corpus", readable="t.usr = :user"),
    "blocks": TableSpec(BLOCK_COLUMNS, ("block_id",), "document", _SPAN, _BOX),
    # issue 13: typed records (records.RECORD_COLUMNS + the block each points at), and per
    # document and record type what the second count found (``source`` = "evidence")
    "records": _RECORDS,
    "record_evidence": _RECORDS,
    # issue 14: identifiers each block mentions (links.MENTION_COLUMNS + mention_id, block_id)
    "mentions": TableSpec(
        [
            "mention_id",
            "doc_id",
            "page",
            "line",
            "ident_id",
            "ident_full",
            "surface",
            "kind",
            "source",
            "revision",
            "block_id",
        ],
        ("mention_id",),
        "document",
        frozenset({"page", "line"}),
    ),
    # issue 14: the identifiers each document *is* (links.IDENTITY_COLUMNS)
    "identities": TableSpec(
        ["doc_id", "ident_id", "ident_full", "kind", "revision", "volume", "status", "evidence"],
        ("doc_id", "ident_id"),
        "document",
    ),
    # issue 16: stored answers and their provenance edges (docintel.corpus.provenance). A stored
    # answer and each of its edges show only to a user who may read ALL of its source documents
    # (``source_docs``, "|"-joined doc ids); an answer with no source only to the user who asked.
    "answers": TableSpec(
        [
            "answer_id",
            "conversation",
            "turn",
            "prev_answer",
            "usr",
            "groups",
            "question",
            "route",
            "route_proposed",
            "answer",
            "completeness",
            "backend",
            "versions",
            "doc_id",
            "payload",
            "source_docs",
            "created_at",
        ],
        ("answer_id",),
        "append",
        frozenset({"turn"}),
        readable=_ANSWER_ROWS,
    ),
    "answer_edges": TableSpec(
        [
            "edge_id",
            "answer_id",
            "usr",
            "kind",
            "target",
            "doc_id",
            "sha256",
            "block_id",
            "page",
            "line_start",
            "line_end",
            "quote",
            "quote_sha",
            "via",
            "detail",
            "status",
            "fate",
            "replaces",
            "source_docs",
            "created_at",
            "updated_at",
        ],
        ("edge_id",),
        "append",
        _SPAN,
        readable=_EDGE_ROWS,
    ),
}
#: Column lists by table (what most callers need).
TABLE_COLUMNS = {name: spec.columns for name, spec in TABLES.items()}
#: Tables the store merges itself; every other table is written from ``Change.rows``.
CORPUS_TABLES = ("documents", "access", "members")

READABLE_DOCS = (
    "SELECT d.* FROM documents d WHERE d.superseded_by IS NULL"
    f" AND d.doc_id IN ({READABLE_IDS}) ORDER BY d.file"
)
USER_GROUPS = "SELECT DISTINCT grp FROM members WHERE usr = :user ORDER BY grp"


def readable_rows_sql(name: str, where: str = "", order: str = "") -> str:
    """``SELECT t.* FROM name t`` limited to what ``:user`` may read (plus ``where``), both stores."""
    spec = TABLES[name]
    pred = spec.predicate(READABLE_IDS)
    if pred is None:
        raise KeyError(f"{name}: no access rule, so no user may read it")
    sql = f"SELECT t.* FROM {name} t WHERE ({pred})"
    if where:
        sql += f" AND ({where})"
    return sql + (f" ORDER BY {order}" if order else "")


def empty(name: str) -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="object") for c in TABLE_COLUMNS[name]})


@dataclass
class Change:
    """One commit: rows to upsert/add and documents whose derived rows leave the store.

    ``rows`` holds rows of every non-corpus table by name (blocks, and what later tables ingest
    derives). A document-scope table drops the rows of ``drop_docs`` and of ``rewrite_docs``
    (the documents whose rows this change re-derives, even when they now derive none) and of
    every document that has rows here, then adds the rows; an append-scope table upserts by key.
    """

    documents: pd.DataFrame = field(default_factory=lambda: empty("documents"))  # upsert by doc_id
    access: list[tuple[str, str]] = field(default_factory=list)  # (doc_id, group) added
    members: list[tuple[str, str]] = field(default_factory=list)  # (user, group) added
    rows: dict[str, pd.DataFrame] = field(default_factory=dict)  # table -> rows added/upserted
    drop_docs: set[str] = field(default_factory=set)  # doc_ids whose derived rows leave
    rewrite_docs: set[str] = field(default_factory=set)  # doc_ids whose derived rows are replaced

    @property
    def blocks(self) -> pd.DataFrame:
        return self.rows.get("blocks", empty("blocks"))

    @blocks.setter
    def blocks(self, df: pd.DataFrame) -> None:
        self.rows["blocks"] = df

    def add_rows(self, name: str, df: pd.DataFrame) -> None:
        if name not in TABLES or name in CORPUS_TABLES:
            raise KeyError(f"{name}: not a derived or appended corpus table")
        if df is None or df.empty:
            return
        old = self.rows.get(name)
        self.rows[name] = df if old is None or old.empty else pd.concat([old, df], ignore_index=True)

    def touched(self, name: str) -> set[str]:
        """The doc_ids whose rows of document-scope table ``name`` this change replaces."""
        new = self.rows.get(name)
        ids = set(new["doc_id"].dropna().astype(str)) if new is not None and not new.empty else set()
        return self.drop_docs | self.rewrite_docs | ids

    def is_empty(self) -> bool:
        return (
            self.documents.empty
            and not self.access
            and not self.members
            and all(df is None or df.empty for df in self.rows.values())
            and not self.drop_docs
            and not self.rewrite_docs
        )


def next_rows(name: str, old: pd.DataFrame, change: Change) -> pd.DataFrame | None:
    """Table ``name`` after ``change`` (None: unchanged), the same rule for both stores' callers."""
    spec = TABLES[name]
    new = change.rows.get(name)
    has_new = new is not None and not new.empty
    if spec.scope == "document":
        gone = change.touched(name)
        if not gone and not has_new:
            return None
        out = old[~old["doc_id"].astype(str).isin(gone)] if gone and not old.empty else old
    else:
        if not has_new:
            return None
        out = old
    if has_new:
        new = new.reindex(columns=spec.columns)
        if not out.empty:
            keys = set(map(tuple, new[list(spec.key)].astype(str).itertuples(index=False, name=None)))
            mask = [
                tuple(map(str, k)) not in keys for k in out[list(spec.key)].itertuples(index=False, name=None)
            ]
            out = out[mask]
        out = pd.concat([df for df in (out, new) if not df.empty] or [new], ignore_index=True)
    return out.reset_index(drop=True)


class Store(Protocol):
    """What every corpus path needs from a store. Reads take the user and filter inside the query."""

    kind: str
    location: str

    def generation(self) -> str: ...
    def writer_lock(self): ...  # context manager: one committer at a time
    def user_groups(self, user: str | None) -> list[str]: ...
    def readable_documents(self, user: str | None) -> pd.DataFrame: ...
    def blocks(self, user: str | None, block_ids: list[str]) -> pd.DataFrame: ...
    def rows(
        self, name: str, user: str | None, where: str = "", params: dict | None = None, order: str = ""
    ) -> pd.DataFrame: ...  # any table's rows ``user`` may read (``where``: SQL over alias ``t``)
    # writer side (ingest, index sync, administration): not user-facing
    def table(self, name: str) -> pd.DataFrame: ...
    def doc_blocks(self, doc_ids: list[str]) -> pd.DataFrame: ...
    def commit(self, change: Change) -> str: ...
    def close(self) -> None: ...


def merge_change(current: dict[str, pd.DataFrame], change: Change) -> dict[str, pd.DataFrame]:
    """The small tables after ``change`` (documents upserted, access/members added, deduplicated)."""
    docs = current["documents"]
    if not change.documents.empty:
        docs = pd.concat([docs[~docs["doc_id"].isin(change.documents["doc_id"])], change.documents])
        docs = docs[DOCUMENT_COLUMNS].sort_values("file").reset_index(drop=True)
    acc = pd.concat([current["access"], pd.DataFrame(change.access, columns=ACCESS_COLUMNS)])
    mem = pd.concat([current["members"], pd.DataFrame(change.members, columns=MEMBER_COLUMNS)])
    return {
        "documents": docs,
        "access": acc.drop_duplicates().sort_values(ACCESS_COLUMNS).reset_index(drop=True),
        "members": mem.drop_duplicates().sort_values(MEMBER_COLUMNS).reset_index(drop=True),
    }


def is_postgres(location: str) -> bool:
    return str(location).startswith(("postgresql://", "postgres://"))
