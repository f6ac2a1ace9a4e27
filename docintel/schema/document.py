"""The parsed document: the relational tables plus its manifest."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from docintel.schema.tables import TABLES

if TYPE_CHECKING:  # frames are pandas, but the contract imports without it
    import pandas as pd


@dataclass
class DocTables:
    """Every table of one parsed PDF, as pandas DataFrames.

    ``manifest`` records the source (path, sha256, size), the parser, its
    version and options, per-table row counts and any warnings.
    """

    doc_id: str
    line_df: pd.DataFrame
    page_df: pd.DataFrame
    toc_df: pd.DataFrame
    object_registry: pd.DataFrame
    cell_df: pd.DataFrame
    cross_ref_df: pd.DataFrame
    manifest: dict[str, Any] = field(default_factory=dict)
    path: str | None = None

    def table(self, name: str) -> pd.DataFrame:
        if name not in TABLES:
            raise KeyError(f"unknown table {name!r}; known: {', '.join(TABLES)}")
        return getattr(self, name)

    def tables(self) -> dict[str, pd.DataFrame]:
        return {name: getattr(self, name) for name in TABLES}

    def page_text(self, page: int) -> str:
        lines = self.line_df[self.line_df["page"] == page]
        return "\n".join(lines["text"].tolist())
