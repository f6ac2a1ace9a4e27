"""Every table's columns, dtypes and the schema version, in one place.

Readers and writers go through :data:`TABLES`; a Parquet file embeds
``SCHEMA_VERSION`` and a reader refuses a newer *major* version.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the contracts import without pandas/pyarrow; frames are built on demand
    import pandas as pd
    import pyarrow as pa

from docintel.schema import kinds

SCHEMA_VERSION = "1.0"

#: Roles a text line can have, kinds of objects and references: declared once in ``kinds``.
LINE_ROLES = kinds.LINE_ROLES
OBJECT_TYPES = kinds.OBJECT_TYPES
REF_TYPES = kinds.TABLE_REF_TYPES
REF_SOURCES = kinds.REF_SOURCES
#: Where a ``toc_df`` row came from.
TOC_SOURCES = ("outline", "contents_page", "heading_detection", "provision", "docling")
#: How a page was parsed.
PARSE_METHODS = ("fast", "layout", "ocr", "docling", "failed")

_BBOX = [("x0", "double"), ("y0", "double"), ("x1", "double"), ("y1", "double")]


@dataclass(frozen=True)
class TableSpec:
    """One table of the relational parse: its name, grain and columns."""

    name: str
    grain: str
    #: (name, Arrow type name as pyarrow prints it: string, int32, int16, double, float, bool)
    columns: list[tuple[str, str]]
    descriptions: dict[str, str] = field(default_factory=dict)

    @property
    def column_names(self) -> list[str]:
        return [c for c, _ in self.columns]

    @property
    def arrow_schema(self) -> pa.Schema:
        import pyarrow as pa

        types = {"string": pa.string, "int32": pa.int32, "int16": pa.int16, "double": pa.float64,
                 "float": pa.float32, "bool": pa.bool_}  # fmt: skip
        return pa.schema([pa.field(c, types[t]()) for c, t in self.columns])

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
        import pyarrow as pa

        table = pa.Table.from_pandas(out, schema=self.arrow_schema, preserve_index=False)
        return table.to_pandas()

    def to_arrow(self, df: pd.DataFrame) -> pa.Table:
        import pyarrow as pa

        return pa.Table.from_pandas(self.conform(df), schema=self.arrow_schema, preserve_index=False)


LINE_DF = TableSpec(
    "line_df",
    "one row per text line, in reading order",
    [
        ("doc_id", "string"),
        ("page", "int32"),
        ("line", "int32"),
        ("text", "string"),
        *_BBOX,
        ("block", "int32"),
        ("column", "int16"),
        ("font", "string"),
        ("size", "float"),
        ("bold", "bool"),
        ("italic", "bool"),
        ("role", "string"),
        ("section_id", "string"),
        ("object_key", "string"),
        ("parse_method", "string"),
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
        "block": "text block number within the page (reading-order index of MuPDF's text block; a vector path such as a rule or a cell fill ends a block)",
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
        ("doc_id", "string"),
        ("page", "int32"),
        ("width", "double"),
        ("height", "double"),
        ("rotation", "int16"),
        ("n_lines", "int32"),
        ("n_chars", "int32"),
        ("n_words", "int32"),
        ("n_images", "int32"),
        ("image_area", "double"),
        ("image_coverage", "double"),
        ("n_drawings", "int32"),
        ("has_text_layer", "bool"),
        ("image_only", "bool"),
        ("n_links", "int32"),
        ("n_columns", "int16"),
        ("printed_label", "string"),
        ("label_source", "string"),
        ("parse_method", "string"),
        ("escalation_signals", "string"),
        ("parse_seconds", "double"),
        ("error", "string"),
        ("text_gaps", "string"),
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
        "n_drawings": "vector paths MuPDF's text device records (touching same-colour rectangles merged; a table grid or a chart shows up here); with the docling backend, the count of PyMuPDF's drawings",
        "has_text_layer": "the page has extractable text",
        "image_only": "its content is raster images: its own text layer holds at most furniture or a "
        "short note (so has_text_layer can be true); the rest of its lines come from OCR (parse_method "
        "ocr) or are missing when OCR did not run",
        "n_links": "native link annotations on the page",
        "n_columns": "text columns detected on the page",
        "printed_label": "the page number printed on the page (e.g. '8' on physical page 12), "
        "null when none is printed",
        "label_source": "printed (read off the page text), inferred (filled from the offset its neighbours agree on), pdf_labels (/PageLabels, used only when they agree with the printed numbers) or null",
        "text_gaps": "what the page shows that its text layer does not hold, '; '-joined, null when "
        "nothing: garbled_text (unmappable characters), vector_glyphs (text drawn as paths, e.g. section "
        "numbers), raster_region (images with no text over them on a page with a text layer)",
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
        ("doc_id", "string"),
        ("toc_id", "string"),
        ("number", "string"),
        ("title", "string"),
        ("level", "int16"),
        ("parent_id", "string"),
        ("page_start", "int32"),
        ("line_start", "int32"),
        ("page_end", "int32"),
        ("line_end", "int32"),
        ("source", "string"),
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
    "one row per numbered table, figure, equation, appendix/annex or bibliography entry, "
    "and per table found without a caption",
    [
        ("doc_id", "string"),
        ("object_key", "string"),
        ("object_type", "string"),
        ("object_id", "string"),
        ("label", "string"),
        ("caption", "string"),
        ("page", "int32"),
        ("line_start", "int32"),
        ("line_end", "int32"),
        ("page_end", "int32"),
        *_BBOX,
        ("n_rows", "int32"),
        ("n_cols", "int32"),
        ("source", "string"),
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
        "source": "caption, layout, outline, heading, bibliography, docling or table_detection "
        "(a table found without a caption: object_id 'u1', 'u2' ..., no label)",
    },
)

CELL_DF = TableSpec(
    "cell_df",
    "one row per cell of a registered table",
    [
        ("doc_id", "string"),
        ("object_key", "string"),
        ("page", "int32"),
        ("row", "int32"),
        ("col", "int32"),
        ("text", "string"),
        ("is_header", "bool"),
        ("row_label", "string"),
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
        ("doc_id", "string"),
        ("origin_page", "int32"),
        ("origin_line", "int32"),
        ("anchor_text", "string"),
        ("ref_type", "string"),
        ("ref_target", "string"),
        ("sub_selector", "string"),
        ("target_page", "int32"),
        ("target_line", "int32"),
        ("source", "string"),
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
