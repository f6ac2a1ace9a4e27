"""object_registry and cell_df: numbered tables, figures, equations, appendices, bibliography."""

from __future__ import annotations

import pandas as pd

from docintel.schema.tables import CELL_DF, OBJECT_REGISTRY


def build_objects(doc, line_df, page_df, toc_df, doc_id: str):
    """Return (object_registry, cell_df, line_df with caption roles / object_key)."""
    return OBJECT_REGISTRY.empty(), CELL_DF.empty(), line_df
