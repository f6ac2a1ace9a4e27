"""Markdown of a parsed document, for the tools people pipe pymupdf4llm / Docling Markdown into.

- a page anchor ``<a id="page-N"></a>`` where each physical page starts (``#page-12`` links);
- headings from ``toc_df`` (``#`` per level, at most six), with their printed number;
- body text in reading order, one paragraph per text block, furniture left out;
- registered tables whose cells were found as Markdown tables (header rows from ``cell_df``),
  right where their lines were; captions of tables and figures as their own paragraphs.
"""

from __future__ import annotations

import re

from docintel.export.base import Block, Writer, document_blocks
from docintel.schema.document import DocTables

#: Markdown has six heading levels; deeper sections are written at level six.
MAX_HEADING_LEVEL = 6
#: Text that Markdown would read as markup at the start of a line.
_LEADING_MARKUP = re.compile(r"^(#{1,6}\s|[>|]|[-+*]\s|={3,}|-{3,})")


def page_anchor(page: int) -> str:
    """The HTML anchor written where physical page ``page`` starts."""
    return f'<a id="page-{page}"></a>'


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").strip()


def markdown_table(rows: list[list[str]], header_rows: int = 0) -> str:
    """A GitHub-flavoured Markdown table; several header rows are merged column by column.

    Without a header row (none flagged in ``cell_df``) the first row is the header,
    as Markdown requires one.
    """
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    n = max(header_rows, 1)
    head = [" ".join(dict.fromkeys(h[c] for h in rows[:n] if h[c])) for c in range(width)]
    lines = ["| " + " | ".join(_cell(h) for h in head) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(_cell(c) for c in r) + " |" for r in rows[n:]]
    return "\n".join(lines)


def _paragraph(text: str) -> str:
    text = text.strip()
    return "\\" + text if _LEADING_MARKUP.match(text) else text


def render_block(b: Block) -> str:
    """One block as Markdown (empty for a block with no text)."""
    if b.kind == "heading":
        return "#" * min(max(b.level or 1, 1), MAX_HEADING_LEVEL) + " " + b.text
    if b.kind == "table":
        return markdown_table(b.rows, b.header_rows)
    if b.kind in ("title", "heading_text"):
        return f"**{b.text.strip()}**" if b.text.strip() else ""
    if b.kind == "caption":
        return f"*{b.text.strip()}*" if b.text.strip() else ""
    if b.kind == "list_item":
        return _paragraph(b.text)
    return _paragraph(b.text)


class MarkdownWriter(Writer):
    """``docintel export --format markdown``."""

    name = "markdown"
    suffix = ".md"

    def render(self, tables: DocTables) -> str:
        blocks = document_blocks(tables)
        pages = sorted(int(p) for p in tables.page_df["page"]) or sorted({b.page for b in blocks})
        by_page: dict[int, list[Block]] = {}
        for b in blocks:
            by_page.setdefault(b.page, []).append(b)
        parts: list[str] = []
        for p in pages:
            parts.append(page_anchor(p))
            parts += [s for s in (render_block(b) for b in by_page.get(p, [])) if s]
        return "\n\n".join(parts) + "\n"


def to_markdown(tables: DocTables) -> str:
    """The document as Markdown (see the module docstring)."""
    return MarkdownWriter().render(tables)
