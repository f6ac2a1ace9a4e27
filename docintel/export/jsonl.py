"""JSON Lines of a parsed document's blocks, one object a line, for another search index.

Each line is one block in reading order (a paragraph, a heading, a caption, a list item,
a table) with where it is: ``doc_id``, ``page``, ``line_start``/``line_end`` (the line span
on that page, as ``line_df`` numbers lines), ``section_id``/``section_title`` (``toc_df``),
``object_key`` (``object_registry``), ``kind``, ``text`` and ``bbox`` ``[x0, y0, x1, y1]`` in
PDF points, top-left origin. A table's text is its rows, cells joined by `` | ``. Page
furniture is left out.
"""

from __future__ import annotations

import json

from docintel.export.base import Writer, document_blocks, section_titles
from docintel.schema.document import DocTables

#: The keys of every JSONL record, in order (documented in docs/contracts.md).
FIELDS = (
    "doc_id",
    "block",
    "page",
    "line_start",
    "line_end",
    "kind",
    "section_id",
    "section_title",
    "object_key",
    "level",
    "text",
    "bbox",
)


def records(tables: DocTables) -> list[dict]:
    """One dict per block (see the module docstring); blocks without text are left out."""
    titles = section_titles(tables)
    out = []
    for b in document_blocks(tables):
        if not b.text.strip():
            continue
        out.append(
            {
                "doc_id": tables.doc_id,
                "block": len(out) + 1,
                "page": b.page,
                "line_start": b.line_start,
                "line_end": b.line_end,
                "kind": b.kind,
                "section_id": b.section_id,
                "section_title": titles.get(b.section_id) if b.section_id else None,
                "object_key": b.object_key,
                "level": b.level,
                "text": b.text,
                "bbox": [round(v, 2) for v in b.bbox] if b.bbox else None,
            }
        )
    return out


class JsonlWriter(Writer):
    """``docintel export --format jsonl``."""

    name = "jsonl"
    suffix = ".jsonl"

    def render(self, tables: DocTables) -> str:
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records(tables))


def to_jsonl(tables: DocTables) -> str:
    """The document's blocks as JSON Lines (see the module docstring)."""
    return JsonlWriter().render(tables)
