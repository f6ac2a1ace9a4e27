"""Records: items with a fixed shape, copied out of a document's structure at ingestion.

A record type is declared as DATA (:class:`RecordType`): where its items come from in the parsed
tables, the pattern of its key, its named fields (and which of them no document states, i.e. are
derived by our code), and how the completeness report counts it a second way. Adding a type is a
deliberate small edit to :data:`RECORD_TYPES` plus routing test cases, never code per document.

:func:`extract_records` reads one document's ``line_df`` / ``toc_df`` and returns one row per
record with the page and line span of its source lines, so a list answer cites each item where the
document states it. Nothing here knows a file name or a question.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from docintel.corpus.record_sources import (
    _anchored,
    _announced,
    _children,
    _clean,
    _Cols,
    _display,
    _table_rows,
    number_value,
    record_id,
)
from docintel.corpus.record_types import GroupNames, RecordType
from docintel.corpus.store import TABLES

__all__ = [
    "RECORD_COLUMNS",
    "RECORD_TYPES",
    "GroupNames",
    "RecordType",
    "extract_records",
    "number_value",
    "record_id",
]

#: Columns of an extracted record: the store's ``records`` table (``corpus/store.py``, one
#: declaration) without the ``block_id`` the ingest deriver adds.
RECORD_COLUMNS = [c for c in TABLES["records"].columns if c != "block_id"]


_CSF_ID = r"(?:ID|PR|DE|RS|RC)\.[A-Z]{2}-\d{1,2}"

_CONTROL_ID = r"[A-Z]{2}-\d{1,2}"

RECORD_TYPES: dict[str, RecordType] = {
    t.name: t
    for t in (
        RecordType(
            "csf_subcategory",
            "framework subcategories",
            "line_pattern",
            rf"^(?P<key>{_CSF_ID}):\s*(?P<outcome>.*)$",
            fields=("outcome", "category", "category_name", "function"),
            derived={"category": "key before '-'", "function": "key before '.'"},
            group_of_key=r"^(?P<group>[A-Z]{2}\.[A-Z]{2})-",
            group_names=GroupNames(
                "inline", r"(?m)^(?P<name>[A-Z][A-Za-z ,\n]+?)[ \n]\((?P<group>[A-Z]{2}\.[A-Z]{2})\):"
            ),
            second_count="identifiers",
            mention_pattern=rf"(?<![\w.])(?P<key>{_CSF_ID})(?![\d\w])",
            mention_scope="corpus",
            min_per_doc=5,
            nouns=r"subcategor(?:y|ies)|framework outcomes",
        ),
        RecordType(
            "security_requirement",
            "security requirements",
            "line_pattern",
            r"^(?P<key>3\.\d{1,2}\.\d{1,2})(?:\s+(?P<requirement>[A-Z].*))?$",
            fields=("requirement", "family", "family_name"),
            derived={"family": "key before the last '.'"},
            group_of_key=r"^(?P<group>3\.\d{1,2})\.",
            group_names=GroupNames("section"),
            second_count="identifiers",
            mention_pattern=r"(?<![\d.])(?P<key>3\.\d{1,2}\.\d{1,2})(?![\d.])",
            # "3.1.1 Overview" is a section elsewhere: only documents stating CUI requirements
            defined_by=r"(?m)^(?:Basic|Derived) Security Requirements:?$|^SECURITY REQUIREMENT$",
            min_per_doc=20,
            nouns=r"(?:security )?requirements",
            context=r"\bCUI\b|controlled unclassified|800-171|nonfederal",
        ),
        RecordType(
            "control",
            "security controls",
            "line_pattern",
            rf"^(?P<key>{_CONTROL_ID})(?:\s+(?P<title>[A-Z][A-Z ,/&()\-]{{3,}}))?$",
            fields=("title", "family", "family_name"),
            bold_only=True,
            body="block",
            derived={"family": "key before '-'"},
            group_of_key=r"^(?P<group>[A-Z]{2})-",
            group_names=GroupNames("next_key", r"^FAMILY:\s*(?P<name>[A-Z][A-Z ,]+?)(?:\s+CLASS:.*)?$"),
            second_count="anchor_lines",
            mention_pattern=rf"^(?P<key>{_CONTROL_ID})(?:\s+[A-Z][A-Z ,/&()\-]{{3,}})?$",
            min_per_doc=20,
            nouns=r"controls",
            context=r"800-53|control catalog|catalog",
        ),
        RecordType(
            "control_baseline",
            "security controls in the baselines",
            "table_rows",
            rf"^(?P<key>{_CONTROL_ID})$",
            fields=("title", "priority", "low", "moderate", "high", "baselines", "family", "family_name"),
            derived={"baselines": "columns whose cell is not 'Not Selected'", "family": "key before '-'"},
            group_of_key=r"^(?P<group>[A-Z]{2})-",
            group_names=GroupNames("next_key", r"^FAMILY:\s*(?P<name>[A-Z][A-Z ,]+?)(?:\s+CLASS:.*)?$"),
            columns=("NAME", "PRIORITY", "LOW", "MOD", "HIGH"),
            second_count="anchor_lines",
            mention_pattern=rf"^(?P<key>{_CONTROL_ID})$",
            min_per_doc=20,
            nouns=r"controls|control enhancements",
            context=r"baseline",
            filter_words={
                "baselines": {
                    "low": r"\blow(?:-impact)?\b",
                    "moderate": r"\bmoderate\b",
                    "high": r"\bhigh(?:-impact)?\b",
                }
            },
        ),
        RecordType(
            "security_area",
            "security-related areas",
            "line_pattern",
            r"^(?P<name>[A-Z][A-Za-z]+(?:,? (?:and |[A-Z])[A-Za-z]*)*) \((?P<key>[A-Z]{2})\): Organizations must",
            fields=("name",),
            second_count="stated_total",
            mention_pattern=r"\bcover (?P<n>\w+) security-related areas",
            min_per_doc=3,
            nouns=r"(?:security[- ]related )?areas|families",
            context=r"minimum security requirements|FIPS 200",
        ),
        RecordType(
            "implementation_tier",
            "Implementation Tiers",
            "heading_pattern",
            r"^(?P<key>Tier \d):\s*(?P<name>[A-Z][A-Za-z ]+)$",
            fields=("name",),
            second_count="anchor_lines",
            mention_pattern=r"^Tier \d:",
            min_per_doc=2,
            nouns=r"(?:implementation )?tiers",
        ),
        RecordType(
            "assurance_level",
            "assurance levels",
            "line_pattern",
            r"^(?P<key>(?P<kind>IAL|AAL|FAL)\d):\s+(?P<summary>.+)$",
            fields=("kind", "summary"),
            derived={"kind": "key prefix"},
            second_count="identifiers",
            mention_pattern=r"\b(?P<key>(?:IAL|AAL|FAL)[1-3])\b",
            min_per_doc=2,
            nouns=r"assurance levels|IALs|AALs|FALs",
            filter_words={
                "kind": {
                    "IAL": r"identity assurance|\bIAL",
                    "AAL": r"authenticator assurance|\bAAL",
                    "FAL": r"federation assurance|\bFAL",
                }
            },
        ),
        RecordType(
            "process_step",
            "steps of the Risk Management Framework",
            "announced_list",
            r"^[•\-–]\s*(?P<key>[A-Z][a-z]+)\b(?P<summary>.*)$",
            fields=("summary",),
            intro_pattern=r"\b(?:RMF|Risk Management Framework) steps\b|\bsteps (?:of|in) the (?:RMF|Risk Management Framework)\b",
            second_count="stated_total",
            mention_pattern=r"\b(?P<n>\w+) steps in the (?:RMF|Risk Management Framework)\b",
            min_per_doc=3,
            nouns=r"steps",
            context=r"\bRMF\b|risk management framework",
        ),
        RecordType(
            "lifecycle_phase",
            "phases of the incident response life cycle",
            "child_headings",
            r"^(?:\d+(?:\.\d+)*\.?\s+)?(?P<key>[A-Z].+)$",
            intro_pattern=r"incident response process has several phases|phases of the incident response",
            second_count="none",
            min_per_doc=2,
            nouns=r"phases",
            context=r"incident response|incident handling",
        ),
        RecordType(
            "resiliency_technique",
            "cyber resiliency techniques",
            "announced_list",
            r"^[•\-–]\s*(?P<key>[A-Z][A-Za-z\- ]+?)[;.,]?(?: and)?$",
            intro_pattern=r"\b(?P<n>\w+) techniques are part of the\s+cyber resiliency",
            second_count="stated_total",
            mention_pattern=r"\b(?P<n>\w+) techniques are part of the\s+cyber resiliency",
            min_per_doc=3,
            nouns=r"techniques",
            context=r"cyber resiliency",
        ),
        RecordType(
            "glossary_term",
            "glossary terms",
            "line_pattern",
            r"^(?P<key>[A-Z][A-Za-z0-9()/'\- ]{1,80}?)\s?–\s*(?P<definition>.*)$",
            fields=("definition",),
            second_count="anchor_lines",
            mention_pattern=r"^[A-Z][^–]{0,80}\s–(?:\s|$)",
            min_per_doc=50,
            nouns=r"terms|definitions",
            context=r"glossary|defined",
        ),
        RecordType(
            "defined_term",
            "defined terms",
            "line_pattern",
            r"^[“\"](?P<key>[A-Z][^”\"]{1,60})[”\"]\s+(?:means|shall mean|has the meaning)\b(?P<definition>.*)$",
            fields=("definition",),
            second_count="identifiers",
            mention_pattern=r"[“\"](?P<key>[A-Z][^”\"]{1,60})[”\"]\s+(?:means|shall mean|has the meaning)\b",
            nouns=r"defined terms|definitions",
            context=r"contract|agreement|defined",
        ),
        RecordType(
            "ad_paragraph",
            "AD paragraphs",
            "line_pattern",
            r"^\((?P<key>[a-z])\)\s+(?P<title>[A-Z][A-Za-z ,/\-]{2,60})$",
            fields=("title",),
            second_count="identifiers",
            mention_pattern=r"\bparagraph \((?P<key>[a-z])\)",
            defined_by=r"\bAirworthiness Directive\b|\bAD \d{4}-\d{2}-\d{2}\b",
            min_per_doc=3,
            nouns=r"paragraphs",
            context=r"\bAD\b|airworthiness directive",
        ),
    )
}


def _frames(tables: Any) -> tuple[str, pd.DataFrame, pd.DataFrame]:
    get = tables.get if isinstance(tables, Mapping) else lambda n, d=None: getattr(tables, n, d)
    lines = get("line_df")
    if lines is None:
        raise ValueError("extract_records needs a line_df table")
    toc = get("toc_df")
    toc = toc if toc is not None else pd.DataFrame(columns=["toc_id", "title", "parent_id"])
    doc_id = get("doc_id") or (str(lines["doc_id"].iloc[0]) if len(lines) else "")
    lines = lines.sort_values(["page", "line"]).reset_index(drop=True)
    return doc_id, lines, toc


def _group_names(rt: RecordType, lines: pd.DataFrame, toc: pd.DataFrame) -> dict[str, str]:
    """Map group (``ID.SC``, ``IR``, ``3.8``) -> the name the document prints for it."""
    gn = rt.group_names
    if gn is None or not rt.group_of_key:
        return {}
    names: dict[str, str] = {}
    if gn.mode == "inline":
        # A name sits in one text block (a table cell); joining across blocks would glue the
        # previous cell or page ("Informative References") onto it.
        blocks = [
            "\n".join(_clean(t) for t in g["text"]) for _, g in lines.groupby(["page", "block"], sort=False)
        ]
        for m in (m for b in blocks for m in re.finditer(gn.pattern, b)):
            parts = m["name"].split("\n")
            # Leading one-word or all-caps lines are column headers ("Function", "Category",
            # "IDENTIFY") that reading order put before the name; the name's own lines follow.
            while len(parts) > 1 and (len(parts[0].split()) == 1 or parts[0].isupper()):
                parts.pop(0)
            names.setdefault(m["group"], _display(" ".join(parts)))
    elif gn.mode == "next_key":
        pending, head, key = None, re.compile(gn.pattern), re.compile(rt.group_of_key)
        for text in lines["text"]:
            text = _clean(text)
            if m := head.match(text):
                pending = m["name"]
            elif pending and (k := key.match(text)):
                names.setdefault(k["group"], _display(pending))
                pending = None
    else:
        for row in toc.itertuples():
            names.setdefault(
                str(row.toc_id), _display(re.sub(r"^\d+(?:\.\d+)*\.?\s+", "", _clean(row.title)))
            )
    return names


def _add_groups(rt: RecordType, recs: list[dict], names: dict[str, str]) -> None:
    if not rt.group_of_key:
        return
    pat = re.compile(rt.group_of_key)
    group_field = next((f for f in rt.fields if f in ("category", "family")), "group")
    for r in recs:
        if m := pat.match(r["key"]):
            r["fields"][group_field] = m["group"]
            if m["group"] in names:
                r["fields"][f"{group_field}_name"] = names[m["group"]]
        if rt.name.endswith("subcategory") and "." in r["key"]:
            r["fields"]["function"] = r["key"].split(".")[0]


def extract_records(tables: Any, types: Iterable[RecordType] | None = None) -> pd.DataFrame:
    """Every record of ``types`` (default: all) in one document's tables.

    ``tables`` is a DocTables or a mapping with ``line_df`` (and optionally ``toc_df``,
    ``doc_id``). A key seen twice in one document (the 800-171 requirements repeat in Appendix D)
    is one record at its first occurrence. A type with fewer than ``min_per_doc`` anchors in the
    document gives no records there: a few stray matches are mentions, not a definition.
    """
    doc_id, lines, toc = _frames(tables)
    rows: list[dict] = []
    cols = _Cols(lines)
    joined = "\n".join(cols.text)
    for rt in types if types is not None else RECORD_TYPES.values():
        if rt.defined_by and not re.search(rt.defined_by, joined):
            continue
        if rt.source in ("line_pattern", "heading_pattern"):
            recs = _anchored(rt, doc_id, cols, headings_only=rt.source == "heading_pattern")
        elif rt.source == "announced_list":
            recs = _announced(rt, doc_id, cols, toc)
        elif rt.source == "child_headings":
            recs = _children(rt, doc_id, cols, toc)
        else:
            recs = _table_rows(rt, doc_id, cols)
        seen: dict[str, dict] = {}
        for r in recs:
            seen.setdefault(r["key"], r)
        if len(seen) < rt.min_per_doc:
            continue
        recs = list(seen.values())
        _add_groups(rt, recs, _group_names(rt, lines, toc))
        rows.extend(recs)
    for r in rows:
        r["fields"] = json.dumps(r["fields"], sort_keys=True, ensure_ascii=False)
    return pd.DataFrame(rows, columns=RECORD_COLUMNS)


def record_fields(row: Mapping[str, Any]) -> dict[str, Any]:
    """The parsed ``fields`` of one record row (JSON text or a dict)."""
    f = row.get("fields") if isinstance(row, Mapping) else row["fields"]
    return json.loads(f) if isinstance(f, str) and f else dict(f or {})


#: ``source`` of the rows ingest stores beside the records: one per (document, type), holding
#: what the completeness report's second count saw there (the report then needs no parse cache;
#: :mod:`docintel.corpus.record_ingest` writes them).
EVIDENCE = "evidence"


def split_evidence(rows: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, dict[str, dict]]]:
    """The store's ``records`` rows -> (records, doc_id -> type -> evidence)."""
    is_ev = rows["source"] == EVIDENCE
    ev: dict[str, dict[str, dict]] = {}
    for r in rows[is_ev].itertuples():
        ev.setdefault(str(r.doc_id), {})[r.record_type] = json.loads(r.fields)
    return rows[~is_ev].reset_index(drop=True), ev
