"""The reference grammar applied to evidence lines: one scan per line per ask.

Kernel module, importable by every brick. The grammar itself (the patterns, as data) is
``docintel.parsing.refpatterns``; this module applies it to lines the way the parser's
``extract_references`` does (both walk lines with ``refpatterns.references_on_lines``: a
reference broken over a line end is found by reading a little of the next line of the same
page, and reported on the line where it starts), without pandas, and remembers what it found for the rest of the ask (:func:`memo`), so the loop, the
offline backend, the validator and the detector safety net never scan a line twice.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from docintel.parsing import refpatterns

#: Characters of the next line read to finish a reference broken over a line end.
TAIL_CHARS = refpatterns.TAIL_CHARS


class _Line(Protocol):
    page: int
    line: int
    text: str


@dataclass(frozen=True)
class FoundRef:
    """One reference written on one line."""

    raw_text: str
    ref_type: str
    target: str | None
    sub_selector: str | None
    page: int
    line: int


_MEMO: contextvars.ContextVar[dict | None] = contextvars.ContextVar("docintel_refscan_memo", default=None)


@contextlib.contextmanager
def memo() -> Iterator[dict]:
    """Within this block each line is scanned once and each raw text classified once (one ask)."""
    token = _MEMO.set({"lines": {}, "classify": {}})
    try:
        yield _MEMO.get()
    finally:
        _MEMO.reset(token)


def references_in(lines: Sequence[_Line]) -> list[FoundRef]:
    """Every reference written in ``lines``, in reading order (page, line, position)."""
    ordered = sorted(lines, key=lambda ln: (ln.page, ln.line))
    cache = (_MEMO.get() or {}).get("lines")
    if cache is None:
        return [r for _, refs in scan_lines(ordered) for r in refs]
    todo = [i for i, ln in enumerate(ordered) if (ln.page, ln.line, ln.text) not in cache]
    if todo:
        for key, refs in scan_lines(ordered, only=todo):
            cache[key] = refs
    out: list[FoundRef] = []
    for ln in ordered:
        out.extend(cache[(ln.page, ln.line, ln.text)])
    return out


def external_name(row: dict) -> str | None:
    """The target of a grammar row; an external publication in the identifier kernel's one
    spelling ("NIST.SP.800-53r4" -> "SP 800-53 Rev. 4"), so a single-document external
    reference and a corpus link name it alike (the grammar's own spelling when it reads none)."""
    target = row["ref_target"]
    if row["ref_type"] != "external" or not isinstance(target, str):
        return target
    from docintel.identifiers import EXTERNAL_KINDS, normalize

    ident = normalize(target)
    if ident is None or ident.kind not in EXTERNAL_KINDS or ident.attr("footnote"):
        return target  # a number read as id + glued footnote ("800-902") stays as the grammar wrote it
    return ident.full


def scan_lines(ordered: Sequence[_Line], only: list[int] | None = None) -> list[tuple[tuple, list[FoundRef]]]:
    """One run of the grammar over ``ordered`` lines (positions ``only``, default all); the
    next line of the same page, when given, supplies the tail of a broken reference."""
    triples = [(int(ln.page), int(ln.line), str(ln.text)) for ln in ordered]
    out = []
    for k, found in refpatterns.references_on_lines(triples, only):
        ln = ordered[k]
        refs = [
            FoundRef(
                raw_text=r["anchor_text"],
                ref_type=r["ref_type"],
                target=external_name(r),
                sub_selector=r["sub_selector"],
                page=int(ln.page),
                line=int(ln.line),
            )
            for r in found
        ]
        out.append(((ln.page, ln.line, ln.text), refs))
    return out


def readings(raw_text: str) -> list[tuple[str, str | None, str | None]]:
    """Every (ref_type, target, sub_selector) the grammar reads in ``raw_text`` (a reference
    written alone, e.g. 'Table 3 row (E)'), in order; memoized per ask."""
    cache = (_MEMO.get() or {}).get("classify")
    if cache is not None and raw_text in cache:
        return cache[raw_text]
    found = [
        (r["ref_type"], external_name(r) or None, r["sub_selector"] or None)
        for r in refpatterns.find_references(raw_text or "")
    ]
    if cache is not None:
        cache[raw_text] = found
    return found


def classify(raw_text: str) -> tuple[str, str | None, str | None]:
    """(ref_type, target, sub_selector) of one reference written alone: its first reading
    (as ``refpatterns.classify_reference``), ``("unknown", None, None)`` when there is none."""
    found = readings(raw_text)
    return found[0] if found else ("unknown", None, None)
