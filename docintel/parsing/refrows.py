"""One row per target of a mention: the dicts that ``find_references`` returns."""

from __future__ import annotations

import re

from docintel.parsing.refmatch import KIND_BY_NAME, Mention, kind_of_label, label_form, language
from docintel.parsing.refnumbering import PAREN

_CHAIN = re.compile(
    r"^(?P<head>[0-9][0-9.]*(?:[a-z]{1,2}-[0-9]+|[A-Za-z])?|\((?:[a-z]{1,4}|[0-9]{1,3}|[A-Z]{1,2})\))(?P<rest>(?:[ \u00a0]?"
    + PAREN
    + r")*)$"
)
_SUBUNIT_KINDS = ("paragraph", "subsection", "clause")
#: Attachments whose name keeps its tags: "Schedule 2.1(a)" is one schedule, not Schedule 2.1's (a).
_TAGGED_NAMES = ("schedule", "exhibit")


def _split_chain(kind: str, tok: str) -> tuple[str, str | None]:
    """'(q)(1)' -> ('(q)', 'paragraph (1)'); '4.02(c)' -> ('4.02', 'paragraph (c)')."""
    m = _CHAIN.match(tok)
    if not m or not m.group("rest"):
        return tok, None
    return m.group("head"), "paragraph " + re.sub(r"[ \u00a0]", "", m.group("rest"))


def _targets(mt: Mention, text: str) -> list[tuple[str | None, str | None]]:
    if not mt.ids:
        return [(None, mt.sub)]
    if mt.family != "absolute" or mt.rule.name == "bracket_requirement":
        return [(t, mt.sub) for t in mt.ids]
    kind = mt.kind
    ids = mt.ids
    if (
        kind in _SUBUNIT_KINDS
        and ids[0].count("(") > 1
        and len(ids) > 1
        and all(i.count("(") == 1 for i in ids[1:])
    ):
        # "(h)(2) through (10)": one provision, a run of its sub-paragraphs
        raw = mt.m.group("targets") if mt.m is not None else ids[0]
        head = re.match(PAREN, raw).group(0)
        return [(head, f"paragraph {raw[len(head) :].strip()}")]
    out = []
    for t in ids:
        if t is None:
            out.append((None, mt.sub))
            continue
        tid = t.strip().rstrip(".")
        psub = None
        if kind == "equation":
            tid = tid.strip("()")
        elif kind == "control" and "(" in tid:  # "AC-2(3)": control AC-2, its enhancement (3)
            tid, psub = tid.split("(", 1)[0], "enhancement (" + tid.split("(", 1)[1]
        elif "(" in tid and kind not in _TAGGED_NAMES:
            tid, psub = _split_chain(kind, tid)
        sub = "; ".join(s for s in (psub, mt.sub) if s) or None
        out.append((tid, sub))
    return out


def rows(mt: Mention, text: str) -> list[dict]:
    kind = KIND_BY_NAME.get(mt.kind) or (kind_of_label(mt.label) if mt.label else None)
    pairs = _targets(mt, text)
    all_targets = [t for t, _ in pairs if t is not None]
    base = {
        "start": mt.start,
        "end": mt.end,
        "anchor_text": text[mt.start : mt.end].strip(),
        "ref_type": mt.ref_type,
        "pattern": mt.rule.name,
        "kind": mt.kind,
        "label": mt.label,
        "label_form": "bracket"
        if mt.label == "[]"
        else ("id" if mt.family in ("external", "bib") and not mt.label else label_form(mt.label, kind)),
        "language": language(kind, mt.label) if kind is not None and mt.label else None,
        "relative": mt.relative,
        "direction": mt.direction,
        "scope": mt.scope,
        "multi": mt.multi,
        "expanded": mt.expanded,
        "targets": all_targets,
        "family": mt.family,
    }
    return [dict(base, ref_target=t, sub_selector=s) for t, s in pairs]
