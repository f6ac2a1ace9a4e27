"""Values derived from one table frame, kept per frame object.

An ask resolves many references against the same ``line_df`` / ``toc_df`` / ``cell_df`` /
``object_registry``; what depends only on the frame (a grouping, a scan of every line) is built
once per frame object. A memo is keyed by ``id(frame)`` and checked with ``is``, so a frame that
was freed and whose id was reused is built again; each memo keeps :data:`MAX_FRAMES` frames (the
oldest goes first), a few documents a process asks about.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: Frames one memo keeps at most.
MAX_FRAMES = 8


def per_frame(store: dict, frame: object, build: Callable[[], T]) -> T:
    """``build()`` once per ``frame`` object, kept in ``store`` as ``(frame, value)``."""
    hit = store.get(id(frame))
    if hit is None or hit[0] is not frame:
        value = build()
        if len(store) >= MAX_FRAMES:
            store.pop(next(iter(store)))
        hit = store[id(frame)] = (frame, value)
    return hit[1]
