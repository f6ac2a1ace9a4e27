"""The ledger: every tool result kept whole, what the model is shown kept short.

Each tool call is one :class:`Entry` (``L1``, ``L2`` ...) holding the tool's rows untouched. The
model sees :meth:`Ledger.shown` of it: at most :data:`SHOW_ROWS` rows, each row's text cut to
:data:`SHOW_CHARS` with the pointer ``[full: L3#2]`` (the forced synthesis and the final answer
read the whole rows). A row already in the ledger (the same block, record or SQL row) is not
repeated: it is shown as ``(already in L2#1)`` and counted once. Tool calls already made (the
same tool and arguments) are remembered, and the loop answers a repeat from the ledger.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

SHOW_ROWS = 5
SHOW_CHARS = 400


def row_key(row: dict) -> str:
    """What makes two rows the same evidence: a stable id when the row has one, else its content."""
    for col in ("block_id", "record_id", "mention_id"):
        if row.get(col):
            return f"{col}:{row[col]}"
    return "row:" + json.dumps(row, sort_keys=True, default=str)


def call_key(tool: str, arguments: dict) -> str:
    return tool + json.dumps(arguments or {}, sort_keys=True, default=str)


@dataclass
class Entry:
    item_id: str
    turn: int
    tool: str
    arguments: dict
    rows: list[dict] = field(default_factory=list)
    repeats: dict[int, str] = field(default_factory=dict)  # row index -> where it is already
    error: str | None = None
    note: str = ""


@dataclass
class Ledger:
    entries: list[Entry] = field(default_factory=list)
    seen: dict[str, str] = field(default_factory=dict)  # row key -> "L2#1"
    calls: dict[str, str] = field(default_factory=dict)  # call key -> item id

    def add(self, turn: int, tool: str, arguments: dict, rows: list[dict], *, error=None, note="") -> Entry:
        entry = Entry(f"L{len(self.entries) + 1}", turn, tool, dict(arguments or {}), error=error, note=note)
        for i, row in enumerate(rows):
            key = row_key(row)
            if key in self.seen:
                entry.repeats[i] = self.seen[key]
            else:
                self.seen[key] = f"{entry.item_id}#{i + 1}"
            entry.rows.append(row)
        self.entries.append(entry)
        self.calls[call_key(tool, arguments)] = entry.item_id
        return entry

    def tried(self, tool: str, arguments: dict) -> str | None:
        return self.calls.get(call_key(tool, arguments))

    def get(self, ref: str) -> Any:
        """An entry (``L3``) or one of its rows (``L3#2``); None when there is no such item."""
        item, _, n = ref.partition("#")
        entry = next((e for e in self.entries if e.item_id == item), None)
        if entry is None or not n:
            return entry
        i = int(n) - 1 if n.isdigit() else -1
        return entry.rows[i] if 0 <= i < len(entry.rows) else None

    def new_rows(self) -> list[tuple[str, dict]]:
        """Every distinct row, whole, with its ``L#`` reference (repeats collapsed)."""
        return [
            (f"{e.item_id}#{i + 1}", row)
            for e in self.entries
            for i, row in enumerate(e.rows)
            if i not in e.repeats
        ]

    def shown(self, entry: Entry) -> str:
        """What the model reads of ``entry``: trimmed, each cut with a pointer to the whole row."""
        if entry.error:
            return f"{entry.item_id} {entry.tool} error: {entry.error}"
        head = f"{entry.item_id} {entry.tool}: {len(entry.rows)} row(s)" + (
            f"; {entry.note}" if entry.note else ""
        )
        lines = [head]
        for i, row in enumerate(entry.rows[:SHOW_ROWS]):
            ref = f"{entry.item_id}#{i + 1}"
            if i in entry.repeats:
                lines.append(f"[{ref}] (already in {entry.repeats[i]})")
                continue
            text = json.dumps(row, ensure_ascii=False, default=str)
            if len(text) > SHOW_CHARS:
                text = text[:SHOW_CHARS] + f"... [full: {ref}]"
            lines.append(f"[{ref}] {text}")
        if len(entry.rows) > SHOW_ROWS:
            lines.append(f"... {len(entry.rows) - SHOW_ROWS} more row(s) [full: {entry.item_id}]")
        return "\n".join(lines)

    def full_text(self) -> str:
        """Every distinct row whole, for the forced synthesis (nothing trimmed)."""
        return "\n".join(
            f"[{ref}] {json.dumps(row, ensure_ascii=False, default=str)}" for ref, row in self.new_rows()
        )

    def to_json(self) -> list[dict]:
        return [
            {
                "item_id": e.item_id,
                "turn": e.turn,
                "tool": e.tool,
                "arguments": e.arguments,
                "rows": e.rows,
                "repeats": {f"{e.item_id}#{i + 1}": where for i, where in e.repeats.items()},
                "error": e.error,
                "note": e.note,
            }
            for e in self.entries
        ]
