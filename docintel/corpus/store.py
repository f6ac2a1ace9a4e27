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
#: Tables a later issue fills (identifiers, mentions, records, answers) go in this dict too.
TABLE_COLUMNS = {
    "documents": DOCUMENT_COLUMNS,
    "access": ACCESS_COLUMNS,
    "members": MEMBER_COLUMNS,
    "blocks": BLOCK_COLUMNS,
}

#: The access filter, written once for both SQL dialects (``:user`` is the bound user).
READABLE_IDS = "SELECT a.doc_id FROM access a JOIN members m ON m.grp = a.grp WHERE m.usr = :user"
READABLE_DOCS = (
    "SELECT d.* FROM documents d WHERE d.superseded_by IS NULL"
    f" AND d.doc_id IN ({READABLE_IDS}) ORDER BY d.file"
)
USER_GROUPS = "SELECT DISTINCT grp FROM members WHERE usr = :user ORDER BY grp"


def empty(name: str) -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="object") for c in TABLE_COLUMNS[name]})


@dataclass
class Change:
    """One commit: rows to upsert/add and documents whose blocks leave the store."""

    documents: pd.DataFrame = field(default_factory=lambda: empty("documents"))  # upsert by doc_id
    access: list[tuple[str, str]] = field(default_factory=list)  # (doc_id, group) added
    members: list[tuple[str, str]] = field(default_factory=list)  # (user, group) added
    blocks: pd.DataFrame = field(default_factory=lambda: empty("blocks"))  # added
    drop_blocks_of: set[str] = field(default_factory=set)  # doc_ids

    def is_empty(self) -> bool:
        return self.documents.empty and not self.access and not self.members and self.blocks.empty


class Store(Protocol):
    """What every corpus path needs from a store. Reads take the user and filter inside the query."""

    kind: str
    location: str

    def generation(self) -> str: ...
    def writer_lock(self): ...  # context manager: one committer at a time
    def user_groups(self, user: str | None) -> list[str]: ...
    def readable_documents(self, user: str | None) -> pd.DataFrame: ...
    def blocks(self, user: str | None, block_ids: list[str]) -> pd.DataFrame: ...
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
