"""The declaration of a record type (data only), shared by records.py and record_sources.py."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

Source = Literal["line_pattern", "heading_pattern", "announced_list", "child_headings", "table_rows"]

SecondCount = Literal["identifiers", "stated_total", "anchor_lines", "none"]


@dataclass(frozen=True)
class GroupNames:
    """How a record's group (category, family) gets its printed name.

    ``mode``: ``inline`` finds ``pattern`` (groups ``name`` and ``group``) in the document's joined
    text; ``next_key`` takes the name from a line matching ``pattern`` (group ``name``) and the
    group from the next record key after it; ``section`` uses the title of the record's section.
    """

    mode: Literal["inline", "next_key", "section"]
    pattern: str = ""


@dataclass(frozen=True)
class RecordType:
    """One kind of record, declared as data (see the module docstring)."""

    name: str
    label: str  # plural noun phrase for answers: "framework subcategories"
    source: Source
    key_pattern: str  # regex on a stripped line; group ``key`` (+ optional named field groups)
    fields: tuple[str, ...] = ()
    derived: Mapping[str, str] = field(default_factory=dict)  # field -> how our code derives it
    group_of_key: str = ""  # regex with group ``group`` applied to the key ("ID.SC" of "ID.SC-1")
    group_names: GroupNames | None = None
    second_count: SecondCount = "none"
    mention_pattern: str = ""  # identifiers: group ``key``; stated_total: group ``n``
    mention_scope: Literal["corpus", "document"] = "document"
    intro_pattern: str = ""  # announced_list / child_headings: the announcing text
    columns: tuple[str, ...] = ()  # table_rows: header words, left to right, one per field
    defined_by: str = ""  # regex a document's text must contain for the type to be read there
    bold_only: bool = False  # anchors must be bold (a bare "IR-1" cell is not a catalog entry)
    body: Literal["block", "indented"] = "indented"  # continuation: same block, or also indented
    min_per_doc: int = 1  # fewer anchors than this in a document are mentions, not a definition
    # Router vocabulary: plural nouns naming the type, and context that must also be present.
    nouns: str = ""
    context: str = ""
    filter_words: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if "(?P<key>" not in self.key_pattern:
            raise ValueError(f"record type {self.name}: key_pattern needs a (?P<key>...) group")
