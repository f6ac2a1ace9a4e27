"""cross_ref_df: free rows at parse time, and the regex extractor the loop calls on demand."""

from __future__ import annotations

import pandas as pd

from docintel.schema.tables import CROSS_REF_DF


def parse_time_refs(doc, line_df, toc_df, registry, doc_id: str) -> pd.DataFrame:
    """Native links, toc anchors and registry rows (source native_link/toc_anchor/object_registry)."""
    return CROSS_REF_DF.empty()


def extract_references(lines: pd.DataFrame, doc_id: str) -> pd.DataFrame:
    """Regex extraction of in-prose references from ``lines`` (source='regex')."""
    return CROSS_REF_DF.empty()
