"""The replayable trace of one ``ask``: every stage, decision and resolution, with timings."""

from __future__ import annotations

import json
import platform
import time
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

TRACE_VERSION = "1.0"


class Trace:
    """Collects what an auditor needs to replay an answer.

    ``stage(name)`` times a block; ``record(key, value)`` stores a value;
    ``event(kind, **data)`` appends to the ordered event log (passes,
    decisions, resolutions) so the loop can be read top to bottom.
    """

    def __init__(self, **header: Any) -> None:
        self.data: dict[str, Any] = {
            "trace_version": TRACE_VERSION,
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "python": platform.python_version(),
            **header,
            "timings": {},
            "events": [],
        }

    @contextmanager
    def stage(self, name: str):
        t0 = time.perf_counter()
        try:
            yield
        finally:
            timings = self.data["timings"]
            timings[name] = round(timings.get(name, 0.0) + time.perf_counter() - t0, 6)

    def record(self, key: str, value: Any) -> None:
        self.data[key] = value

    def event(self, kind: str, **data: Any) -> None:
        self.data["events"].append({"kind": kind, **data})

    def write(self, path: str | Path) -> Path:
        from docintel.atomic import atomic_write_text

        # all or nothing: a full disk or a kill never leaves a truncated trace behind
        text = json.dumps(self.data, indent=2, default=_default, ensure_ascii=False)
        return atomic_write_text(Path(path), text)


def _default(obj: Any) -> Any:
    if hasattr(obj, "model_dump"):
        return obj.model_dump()
    if hasattr(obj, "item"):  # numpy scalars
        return obj.item()
    if isinstance(obj, (set, tuple)):
        return list(obj)
    return str(obj)
