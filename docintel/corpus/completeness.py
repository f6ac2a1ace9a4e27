"""Completeness report: each record type counted a second way, per document.

A list answer is complete relative to the records, so the records themselves are checked against
the documents: identifiers seen anywhere in the text, a total the document states ("cover
seventeen security-related areas"), or looser anchor lines. Disagreements become NEEDS REVIEW
lines for a person: an identifier mentioned with no record (a draft citing a subcategory no
framework version defines), counts that differ, records whose source moved since the last build.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from docintel.corpus.records import RECORD_TYPES, RecordType, _clean, _frames, number_value

COMPLETENESS_COLUMNS = [
    "record_type",
    "doc_id",
    "extracted",
    "second_count",
    "method",
    "missing",
    "needs_review",
]
_METHOD = {
    "identifiers": "identifiers in the text",
    "stated_total": "total stated by the document",
    "anchor_lines": "candidate lines",
    "none": "no second count",
}


def _mentions(rt: RecordType, lines: pd.DataFrame) -> list[tuple[str, int]]:
    """(key, page) for every identifier of ``rt`` in the document's text."""
    pat = re.compile(rt.mention_pattern)
    out = []
    for text, page in zip(lines["text"], lines["page"], strict=False):
        for m in pat.finditer(_clean(text)):
            out.append((m["key"], int(page)))
    return out


def _second(rt: RecordType, lines: pd.DataFrame) -> tuple[int | None, set[str]]:
    """The second count and, where it names items, the keys it found."""
    if rt.second_count == "identifiers":
        keys = {k for k, _ in _mentions(rt, lines)}
        return len(keys), keys
    if rt.second_count == "stated_total":
        joined = " ".join(_clean(t) for t in lines["text"])
        for m in re.finditer(rt.mention_pattern, joined, re.IGNORECASE):
            n = number_value(m["n"])
            if n is not None:
                return n, set()
        return None, set()
    if rt.second_count == "anchor_lines":
        pat = re.compile(rt.mention_pattern)
        hits = [pat.match(_clean(t)) for t in lines["text"]]
        hits = [m for m in hits if m]
        if hits and "key" in pat.groupindex:
            keys = {m["key"] for m in hits}
            return len(keys), keys
        return len(hits), set()
    return None, set()


def evidence(rt: RecordType, lines: pd.DataFrame) -> dict | None:
    """What the second count of ``rt`` sees in one document's lines (None: nothing).

    ``identifiers``: ``{"mentions": {key: first page}}``; otherwise ``{"second": n, "keys": [...]}``.
    Computed where the lines are (ingest stores it beside the records), so the report needs no
    parse cache.
    """
    if rt.second_count == "identifiers":
        first_page: dict[str, int] = {}
        for key, page in _mentions(rt, lines):
            first_page.setdefault(key, page)
        return {"mentions": first_page} if first_page else None
    second, keys = _second(rt, lines)
    return None if second is None and not keys else {"second": second, "keys": sorted(keys)}


def completeness(
    records: pd.DataFrame,
    tables_by_doc: Mapping[str, Any],
    types: Iterable[RecordType] | None = None,
    *,
    previous: pd.DataFrame | None = None,
    doc_names: Mapping[str, str] | None = None,
    readable_doc_ids: Iterable[str] | None = None,
) -> pd.DataFrame:
    """One row per (record type, document) with records or mentions; see the module docstring.

    ``tables_by_doc`` maps doc_id -> DocTables (or a mapping with ``line_df``); see
    :func:`completeness_from_evidence` for the rest.
    """
    types = list(types if types is not None else RECORD_TYPES.values())
    ev: dict[str, dict[str, dict]] = {}
    for doc_id, tables in tables_by_doc.items():
        _, lines, _ = _frames(tables)
        ev[doc_id] = {rt.name: e for rt in types if (e := evidence(rt, lines)) is not None}
    return completeness_from_evidence(
        records, ev, types, previous=previous, doc_names=doc_names, readable_doc_ids=readable_doc_ids
    )


def completeness_from_evidence(
    records: pd.DataFrame,
    evidence_by_doc: Mapping[str, Mapping[str, dict]],
    types: Iterable[RecordType] | None = None,
    *,
    previous: pd.DataFrame | None = None,
    doc_names: Mapping[str, str] | None = None,
    readable_doc_ids: Iterable[str] | None = None,
) -> pd.DataFrame:
    """The report from each document's :func:`evidence` (doc_id -> type -> evidence).

    ``previous`` is the last build's records: a record whose page/line changed, or that
    disappeared, is reported. ``readable_doc_ids`` (``--as USER``) restricts everything, records
    and mentions, to the documents that user may read, so the report says nothing about the others.
    """
    if readable_doc_ids is not None:
        keep = set(readable_doc_ids)
        evidence_by_doc = {k: v for k, v in evidence_by_doc.items() if k in keep}
        records = records[records["doc_id"].isin(keep)]
        previous = previous[previous["doc_id"].isin(keep)] if previous is not None else None
    names = dict(doc_names or {})
    types = list(types if types is not None else RECORD_TYPES.values())
    doc_ids = sorted(set(evidence_by_doc) | set(records["doc_id"].astype(str)))
    rows = []
    for rt in types:
        recs = records[records["record_type"] == rt.name]
        all_keys = set(recs["key"])
        for doc_id in doc_ids:
            ev = (evidence_by_doc.get(doc_id) or {}).get(rt.name) or {}
            mine = recs[recs["doc_id"] == doc_id]
            review: list[str] = []
            missing: list[str] = []
            doc = names.get(doc_id, doc_id)
            if rt.second_count == "identifiers" and (rt.mention_scope == "corpus" or len(mine)):
                own = set(mine["key"])
                mentions = ev.get("mentions", {})
                for key, page in sorted(mentions.items(), key=lambda kv: (int(kv[1]), kv[0])):
                    if key in own or (key in all_keys and rt.mention_scope == "corpus"):
                        continue  # recorded here, or cited here and defined by another document
                    missing.append(key)
                    review.append(f"{key} is mentioned in {doc} p.{page} but has no record")
                second: int | None = len(own | set(missing)) if len(own) else None
                if not len(mine) and not missing:
                    continue
            elif len(mine):
                second, keys = ev.get("second"), set(ev.get("keys", []))
                if keys:
                    missing = sorted(keys - set(mine["key"]))
                    review += [f"{k} is found in {doc} but has no {rt.name} record" for k in missing]
                if second is not None and second != len(mine):
                    review.append(
                        f"{doc}: {len(mine)} {rt.label} extracted but the {_METHOD[rt.second_count]} "
                        f"count {second}"
                    )
            else:
                continue
            rows.append(
                {
                    "record_type": rt.name,
                    "doc_id": doc_id,
                    "extracted": int((mine["source"] == "extracted").sum()),
                    "second_count": second,
                    "method": _METHOD[rt.second_count],
                    "missing": json.dumps(missing),
                    "needs_review": json.dumps(review),
                }
            )
    out = pd.DataFrame(rows, columns=COMPLETENESS_COLUMNS)
    if previous is not None and len(previous):
        out = pd.concat([out, _moved(records, previous, names)], ignore_index=True)
    return out


def _moved(records: pd.DataFrame, previous: pd.DataFrame, names: Mapping[str, str]) -> pd.DataFrame:
    """Rows for records whose source moved or vanished since ``previous`` was built."""
    now = records.set_index("record_id")
    rows = []
    for r in previous.itertuples():
        doc = names.get(r.doc_id, r.doc_id)
        if r.record_id not in now.index:
            msg = f"{r.key} ({r.record_type}) was in {doc} p.{r.page} at the last build and is gone"
        else:
            cur = now.loc[r.record_id]
            if (int(cur["page"]), int(cur["line_start"])) == (int(r.page), int(r.line_start)):
                continue
            msg = f"{r.key} ({r.record_type}) moved in {doc}: p.{r.page} l.{r.line_start} -> p.{cur['page']} l.{cur['line_start']}"
        rows.append(
            {
                "record_type": r.record_type,
                "doc_id": r.doc_id,
                "extracted": None,
                "second_count": None,
                "method": "previous build",
                "missing": "[]",
                "needs_review": json.dumps([msg]),
            }
        )
    return pd.DataFrame(rows, columns=COMPLETENESS_COLUMNS)


def render_completeness(
    report: pd.DataFrame,
    records: pd.DataFrame,
    *,
    doc_names: Mapping[str, str] | None = None,
    readable_doc_ids: Iterable[str] | None = None,
) -> str:
    """The text ``docintel records`` prints: totals, "N of M" per document, NEEDS REVIEW lines."""
    if readable_doc_ids is not None:
        records = records[records["doc_id"].isin(set(readable_doc_ids))]
    names = dict(doc_names or {})
    counts = records.groupby("record_type").size().to_dict() if len(records) else {}
    curated = int((records["source"] == "curated").sum()) if len(records) else 0
    head = ", ".join(f"{n} {t}" for t, n in sorted(counts.items()))
    lines = [f"Records: {head or 'none'} ({curated} curated by a person)"]
    review: list[str] = []
    for r in report.itertuples():
        review += json.loads(r.needs_review)
        if r.method == "previous build" or not r.extracted:
            continue
        rt = RECORD_TYPES.get(r.record_type)
        label = rt.label if rt else r.record_type
        m = "?" if r.second_count is None or pd.isna(r.second_count) else int(r.second_count)
        lines.append(f"  {names.get(r.doc_id, r.doc_id)}: {r.extracted} of {m} {label} ({r.method})")
    lines += [f"  NEEDS REVIEW: {msg}" for msg in review]
    return "\n".join(lines)
