"""A DoclingDocument (docling-core) of a parsed document, so Docling users can load it.

``DoclingDocument.model_validate_json(text)`` (or ``load_from_json``) reads the output.
Every item carries provenance (page, bbox in Docling's bottom-left origin, charspan);
headings keep their level; tables carry their cells (header rows as column headers);
figures are pictures with their caption; running heads, footers and page numbers sit in
Docling's furniture layer. ``origin.binary_hash`` is Docling's hash of the PDF bytes, so
``docintel parse FILE.pdf --docling-json EXPORT.json`` maps the export back.
"""

from __future__ import annotations

import json

from docintel.errors import MissingDependencyError
from docintel.export.base import Block, Writer, _none, document_blocks
from docintel.schema.document import DocTables

INSTALL_HINT = "pip install 'docintel[docling]'"

#: line role -> Docling item label (headings, tables and figures are handled apart).
LABEL_BY_ROLE = {
    "body": "text",
    "title": "title",
    "caption": "caption",
    "footnote": "footnote",
    "header": "page_header",
    "footer": "page_footer",
    "page_number": "page_footer",
    "formula": "formula",
    "list_item": "list_item",
    "toc_entry": "text",
    "figure_text": "text",
    "table_text": "text",  # lines of a table whose cells were not found
    "heading_text": "text",  # heading-like lines that are not a section of toc_df
}


def _docling():
    try:
        from docling_core.types import doc as dc
        from docling_core.types.doc.document import DocumentOrigin
    except ImportError as exc:
        raise MissingDependencyError(f"--format docling-json needs docling-core: {INSTALL_HINT}") from exc
    return dc, DocumentOrigin


def _binary_hash(sha256_hex: str | None) -> int | None:
    """Docling's ``origin.binary_hash``: the SHA-256 of the file bytes, low 64 bits."""
    return int(sha256_hex, 16) & 0xFFFFFFFFFFFFFFFF if sha256_hex else None


class DoclingWriter(Writer):
    """``docintel export --format docling-json``."""

    name = "docling-json"
    suffix = ".docling.json"
    extra = "docling"

    def document(self, tables: DocTables):
        """The docling-core ``DoclingDocument`` of ``tables``."""
        dc, DocumentOrigin = _docling()
        m = tables.manifest or {}
        name = str(m.get("source_name") or tables.doc_id)
        stem = name[:-4] if name.lower().endswith(".pdf") else name
        origin = None
        bh = _binary_hash(m.get("source_sha256"))
        if bh is not None:
            origin = DocumentOrigin(mimetype="application/pdf", binary_hash=bh, filename=name)
        ddoc = dc.DoclingDocument(name=stem, origin=origin)
        heights: dict[int, float] = {}
        for p in tables.page_df.itertuples(index=False):
            heights[int(p.page)] = float(p.height)
            ddoc.add_page(page_no=int(p.page), size=dc.Size(width=float(p.width), height=float(p.height)))

        def prov(page: int, bbox, text: str = ""):
            if bbox is None or page not in heights:
                return None
            h = heights[page]
            box = dc.BoundingBox(
                l=bbox[0], t=h - bbox[1], r=bbox[2], b=h - bbox[3], coord_origin=dc.CoordOrigin.BOTTOMLEFT
            )
            return dc.ProvenanceItem(page_no=page, bbox=box, charspan=(0, len(text)))

        registry = {r.object_key: r for r in tables.object_registry.itertuples(index=False)}
        captions: dict[str, object] = {}
        placed: set[str] = set()
        lists: dict[tuple, object] = {}
        for b in document_blocks(tables, furniture=True):
            if b.kind == "heading":
                ddoc.add_heading(
                    b.text, level=max(1, min(b.level or 1, 100)), prov=prov(b.page, b.bbox, b.text)
                )
            elif b.kind == "table":
                ddoc.add_table(
                    data=self._table_data(dc, b, heights),
                    caption=captions.get(b.object_key),
                    prov=prov(b.page, b.bbox),
                )
                placed.add(b.object_key)
            else:
                self._text(ddoc, dc, b, prov, captions, lists)
            key = b.object_key
            reg = registry.get(key) if key else None
            # a figure becomes a picture right after its caption, with the caption attached
            if b.kind == "caption" and reg is not None and reg.object_type == "figure" and key not in placed:
                bbox = (reg.x0, reg.y0, reg.x1, reg.y1) if _none(reg.x0) is not None else b.bbox
                ddoc.add_picture(caption=captions.get(key), prov=prov(int(reg.page), bbox))
                placed.add(key)
        return ddoc

    @staticmethod
    def _text(ddoc, dc, b: Block, prov, captions: dict, lists: dict) -> None:
        label = LABEL_BY_ROLE.get(b.kind, "text")
        layer = dc.ContentLayer.FURNITURE if b.furniture else dc.ContentLayer.BODY
        p = prov(b.page, b.bbox, b.text)
        if label == "title":
            ddoc.add_title(b.text, prov=p, content_layer=layer)
        elif label == "list_item":
            key = (b.page, b.section_id)
            if key not in lists:
                lists.clear()
                lists[key] = ddoc.add_list_group()
            ddoc.add_list_item(b.text, prov=p, parent=lists[key], content_layer=layer)
            return
        else:
            item = ddoc.add_text(label=dc.DocItemLabel(label), text=b.text, prov=p, content_layer=layer)
            if label == "caption" and b.object_key and b.object_key not in captions:
                captions[b.object_key] = item
        lists.clear()

    @staticmethod
    def _table_data(dc, b: Block, heights: dict[int, float]):
        cells = []
        row_of = {}  # cell_df row index -> grid row (table_grid drops rows without cells)
        for c in b.cell_boxes:
            row_of.setdefault(int(c["row"]), None)
        for n, r in enumerate(sorted(row_of)):
            row_of[r] = n
        for c in b.cell_boxes:
            r, k = row_of[int(c["row"])], int(c["col"])
            text = b.rows[r][k] if r < len(b.rows) and k < len(b.rows[r]) else ""
            box = None
            page = int(c["page"]) if _none(c.get("page")) is not None else b.page
            if _none(c.get("x0")) is not None and page in heights:
                h = heights[page]
                box = dc.BoundingBox(
                    l=c["x0"], t=h - c["y0"], r=c["x1"], b=h - c["y1"], coord_origin=dc.CoordOrigin.BOTTOMLEFT
                )
            cells.append(
                dc.TableCell(
                    bbox=box,
                    text=text,
                    start_row_offset_idx=r,
                    end_row_offset_idx=r + 1,
                    start_col_offset_idx=k,
                    end_col_offset_idx=k + 1,
                    column_header=bool(_none(c.get("is_header"))),
                )
            )
        n_cols = max((len(r) for r in b.rows), default=0)
        return dc.TableData(num_rows=len(b.rows), num_cols=n_cols, table_cells=cells)

    def render(self, tables: DocTables) -> str:
        return json.dumps(self.document(tables).export_to_dict(), ensure_ascii=False) + "\n"


def to_docling_document(tables: DocTables):
    """The docling-core ``DoclingDocument`` of ``tables`` (needs the ``docling`` extra)."""
    return DoclingWriter().document(tables)


def to_docling_json(tables: DocTables) -> str:
    """The DoclingDocument as JSON text, loadable with ``DoclingDocument.model_validate_json``."""
    return DoclingWriter().render(tables)
