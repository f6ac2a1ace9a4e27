"""Kinds as data: line-role groups, reference types, object types. Declared once, read everywhere.

Pure Python (no pandas, no pyarrow), so any brick and any contract may import it.
"""

from __future__ import annotations

from typing import Literal, get_args

#: Every role a text line of ``line_df`` can have.
LineRole = Literal[
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
]
LINE_ROLES: tuple[str, ...] = get_args(LineRole)

#: Running headers/footers and page numbers: repeated on every page, never content.
FURNITURE_ROLES: frozenset[str] = frozenset({"header", "footer", "page_number"})
#: Roles never given to generation: page furniture and the words inside figures.
NON_EVIDENCE_ROLES: frozenset[str] = FURNITURE_ROLES | {"figure_text"}
#: Roles left out of the keyword index: contents entries only echo other pages' headings.
UNINDEXED_ROLES: frozenset[str] = NON_EVIDENCE_ROLES | {"toc_entry"}
#: Roles the reference detector skips: furniture and contents entries point nowhere new.
UNSCANNED_ROLES: frozenset[str] = FURNITURE_ROLES | {"toc_entry"}
#: Roles that open a section (a wrapped heading is several such lines).
HEADING_ROLES: frozenset[str] = frozenset({"heading", "title"})

#: What a reference in ``cross_ref_df`` points at.
TableRefType = Literal[
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
]
TABLE_REF_TYPES: tuple[str, ...] = get_args(TableRefType)
#: What a pending reference of an answer points at: the table's kinds plus 'condition'
#: (an 'applies only if' clause, stated rather than followed).
RefType = Literal[TableRefType, "condition"]
REF_TYPES: tuple[str, ...] = (*TABLE_REF_TYPES, "condition")

#: Kinds of numbered / registered objects in ``object_registry``.
ObjectType = Literal[
    "table", "figure", "equation", "appendix", "annex", "exhibit", "schedule", "attachment", "bib", "clause"
]
OBJECT_TYPES: tuple[str, ...] = get_args(ObjectType)
#: Reference types whose target is looked up in ``object_registry``.
OBJECT_REF_TYPES: frozenset[str] = frozenset({"table", "figure", "equation", "appendix", "annex", "bib"})
#: Reference types whose target is looked up in ``toc_df``.
SECTION_REF_TYPES: frozenset[str] = frozenset({"section", "clause", "definition"})
#: Reference types that point outside the document's own pages (never pulled in as evidence
#: on the page already retrieved).
OFF_PAGE_REF_TYPES: frozenset[str] = frozenset({"external", "bib"})

#: How a passage reached the evidence.
RetrievedVia = Literal["primary", "reference", "definition", "scope", "baseline"]
#: Passages the loop pulled in by following a pointer.
PULLED_VIA: frozenset[str] = frozenset({"reference", "definition"})

#: What produced a ``cross_ref_df`` row.
RefSource = Literal["native_link", "toc_anchor", "object_registry", "regex", "llm"]
REF_SOURCES: tuple[str, ...] = get_args(RefSource)
