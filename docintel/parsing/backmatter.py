"""Back matter of the registry: appendix/annex sections and bibliography entries.

Appendices come from toc_df (a heading "Appendix A ...", "Annex B", or an
unnumbered top-level section after the References); bibliography entries are
the "[18] ..." / "18. ..." / "[FIPS 180-3] ..." entries of the References section.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from docintel.parsing import frame_rows
from docintel.parsing.heading_text import NAMED_AFTER_PROVISION

_FURNITURE = ("header", "footer", "page_number", "toc_entry")
_FURNITURE_SET = frozenset(_FURNITURE)
_BIB_HEAD = re.compile(r"\b(references|bibliography|works cited|literature cited|citations)\b", re.I)
_BIB_START = re.compile(
    r"^\[(?P<id>[0-9]{1,4}|[A-Za-z][\w\-+./ ]{0,40}?)\]\s*(?P<rest>\S.*)?$|^(?P<num>[0-9]{1,3})\.\s+(?P<rest2>[A-Z\u00c0-\u024f].*)$"
)
_APPENDIX = re.compile(
    r"^(?:(?P<num>[0-9]{1,2})\.?\s+)?(?P<kw>appendix|annex|exhibit|schedule|attachment)\b\s*"
    # "SCHEDULE 2.1(a)": named after the provision that calls for it
    r"(?P<id>" + NAMED_AFTER_PROVISION + r"|(?:[A-Z]|[0-9]{1,2}|[IVX]{1,4})\b)?",
    re.I,
)
#: "A Additional Details" / "B. Setup" after the References: a lettered appendix
_LETTERED = re.compile(r"^(?P<id>[A-H])\.?(?:\s+|$)")


def _section_lines(line_df: pd.DataFrame, t) -> pd.DataFrame:
    start = (line_df.page > t.page_start) | (
        (line_df.page == t.page_start) & (line_df.line >= (t.line_start or 1))
    )
    end = (line_df.page < t.page_end) | (
        (line_df.page == t.page_end) & (line_df.line <= (t.line_end or 10**6))
    )
    return line_df[start & end & ~line_df.role.isin(_FURNITURE)]


def appendices(toc_df: pd.DataFrame, line_df: pd.DataFrame, seen: set[str]) -> list[dict]:
    """Appendix/annex sections; unnumbered top-level sections after the References are appendices too."""
    out = []
    after_refs = False
    n_unnum = 0
    if toc_df.empty:
        return out
    top = int(toc_df["level"].min())
    # only the lines a toc entry starts at are ever looked up ((page, line) as one integer);
    # their columns are taken one by one (a boolean take of the whole frame copies every
    # Arrow-backed string column)
    starts = [
        int(p) * 1_000_000 + int(ln)
        for p, ln in zip(toc_df["page_start"].tolist(), toc_df["line_start"].tolist(), strict=True)
        if pd.notna(ln)
    ]
    key = line_df["page"].to_numpy().astype(np.int64) * 1_000_000 + line_df["line"].to_numpy().astype(
        np.int64
    )
    sel = np.flatnonzero(np.isin(key, np.array(starts, dtype=np.int64)))
    page_l, line_l, text_l, role_l, x0_l, y0_l, x1_l, y1_l = (
        line_df[c].iloc[sel].tolist() for c in ("page", "line", "text", "role", "x0", "y0", "x1", "y1")
    )
    # column lists, not Series: zip over an Arrow-backed string column yields value by value
    heads = {
        (int(p), int(ln)): str(tx).strip()
        for p, ln, tx in zip(page_l, line_l, text_l, strict=False)
        if ln is not None
    }
    # the heading line's box, looked up once per line (a section's line frame per appendix was slow)
    boxes = {
        (int(p), int(ln)): (a, b, c, d)
        for p, ln, r, a, b, c, d in zip(page_l, line_l, role_l, x0_l, y0_l, x1_l, y1_l, strict=False)
        if r not in _FURNITURE_SET
    }
    for t in frame_rows.rows(toc_df.sort_values(["page_start", "line_start"])):
        number = t.number if isinstance(t.number, str) else None  # NaN / NA when unnumbered
        full = f"{number or ''} {t.title}".strip()
        head = heads.get((int(t.page_start), int(t.line_start))) if pd.notna(t.line_start) else None
        m = (
            _APPENDIX.match(full)
            or _APPENDIX.match(str(t.title))
            or (_APPENDIX.match(head) if head else None)
        )
        kind = oid = None
        if m:
            kind = m.group("kw").lower()
            oid = m.group("id") or m.group("num") or (number.rstrip(".") if number else None)
        elif after_refs and t.level <= top and (_LETTERED.match(full) or not number):
            kind = "appendix"
            lm = _LETTERED.match(full)
            oid = lm.group("id") if lm else None
        if _BIB_HEAD.search(str(t.title)) and t.level <= 2:
            after_refs = True
        if kind is None:
            continue
        if oid is None:
            n_unnum += 1
            oid = f"u{n_unnum}"
        key = f"{kind}:{oid}"
        if key in seen:
            continue
        label = f"{kind.capitalize()} {oid}" if not oid.startswith("u") else kind.capitalize()
        box = boxes.get((int(t.page_start), int(t.line_start))) if pd.notna(t.line_start) else None
        out.append(
            {
                "object_key": key,
                "object_type": kind,
                "object_id": oid,
                "label": label,
                "caption": t.title,
                "page": int(t.page_start),
                "line_start": t.line_start,
                "line_end": t.line_end,
                "page_end": int(t.page_end),
                "x0": box[0] if box else None,
                "y0": box[1] if box else None,
                "x1": box[2] if box else None,
                "y1": box[3] if box else None,
                "source": "outline" if t.source == "outline" else "heading",
            }
        )
    out = _in_sequence(out)
    seen.update(o["object_key"] for o in out)
    # Where appendices carry labels ("Appendix A", "B Setup"), an unlabelled section after the
    # References is not one: an "Appendix for ..." part title over them, or a bold entry of a list.
    numbered = [o for o in out if not o["object_id"].startswith("u")]
    if numbered:
        gone = [o for o in out if o["object_id"].startswith("u")]
        for o in gone:
            seen.discard(o["object_key"])
        out = [o for o in out if o not in gone]
    return out


def _order(oid: str) -> int | None:
    """Where a label stands in its sequence: A, B, C ... or 1, 2, 3 ... (None: no order read)."""
    if len(oid) == 1 and oid.isalpha():
        return ord(oid.upper()) - ord("A") + 1
    return int(oid) if oid.isdigit() else None


def _in_sequence(found: list[dict]) -> list[dict]:
    """One object per label, the line that keeps the labels in their order.

    A table cell or a wrapped sentence can open with "Appendix D" ("(see Appendix D Scenario 3)"
    in a risk table): read as a heading, it came before Appendix A and took the label from the
    real Appendix D. Of a label found more than once, the first after the labels before it in the
    sequence (A before B, 1 before 2) is kept; with none after them, the first, as before.
    A document with one sequence per volume keeps the first volume's, as before.
    """
    by_key: dict[str, list[int]] = {}
    for i, o in enumerate(found):
        by_key.setdefault(o["object_key"], []).append(i)
    pick = {key: ix[0] for key, ix in by_key.items()}
    ranked = sorted(
        (found[ix[0]]["object_type"], _order(found[ix[0]]["object_id"]), key)
        for key, ix in by_key.items()
        if _order(found[ix[0]]["object_id"]) is not None
    )
    last: dict[str, int] = {}  # kind -> the latest position kept of a label before this one
    for kind, _rank, key in ranked:
        ix = by_key[key]
        after = [i for i in ix if i > last.get(kind, -1)]
        pick[key] = after[0] if after else ix[0]
        last[kind] = max(last.get(kind, -1), pick[key])
    return [found[i] for i in sorted(pick.values())]


def bibliography(toc_df: pd.DataFrame, line_df: pd.DataFrame, seen: set[str]) -> list[dict]:
    """'[18] Author. Title ...' or '18. Author ...' entries inside the References section."""
    out = []
    # itertuples' namedtuples, from column lists: only of the entries titled like a reference list
    heads = [
        k
        for k, title in enumerate(toc_df["title"].tolist() if len(toc_df) else [])
        if _BIB_HEAD.search(str(title)) and len(str(title)) <= 40
    ]
    for t in frame_rows.rows(toc_df.iloc[heads]) if heads else ():
        sec = _section_lines(line_df, t).sort_values(["page", "line"])
        cur = None
        for r in frame_rows.rows(sec):
            if r.role in ("heading", "title"):
                continue
            m = _BIB_START.match(str(r.text).strip())
            if m:
                oid = (m.group("id") or m.group("num")).strip()
                cur = {
                    "object_key": f"bib:{oid}",
                    "object_type": "bib",
                    "object_id": oid,
                    "label": f"[{oid}]",
                    "caption": str(r.text).strip(),
                    "page": int(r.page),
                    "line_start": int(r.line),
                    "line_end": int(r.line),
                    "page_end": int(r.page),
                    "x0": r.x0,
                    "y0": r.y0,
                    "x1": r.x1,
                    "y1": r.y1,
                    "source": "bibliography",
                    "_idx": [r.Index],
                }
                if cur["object_key"] in seen:
                    cur = None
                    continue
                seen.add(cur["object_key"])
                out.append(cur)
            elif (
                cur is not None
                and r.page == cur["page_end"]
                or cur is not None
                and r.page == cur["page_end"] + 1
            ):
                cur["caption"] += " " + str(r.text).strip()
                cur["line_end"], cur["page_end"] = int(r.line), int(r.page)
                if r.page == cur["page"]:
                    cur.update(x0=min(cur["x0"], r.x0), x1=max(cur["x1"], r.x1), y1=max(cur["y1"], r.y1))
                cur["_idx"].append(r.Index)
    # one write for every entry's lines (a write per entry costs a pass over the column each);
    # a line in two entries keeps the later one's key, as writing them in turn did
    if not line_df.index.is_unique:
        for o in out:
            line_df.loc[o.pop("_idx"), "object_key"] = o["object_key"]
        return out
    key_of = {i: o["object_key"] for o in out for i in o.pop("_idx")}
    if key_of:
        line_df.loc[list(key_of), "object_key"] = list(key_of.values())
    return out
