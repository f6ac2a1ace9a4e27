"""Sub-units a reference names inside the provision it is written in, found by their lines.

"paragraph 1 of this Article" is the "1." of the Article holding the reference, and "paragraph
(b)(1) of this section" the (b) then (1) under the section heading above it. The toc does not
always list those units: a regulation may print an Article's numbered paragraphs as body lines,
and the parser may miss a section heading ("§ 164.502 Uses and ..."), leaving its lines under
the previous section's toc row. These functions read the lines instead; the resolver
(``resolve.py``) tries them before the toc's own numbers.
"""

from __future__ import annotations

import re

import pandas as pd

from docintel.retrieval.framememo import per_frame
from docintel.retrieval.lookup import norm_id
from docintel.schema.document import DocTables
from docintel.schema.kinds import FURNITURE_ROLES

#: A toc row that is a sub-unit marker ("(g)", "(1)", "ii."), not a provision a paragraph belongs to.
_MARKER_ROW = re.compile(r"^\s*(?:\([A-Za-z0-9]{1,4}\)|[A-Za-z0-9]{1,4}[.)])\s*$")


def enclosing_paragraph(tables: DocTables, target: str, origin: tuple[int, int]) -> tuple[int, int] | None:
    """(page, line) of the numbered paragraph ``target`` ("1." for "paragraph 1 of this Article") of
    the provision the reference is written in: the innermost toc row holding the reference that
    is a provision (an "Article 14", a "§ 5", a "4.2"), not a point marker ("(g)"); the first line
    of its region opening with "1." (its paragraphs are body lines, not toc rows). None when the
    id is not a plain number, the reference sits in no provision, or the provision prints no such
    paragraph: a rule cites "paragraph 1" of the Article it is in, never another unit's "1"."""
    if not str(target).isdigit():
        return None
    toc, lines = tables.toc_df, tables.line_df
    if toc.empty or "section_id" not in lines:
        return None
    sid = citing_section(tables, origin)
    rows = toc.set_index("toc_id", drop=False)
    if not rows.index.is_unique:
        rows = rows[~rows.index.duplicated()]
    seen: set[str] = set()
    while isinstance(sid, str) and sid in rows.index and sid not in seen:
        seen.add(sid)
        row = rows.loc[sid]
        label = " ".join(str(row[c]) for c in ("number", "title") if isinstance(row[c], str)).strip()
        if label and not _MARKER_ROW.match(label):
            break
        sid = row["parent_id"]
    else:
        return None
    kids: dict[str, list[str]] = {}
    for tid, pid in zip(toc["toc_id"], toc["parent_id"], strict=True):
        if isinstance(pid, str):
            kids.setdefault(pid, []).append(tid)
    region, todo = {sid}, [sid]
    while todo:
        for k in kids.get(todo.pop(), []):
            if k not in region:
                region.add(k)
                todo.append(k)
    inside = lines[
        lines["section_id"].isin(region) & ~lines["role"].fillna("body").isin([*FURNITURE_ROLES, "toc_entry"])
    ]
    marker = re.compile(rf"^\s*{re.escape(str(target))}\.(?:\s+\S|\s*$)")  # "1. Where ..." or "1." alone
    for r in inside.sort_values(["page", "line"]).itertuples(index=False):
        if (int(r.page), int(r.line)) != tuple(origin) and marker.match(str(r.text)):
            return int(r.page), int(r.line)
    return None


_PAREN_TAG = re.compile(r"\([A-Za-z0-9]{1,4}\)")
#: A heading naming a section of the rule: "§ 164.502 Uses and ...", "SEC. 104. ENVIRONMENTAL ...".
_PROVISION = re.compile(
    r"^\s*(?:\u00a7|(?i:sec(?:tion)?\.?))\s*(?P<id>[0-9]+(?:\.[0-9]+)*[a-z]?)\.?\s+[A-Z\u00c0-\u00de]"
)
#: id(line_df) -> (line_df, ([(page, line, id) of the provision headings], the evidence lines)).
_HEADS: dict[int, tuple] = {}


def citing_section(tables: DocTables, origin: tuple[int, int]) -> str | None:
    """The toc id of the section the line at ``origin`` (page, line) sits in, if any."""
    lines = tables.line_df
    at = lines.loc[(lines["page"] == origin[0]) & (lines["line"] == origin[1]), "section_id"]
    return at.iloc[0] if len(at) and isinstance(at.iloc[0], str) else None


def _evidence(tables: DocTables) -> pd.DataFrame:
    lines = tables.line_df
    return lines[~lines["role"].fillna("body").isin([*FURNITURE_ROLES, "toc_entry"])].sort_values(
        ["page", "line"]
    )


def provision_heads(tables: DocTables) -> tuple[list[tuple[int, int, str]], pd.DataFrame]:

    def build() -> tuple[list[tuple[int, int, str]], pd.DataFrame]:
        ev = _evidence(tables)
        heads = [
            (int(r.page), int(r.line), m.group("id"))
            for r in ev.itertuples(index=False)
            if (m := _PROVISION.match(str(r.text))) and not re.search(r"(?:\.\s?){4,}", str(r.text))
        ]
        return heads, ev

    return per_frame(_HEADS, tables.line_df, build)


def unlisted_provision_paragraph(
    tables: DocTables, target: str, sub: str | None, origin: tuple[int, int]
) -> tuple[int, int] | None:
    """(page, line) of paragraph ``target`` ("(b)", with ``sub`` "paragraph (1)" read on: its
    (1)) of the section whose heading line is the last one before the reference, when the toc
    does not list that section (so the reference's toc row is the previous section's, and the
    toc's own "(b)" would be that section's). The lines after the heading, up to the next
    section heading, are read in order: the first opening with "(b)", then with "(1)" after it.
    None when the target is not a parenthesized id, the heading is in the toc (the toc knows the
    section's paragraphs), or the paragraph is not printed."""
    if not _PAREN_TAG.fullmatch(str(target)):
        return None
    heads, ev = provision_heads(tables)
    key = origin[0] * 10**6 + origin[1]
    before = [h for h in heads if h[0] * 10**6 + h[1] <= key]
    if not before:
        return None
    page, line, sid = before[-1]
    toc = tables.toc_df
    listed = set(toc["toc_id"].map(norm_id)) | set(toc["number"].map(norm_id)) if len(toc) else set()
    if norm_id(sid) in listed:
        return None
    after = [h for h in heads if h[0] * 10**6 + h[1] > page * 10**6 + line]
    stop = after[0][0] * 10**6 + after[0][1] if after else 10**12
    at = ev["page"].to_numpy() * 10**6 + ev["line"].to_numpy()
    region = ev[(at > page * 10**6 + line) & (at < stop)]
    m = re.match(r"paragraphs?\s+((?:\([A-Za-z0-9]{1,4}\))+)", sub or "")
    tags = [str(target), *(_PAREN_TAG.findall(m.group(1)) if m else [])]
    found, k = None, 0
    for r in region.itertuples(index=False):
        text = str(r.text).lstrip()
        if k < len(tags) and text.startswith(tags[k]):
            found = (int(r.page), int(r.line))
            text = text[len(tags[k]) :]
            k += 1
            while k < len(tags) and text.startswith(tags[k]):  # "(2)(i) Standard: ..." opens two
                text, k = text[len(tags[k]) :], k + 1
            if k == len(tags):
                break
    return found if found != tuple(origin) else None


#: Lines read after a labelled heading to find the paragraph a reference's sub-selector names.
TAGGED_SPAN = 600
_TAG = re.compile(r"\(([A-Za-z0-9]{1,4})\)")


def tagged_region(
    tables: DocTables, at: tuple[int, int], sub: str | None, max_lines: int
) -> pd.DataFrame | None:
    """The heading line at ``at`` and, under it, the paragraph ``sub`` names ("paragraph (e)",
    "paragraph (b)(2)": the line opening "(b)", then the "(2)" after it), up to the next heading
    of the same label ("§ 164.516 ..." after "§ 164.514 ..."); None when ``sub`` names no tag or
    the provision prints no such paragraph. For a provision the toc misses: "§ 164.514(e)" is
    its (e), not the first lines under its heading."""
    from docintel.retrieval.targets import closing_items, evidence_after, form_line, opens_item

    tags = _TAG.findall(sub or "")
    opens = form_line(sub)
    if not tags and opens is None:
        return None
    after = evidence_after(tables, at[0], at[1] - 1, TAGGED_SPAN)
    texts = [str(t).strip() for t in after["text"].tolist()]
    if not texts:
        return None
    label = re.match(r"[^\w\s]+|[A-Za-z]+", texts[0])
    end = next((k for k in range(1, len(texts)) if label and texts[k].startswith(label.group(0))), len(texts))
    if opens is not None:  # "Part II, line 5": the line the part numbers 5, before the next part
        pos = next((k for k in range(1, end) if opens.match(texts[k])), None)
        return None if pos is None else _cut(after, pos, end, max_lines)
    x0 = after["x0"].tolist() if "x0" in after else [float("nan")] * len(texts)
    pages = after["page"].tolist()
    pos, prev = 0, None
    closing = closing_items(texts[1:end])
    for t in tags:
        # walk the level's run up to the tag ("(a)", "(b)", ... "(i)"), each step on a line indented
        # like the step before it (or left of it): a lettered "(i)" comes after "(h)", never the
        # roman "(i)" nested under "(h)(1)"
        level = None
        for step in _run_to(t, prev):
            nxt = next(
                (
                    k
                    for k in range(pos + 1, end)
                    if opens_item(texts[k], step, prev is not None or closing)
                    and not _deeper(x0, pages, k, level)
                ),
                None,
            )
            if nxt is None:
                return None if prev is None else _cut(after, pos, end, max_lines)
            pos = level = nxt
        prev = t
    return _cut(after, pos, end, max_lines)


#: Points a line may stand right of its level's previous line and be of the same level, and the
#: shift past which it is read as the next column (a two-column page), not a nested paragraph.
_SAME_LEVEL, _COLUMN_SHIFT = 3.0, 120.0


def _deeper(x0: list, pages: list, k: int, level: int | None) -> bool:
    """Whether line ``k`` is indented a nesting step right of line ``level`` (same page)."""
    if level is None or pages[k] != pages[level] or x0[k] != x0[k] or x0[level] != x0[level]:
        return False
    return x0[level] + _SAME_LEVEL < x0[k] < x0[level] + _COLUMN_SHIFT


def _run_to(tag: str, prev: str | None) -> list[str]:
    """The ids of a level from its first to ``tag``: "e" -> a b c d e; "3" -> 1 2 3; a roman tag
    under a number ("(2)(iii)") -> i ii iii; the tag alone when its run cannot be told."""
    from docintel.parsing.refnumbering import roman_value
    from docintel.text import to_roman

    if tag.isdigit():
        return [str(i) for i in range(1, int(tag) + 1)] if int(tag) <= 60 else [tag]
    roman = roman_value(tag.lower()) if prev is not None and prev.isdigit() else None
    if roman and tag.islower():
        return [to_roman(i, False) for i in range(1, roman + 1)]
    if len(tag) == 1 and tag.isalpha():
        first = "a" if tag.islower() else "A"
        return [chr(c) for c in range(ord(first), ord(tag) + 1)]
    return [tag]


def _cut(after: pd.DataFrame, pos: int, end: int, max_lines: int) -> pd.DataFrame:
    return pd.concat([after.iloc[:1], after.iloc[pos : min(end, pos + max(max_lines - 1, 4))]])
