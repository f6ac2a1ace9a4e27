"""Curated records (written by people, reviewed like code) and the rebuilt ``records.json`` files.

A curated record is one JSON object (a file may hold one object or a list) with the fields of an
extracted record plus ``source_citation`` (where a person read it), ``note`` (why it exists and
when to remove it) and ``access`` (the groups of the document it cites). Validation refuses a
record without them, so knowledge nobody can trace never reaches a list answer.

:func:`write_records_json` rewrites ``<folder>/<record_type>/records.json`` deterministically
(sorted by document, key; stable key order; one record per line block), so a change in the
documents shows up as a diff in review.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from docintel.corpus.records import RECORD_COLUMNS, RECORD_TYPES, record_id
from docintel.errors import UsageError

#: Every curated record must carry these (``fields`` may be empty, the rest may not).
CURATED_REQUIRED = ("record_type", "key", "text", "doc_id", "source_citation", "note")


def validate_curated(obj: object, where: str) -> dict:
    """One curated record, checked; a bad one is a UsageError naming the file and the field."""
    if not isinstance(obj, dict):
        raise UsageError(f"{where}: a curated record must be a JSON object")
    for name in CURATED_REQUIRED:
        if not str(obj.get(name) or "").strip():
            raise UsageError(f"{where}: curated record needs a non-empty {name!r}")
    if obj["record_type"] not in RECORD_TYPES:
        known = ", ".join(RECORD_TYPES)
        raise UsageError(f"{where}: unknown record_type {obj['record_type']!r}; known: {known}")
    fields = obj.get("fields", {})
    if not isinstance(fields, dict):
        raise UsageError(f"{where}: 'fields' must be an object")
    return obj


def load_curated(folder: str | Path) -> pd.DataFrame:
    """Every curated record under ``folder`` (``*.json``), as rows of the records table."""
    rows = []
    for path in sorted(Path(folder).glob("**/*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise UsageError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
        for i, obj in enumerate(data if isinstance(data, list) else [data]):
            rec = validate_curated(obj, f"{path}[{i}]" if isinstance(data, list) else str(path))
            cite = rec["source_citation"]
            rows.append(
                {
                    "record_id": rec.get("record_id")
                    or record_id(rec["doc_id"], rec["record_type"], f"curated:{rec['key']}"),
                    "record_type": rec["record_type"],
                    "key": rec["key"],
                    "fields": json.dumps({**rec.get("fields", {}), "source_citation": cite}, sort_keys=True),
                    "text": rec["text"],
                    "doc_id": rec["doc_id"],
                    "page": int(rec.get("page") or 0),
                    "line_start": int(rec.get("line_start") or 0),
                    "page_end": int(rec.get("page_end") or rec.get("page") or 0),
                    "line_end": int(rec.get("line_end") or rec.get("line_start") or 0),
                    "source": "curated",
                    "note": rec["note"],
                }
            )
    return pd.DataFrame(rows, columns=RECORD_COLUMNS)


def write_records_json(records: pd.DataFrame, folder: str | Path) -> list[Path]:
    """Rewrite ``folder/<record_type>/records.json`` for every type present; return the paths.

    Deterministic: records sorted by (doc_id, key, source, record_id), keys sorted, fields parsed
    back to objects, trailing newline. A type that has no records any more loses its file.
    """
    folder = Path(folder)
    written = []
    present = set(records["record_type"]) if len(records) else set()
    for rt in sorted(present):
        sub = records[records["record_type"] == rt].sort_values(["doc_id", "key", "source", "record_id"])
        items = []
        for r in sub.to_dict("records"):
            r = {k: (v.item() if hasattr(v, "item") else v) for k, v in r.items()}
            r["fields"] = json.loads(r["fields"]) if isinstance(r["fields"], str) else r["fields"]
            items.append(r)
        path = folder / rt / "records.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            json.dumps(items, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        written.append(path)
    for stale in folder.glob("*/records.json") if folder.exists() else []:
        if stale.parent.name not in present:
            stale.unlink()
    return written
