"""Access groups: who may read which document.

A user may read a document when their groups and the document's groups intersect; a user
with no groups (unknown) reads nothing. The groups file is the format of
``corpus/nist/groups.json``: ``{"documents": {file: [group, ...]}, "users": {user: [group, ...]}}``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from docintel.errors import UsageError

NO_MATCH = "No document you can access matches the question."


def current_user(flag: str | None) -> str | None:
    """``--as USER`` > ``DOCINTEL_USER``; None means nobody (reads nothing)."""
    return flag or os.environ.get("DOCINTEL_USER") or None


def load_groups_file(path: str | Path) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(file -> groups, user -> groups) from a groups file; one clear error when malformed."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise UsageError(f"{path}: groups file not found") from None
    except ValueError as exc:
        raise UsageError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected an object with 'documents' and 'users'")
    out = []
    for key in ("documents", "users"):
        part = data.get(key, {})
        if not isinstance(part, dict) or not all(
            isinstance(v, list) and all(isinstance(g, str) and g for g in v) for v in part.values()
        ):
            raise UsageError(f"{path}: '{key}' must map names to lists of group names")
        out.append({str(k): list(v) for k, v in part.items()})
    return out[0], out[1]
