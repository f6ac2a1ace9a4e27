"""Exports a user can take elsewhere: Markdown, DoclingDocument JSON, JSON Lines of the blocks.

Writers take the :class:`~docintel.schema.document.DocTables` that ``docintel.parse`` returns
and never import the API; :func:`export` is the one convenience that parses a path first.

    from docintel.export import export, to_markdown
    text = export("report.pdf", format="markdown")
    text = to_markdown(docintel.parse("report.pdf"))
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from docintel.errors import UsageError

if TYPE_CHECKING:  # the CLI reads FORMATS at start-up: importing this package stays cheap (no pandas)
    from docintel.export.base import Writer
    from docintel.schema.document import DocTables

__all__ = [
    "FORMATS",
    "export",
    "get_writer",
    "to_docling_document",
    "to_docling_json",
    "to_jsonl",
    "to_markdown",
]


def _markdown() -> Writer:
    from docintel.export.markdown import MarkdownWriter

    return MarkdownWriter()


def _docling() -> Writer:
    from docintel.export.docling_json import DoclingWriter

    return DoclingWriter()


def _jsonl() -> Writer:
    from docintel.export.jsonl import JsonlWriter

    return JsonlWriter()


#: format name -> writer factory (the Docling writer imports docling-core only when used).
FORMATS = {"markdown": _markdown, "docling-json": _docling, "jsonl": _jsonl}


def get_writer(format: str) -> Writer:
    """The writer of ``format``; an unknown name is an error listing the known ones."""
    if format not in FORMATS:
        raise UsageError(f"unknown export format {format!r}; known formats: {', '.join(FORMATS)}")
    return FORMATS[format]()


def export(source: str | Path | DocTables, *, format: str = "markdown", **parse_options) -> str:
    """``source`` (a PDF path, parsed first with ``parse_options``, or DocTables) as ``format``."""
    writer = get_writer(format)
    if isinstance(source, str | Path):
        from docintel.api import parse  # the one place here that parses: writers never do

        tables = parse(source, **parse_options)
    else:
        tables = source
    return writer.render(tables)


def to_markdown(tables: DocTables) -> str:
    """The document as Markdown: headings, tables, captions, page anchors."""
    return get_writer("markdown").render(tables)


def to_docling_json(tables: DocTables) -> str:
    """The document as DoclingDocument JSON (needs the ``docling`` extra)."""
    return get_writer("docling-json").render(tables)


def to_docling_document(tables: DocTables):
    """The docling-core ``DoclingDocument`` of the document (needs the ``docling`` extra)."""
    from docintel.export.docling_json import to_docling_document as make

    return make(tables)


def to_jsonl(tables: DocTables) -> str:
    """The document's blocks as JSON Lines, one object per block."""
    return get_writer("jsonl").render(tables)
