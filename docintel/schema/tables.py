"""Every table's columns, dtypes and the schema version, in one place.

Readers and writers go through :data:`TABLES`; a Parquet file embeds
``SCHEMA_VERSION`` and a reader refuses a newer *major* version.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
import pyarrow as pa

SCHEMA_VERSION = "1.0"

#: Roles a text line can have.
LINE_ROLES = (
    "body",
    "title",
    "heading",
    "caption",
    "footnote",
    "header",
    "footer",
    "page_number",
    "table",
    "formula",
    "figure_text",
    "list_item",
    "toc_entry",
)
#: Kinds of numbered / registered objects.
OBJECT_TYPES = (
    "table",
    "figure",
    "equation",
    "appendix",
    "annex",
    "exhibit",
    "schedule",
    "attachment",
    "bib",
    "clause",
)
#: Kinds of references in ``cross_ref_df``.
REF_TYPES = (
    "section",
    "table",
    "figure",
    "equation",
    "annex",
    "appendix",
    "bib",
    "external",
    "clause",
    "definition",
    "page",
    "footnote",
    "unknown",
)
#: What produced a ``cross_ref_df`` row.
REF_SOURCES = ("native_link", "toc_anchor", "object_registry", "regex", "llm")
#: Where a ``toc_df`` row came from.
TOC_SOURCES = ("outline", "contents_page", "heading_detection", "provision", "docling")
#: How a page was parsed.
PARSE_METHODS = ("fast", "layout", "ocr", "docling", "failed")

_BBOX = [("x0", pa.float64()), ("y0", pa.float64()), ("x1", pa.float64()), ("y1", pa.float64())]


@dataclass(frozen=True)
class TableSpec:
    """One table of the relational parse: its name, grain and columns."""

    name: str
    grain: str
    columns: list[tuple[str, pa.DataType]]
    descriptions: dict[str, str] = field(default_factory=dict)

    @property
    def column_names(self) -> list[str]:
        return [c for c, _ in self.columns]

    @property
    def arrow_schema(self) -> pa.Schema:
        return pa.schema([pa.field(c, t) for c, t in self.columns])

    def empty(self) -> pd.DataFrame:
        """An empty frame with the right columns and dtypes."""
        return self.arrow_schema.empty_table().to_pandas()

    def conform(self, df: pd.DataFrame) -> pd.DataFrame:
        """Return ``df`` with exactly this table's columns, in order, with its dtypes.

        Missing columns are added as nulls; extra columns are an error so that
        a typo never silently drops data.
        """
        extra = set(df.columns) - set(self.column_names)
        if extra:
            raise ValueError(f"{self.name}: unknown columns {sorted(extra)}")
        out = df.copy()
        for c in self.column_names:
            if c not in out.columns:
                out[c] = None
        out = out[self.column_names]
        table = pa.Table.from_pandas(out, schema=self.arrow_schema, preserve_index=False)
        return table.to_pandas()

    def to_arrow(self, df: pd.DataFrame) -> pa.Table:
        return pa.Table.from_pandas(self.conform(df), schema=self.arrow_schema, preserve_index=False)


LINE_DF = TableSpec(
    "line_df",
    "one row per text line, in reading order",
    [
        ("doc_id", pa.string()),
        ("page", pa.int32()),
        ("line", pa.int32()),
        ("text", pa.string()),
        *_BBOX,
        ("block", pa.int32()),
        ("column", pa.int16()),
        ("font", pa.string()),
        ("size", pa.float32()),
        ("bold", pa.bool_()),
        ("italic", pa.bool_()),
        ("role", pa.string()),
        ("section_id", pa.string()),
        ("object_key", pa.string()),
        ("parse_method", pa.string()),
    ],
    {
        "doc_id": "sha256 of the PDF bytes, first 16 hex characters",
        "page": "physical page, 1-based",
        "line": "line number within the page, 1-based, in reading order",
        "text": "the line's text (ligatures kept as extracted)",
        "x0": "left edge in PDF points (origin top-left, as PyMuPDF)",
        "y0": "top edge in PDF points",
        "x1": "right edge in PDF points",
        "y1": "bottom edge in PDF points",
        "block": "text block number within the page (reading-order index of the block)",
        "column": "0-based text column the line sits in; -1 for full-width lines",
        "font": "dominant font name of the line",
        "size": "dominant font size in points",
        "bold": "dominant font is bold",
        "italic": "dominant font is italic",
        "role": "body, title, heading, caption, footnote, header, footer, page_number, "
        "table, formula, figure_text, list_item or toc_entry",
        "section_id": "toc_id of the section the line belongs to (null before the first section)",
        "object_key": "'<object_type>:<object_id>' when the line belongs to a registered object",
        "parse_method": "fast, layout, ocr or docling: which parser produced the line "
        "(ocr lines may contain recognition errors)",
    },
)

PAGE_DF = TableSpec(
    "page_df",
    "one row per page",
    [
        ("doc_id", pa.string()),
        ("page", pa.int32()),
        ("width", pa.float64()),
        ("height", pa.float64()),
        ("rotation", pa.int16()),
        ("n_lines", pa.int32()),
        ("n_chars", pa.int32()),
        ("n_words", pa.int32()),
        ("n_images", pa.int32()),
        ("image_area", pa.float64()),
        ("image_coverage", pa.float64()),
        ("n_drawings", pa.int32()),
        ("has_text_layer", pa.bool_()),
        ("image_only", pa.bool_()),
        ("n_links", pa.int32()),
        ("n_columns", pa.int16()),
        ("printed_label", pa.string()),
        ("label_source", pa.string()),
        ("parse_method", pa.string()),
        ("escalation_signals", pa.string()),
        ("parse_seconds", pa.float64()),
        ("error", pa.string()),
    ],
    {
        "page": "physical page, 1-based",
        "width": "page width in points",
        "height": "page height in points",
        "rotation": "page rotation in degrees",
        "n_lines": "text lines on the page",
        "n_chars": "characters on the page (excluding whitespace)",
        "n_words": "words on the page",
        "n_images": "raster images placed on the page",
        "image_area": "area covered by images, in square points (clipped to the page)",
        "image_coverage": "image_area / page area, 0..1",
        "n_drawings": "vector drawing paths (a table grid or a chart shows up here)",
        "has_text_layer": "the page has extractable text",
        "image_only": "no text layer of its own, only images: its lines (if any) come from OCR "
        "(parse_method ocr) or it is empty when Tesseract is not installed",
        "n_links": "native link annotations on the page",
        "n_columns": "text columns detected on the page",
        "printed_label": "the page number printed on the page (e.g. '8' on physical page 12), "
        "null when none is printed",
        "label_source": "printed (read off the page text), inferred (filled from the offset its neighbours agree on), pdf_labels (/PageLabels, used only when they agree with the printed numbers) or null",
        "parse_method": "fast, layout, ocr (an image-only page read by Tesseract; its text may hold "
        "recognition errors), docling or failed",
        "escalation_signals": "'; '-joined signals that decided the parse method "
        "(e.g. 'caption_without_structure: Table 3')",
        "parse_seconds": "time spent parsing this page",
        "error": "the error message when the page failed to parse",
    },
)

TOC_DF = TableSpec(
    "toc_df",
    "one row per section",
    [
        ("doc_id", pa.string()),
        ("toc_id", pa.string()),
        ("number", pa.string()),
        ("title", pa.string()),
        ("level", pa.int16()),
        ("parent_id", pa.string()),
        ("page_start", pa.int32()),
        ("line_start", pa.int32()),
        ("page_end", pa.int32()),
        ("line_end", pa.int32()),
        ("source", pa.string()),
    ],
    {
        "toc_id": "the section number ('3.2.2', '(q)', 'A') when it has one, else a stable "
        "synthetic id ('s12')",
        "number": "the printed section number, null for unnumbered sections",
        "title": "the heading text without its number",
        "level": "depth, 1 = top level",
        "parent_id": "toc_id of the enclosing section, null at the top",
        "page_start": "page of the heading",
        "line_start": "line of the heading on page_start",
        "page_end": "last page of the section (before the next section of the same or higher level)",
        "line_end": "last line of the section on page_end",
        "source": "outline, contents_page, heading_detection, provision (a numbered clause / "
        "paragraph in body type; title '' when it has none) or docling",
    },
)

OBJECT_REGISTRY = TableSpec(
    "object_registry",
    "one row per numbered table, figure, equation, appendix/annex or bibliography entry",
    [
        ("doc_id", pa.string()),
        ("object_key", pa.string()),
        ("object_type", pa.string()),
        ("object_id", pa.string()),
        ("label", pa.string()),
        ("caption", pa.string()),
        ("page", pa.int32()),
        ("line_start", pa.int32()),
        ("line_end", pa.int32()),
        ("page_end", pa.int32()),
        *_BBOX,
        ("n_rows", pa.int32()),
        ("n_cols", pa.int32()),
        ("source", pa.string()),
    ],
    {
        "object_key": "'<object_type>:<object_id>', unique within the document",
        "object_type": "table, figure, equation, appendix, annex, exhibit, schedule, attachment, "
        "bib or clause",
        "object_id": "'3', 'A', '18', '(q)' ... (for an unnumbered object a synthetic id)",
        "label": "how the document names it: 'Table 3', 'Appendix A', '[18]'",
        "caption": "the caption or entry text",
        "page": "page of the object (its caption for tables and figures)",
        "line_start": "first line of the object's caption/entry on page",
        "line_end": "last line of the object's caption/entry (on page_end)",
        "page_end": "last page of the object",
        "x0": "bbox of the object's region (caption plus body when found)",
        "n_rows": "rows of the table when its cells were found (see cell_df)",
        "n_cols": "columns of the table when its cells were found",
        "source": "caption, layout, outline, heading, bibliography or docling",
    },
)

CELL_DF = TableSpec(
    "cell_df",
    "one row per cell of a registered table",
    [
        ("doc_id", pa.string()),
        ("object_key", pa.string()),
        ("page", pa.int32()),
        ("row", pa.int32()),
        ("col", pa.int32()),
        ("text", pa.string()),
        ("is_header", pa.bool_()),
        ("row_label", pa.string()),
        *_BBOX,
    ],
    {
        "object_key": "the table's key in object_registry",
        "row": "0-based row index within the table",
        "col": "0-based column index",
        "text": "the cell text",
        "is_header": "the cell belongs to a header row",
        "row_label": "the row's label (its first non-empty cell), so 'row (E)' selects rows",
    },
)

CROSS_REF_DF = TableSpec(
    "cross_ref_df",
    "one row per reference mention",
    [
        ("doc_id", pa.string()),
        ("origin_page", pa.int32()),
        ("origin_line", pa.int32()),
        ("anchor_text", pa.string()),
        ("ref_type", pa.string()),
        ("ref_target", pa.string()),
        ("sub_selector", pa.string()),
        ("target_page", pa.int32()),
        ("target_line", pa.int32()),
        ("source", pa.string()),
    ],
    {
        "origin_page": "page where the reference appears (for toc anchors and registry rows: "
        "the page of the heading/caption itself)",
        "origin_line": "line where the reference appears",
        "anchor_text": "the mention as written: 'see Section 5.2', 'Table 3 row (E)', '[18]'",
        "ref_type": "section, table, figure, equation, annex, appendix, bib, external, clause, "
        "definition, page, footnote or unknown",
        "ref_target": "polymorphic key read with ref_type: section/clause -> toc_df.toc_id; "
        "table/figure/... -> object_registry.object_id; external -> the document's name",
        "sub_selector": "what to select inside the target: 'row (E)', 'bottom line', 'paragraph (1)'",
        "target_page": "resolved page when known",
        "target_line": "resolved line when known",
        "source": "native_link, toc_anchor, object_registry, regex or llm",
    },
)

TABLES: dict[str, TableSpec] = {
    t.name: t for t in (LINE_DF, PAGE_DF, TOC_DF, OBJECT_REGISTRY, CELL_DF, CROSS_REF_DF)
}


def schema_major(version: str) -> int:
    return int(str(version).split(".")[0])
