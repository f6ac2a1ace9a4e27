"""The list path: every readable record that matches, counted in code, each item cited.

No ranking and no k: :func:`list_records` keeps every record of the proposed type that the user
may read and that fits the filters, one item per key (the 800-171 requirements repeat in SP
800-171A; a key defined by several readable documents is one item citing the document that
defines the most records of the type, the others listed as ``also_in``). The count is a known
fact for generation ("the complete list"); an empty result claims nothing about records the
user cannot see. Aggregates (:func:`count_by`, :func:`documents_defining`) are code too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping

import pandas as pd
from pydantic import BaseModel, Field

from docintel.corpus.records import RECORD_TYPES
from docintel.corpus.router import RouteProposal


class ListItem(BaseModel):
    """One listed record with the place it is stated."""

    key: str = Field(description="the record's key (an id or a name)")
    text: str = Field(description="the record's source text")
    fields: dict[str, str] = Field(default_factory=dict, description="named fields")
    doc_id: str = Field(description="document that states it")
    page: int = Field(description="physical page, 1-based")
    line_start: int = Field(description="first source line on that page")
    line_end: int = Field(description="last source line (on page_end)")
    page_end: int = Field(description="page of the last source line")
    source: str = Field(description="extracted or curated")
    also_in: list[str] = Field(default_factory=list, description="other readable documents stating it")


class ListAnswer(BaseModel):
    """The complete set for a list question, as code computed it."""

    record_type: str | None
    label: str
    filters: dict[str, str] = Field(default_factory=dict)
    count: int = Field(description="number of items, computed in code")
    items: list[ListItem] = Field(default_factory=list)
    intro: list[str] = Field(default_factory=list, description="how the documents announce the set")
    known_fact: str = Field(description="the sentence given to generation as a known fact")
    answer: str = Field(description="the extractive answer: every item, each cited")


def _matches(value: str, wanted: str) -> bool:
    """Filter test: equal (case-insensitive), or a whole word/phrase of the field value."""
    v, w = value.casefold().strip(), wanted.casefold().strip()
    return v == w or re.search(rf"(?<!\w){re.escape(w)}(?!\w)", v) is not None


def _readable(records: pd.DataFrame, readable_doc_ids: Iterable[str]) -> pd.DataFrame:
    return records[records["doc_id"].isin(set(readable_doc_ids))]


def _natural(key: str) -> list:
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", key)]


def list_records(
    records: pd.DataFrame,
    proposal: RouteProposal,
    readable_doc_ids: Iterable[str],
    *,
    doc_names: Mapping[str, str] | None = None,
) -> ListAnswer:
    """Every readable record matching ``proposal`` (see the module docstring)."""
    names = dict(doc_names or {})
    rt = RECORD_TYPES.get(proposal.record_type or "")
    label = rt.label if rt else str(proposal.record_type)
    sub = _readable(records, readable_doc_ids)
    sub = sub[sub["record_type"] == proposal.record_type]
    rows = []
    for r in sub.to_dict("records"):
        f = json.loads(r["fields"]) if isinstance(r["fields"], str) and r["fields"] else {}
        if all(
            _matches(r["doc_id"] if k == "doc_id" else str(f.get(k, "")), v)
            for k, v in proposal.filters.items()
        ):
            rows.append({**r, "fields": {k: str(v) for k, v in f.items()}})
    per_doc = pd.Series([r["doc_id"] for r in rows]).value_counts().to_dict() if rows else {}
    by_key: dict[str, list[dict]] = {}
    for r in rows:
        by_key.setdefault(r["key"], []).append(r)
    items = []
    for key, group in by_key.items():
        # The defining document: the one stating the most records of the type; curated records
        # (a person's correction) rank after extracted ones of the same document.
        group.sort(key=lambda r: (-per_doc[r["doc_id"]], r["source"] != "extracted", r["doc_id"], r["page"]))
        first = group[0]
        items.append(
            ListItem(
                key=key,
                text=first["text"],
                fields={k: v for k, v in first["fields"].items() if k != "intro"},
                doc_id=first["doc_id"],
                page=int(first["page"]),
                line_start=int(first["line_start"]),
                page_end=int(first["page_end"]),
                line_end=int(first["line_end"]),
                source=first["source"],
                also_in=sorted(
                    {names.get(g["doc_id"], g["doc_id"]) for g in group[1:]} - {names.get(first["doc_id"])}
                ),
            )
        )
    order = {d: i for i, d in enumerate(sorted(per_doc, key=lambda d: (-per_doc[d], d)))}
    items.sort(key=lambda it: (order[it.doc_id], it.page, it.line_start, _natural(it.key)))
    intro = sorted({r["fields"]["intro"] for r in rows if r["fields"].get("intro")})
    return _answer(proposal, label, items, intro, names)


def _answer(
    proposal: RouteProposal, label: str, items: list[ListItem], intro: list[str], names: dict
) -> ListAnswer:
    filt = "; ".join(f"{k} = {v}" for k, v in proposal.filters.items())
    where = f" matching {filt}" if filt else ""
    if not items:
        fact = f"No {label} that you can access match this question ({where.strip() or 'no filter'})."
        answer = f"None that you can access: no record you can access matches ({label}{where})."
        return ListAnswer(
            record_type=proposal.record_type,
            label=label,
            filters=proposal.filters,
            count=0,
            known_fact=fact,
            answer=answer,
        )
    fact = f"{len(items)} matching {label}{where} (the complete list of records you can access)."
    lines = [fact]
    for i, it in enumerate(items, 1):
        doc = names.get(it.doc_id, it.doc_id)
        also = f"; also in {', '.join(it.also_in)}" if it.also_in else ""
        lines.append(f"[S{i}] {it.key}: {it.text} ({doc}, p.{it.page} l.{it.line_start}-{it.line_end}{also})")
    lines += [f"As the document introduces them: {t}" for t in intro]
    return ListAnswer(
        record_type=proposal.record_type,
        label=label,
        filters=proposal.filters,
        count=len(items),
        items=items,
        intro=intro,
        known_fact=fact,
        answer="\n".join(lines),
    )


def count_by(
    records: pd.DataFrame, record_type: str, field: str, readable_doc_ids: Iterable[str]
) -> dict[str, int]:
    """How many distinct keys per value of ``field`` ("how many per family"), readable only."""
    sub = _readable(records, readable_doc_ids)
    sub = sub[sub["record_type"] == record_type]
    seen: dict[str, set[str]] = {}
    for r in sub.itertuples():
        value = str(json.loads(r.fields).get(field, "")) if r.fields else ""
        seen.setdefault(value, set()).add(r.key)
    return {v: len(keys) for v, keys in sorted(seen.items())}


def documents_defining(records: pd.DataFrame, key: str, readable_doc_ids: Iterable[str]) -> list[str]:
    """The readable documents with a record of ``key`` ("which documents define X")."""
    sub = _readable(records, readable_doc_ids)
    return sorted(set(sub.loc[sub["key"].str.casefold() == key.casefold(), "doc_id"]))


def record_vocabulary(records: pd.DataFrame) -> dict[str, dict[str, set[str]]]:
    """type -> name field -> printed values: what the router may read a filter from."""
    out: dict[str, dict[str, set[str]]] = {}
    for r in records.itertuples():
        f = json.loads(r.fields) if r.fields else {}
        for k, v in f.items():
            if k.endswith("_name") and v:
                out.setdefault(r.record_type, {}).setdefault(k, set()).add(str(v))
    return out
