"""Where records come from: the extraction sources a RecordType names, over plain column lists.

``line_pattern`` / ``heading_pattern`` (an anchor line and its body), ``announced_list`` (bullets
after the sentence that announces them), ``child_headings`` (the subsections an opening sentence
names) and ``table_rows`` (cells assigned to header columns by x position). Kept apart from
:mod:`docintel.corpus.records`, which declares the types and assembles the records table.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pandas as pd

from docintel.corpus.record_types import RecordType

#: Line roles that end a record's body: page furniture never belongs to an item.
_FURNITURE = {"header", "footer", "page_number", "footnote"}

#: A record body stops after this many lines: a runaway body means the anchor was wrong, and a
#: list answer quotes the body. 14 covers the longest CSF/800-171/FIPS 200 item seen (9 lines).
MAX_BODY_LINES = 14

#: A continuation line on another block must be indented at least this far right of the anchor
#: (points); the glossary's definitions sit ~170 pt right of the term, a new item at +0.
CONTINUATION_INDENT = 10.0

_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
}


class _Cols:
    """The line_df columns as plain lists: row access by position without pandas overhead
    (per-row ``iloc`` made one 13k-line document take a minute)."""

    def __init__(self, lines: pd.DataFrame) -> None:
        self.text = [_clean(t) for t in lines["text"]]
        self.role = lines["role"].tolist()
        self.block = lines["block"].tolist()
        self.page = [int(p) for p in lines["page"]]
        self.line = [int(n) for n in lines["line"]]
        self.x0 = [float(x) for x in lines["x0"]]
        self.bold = [bool(b) for b in lines["bold"]] if "bold" in lines else [False] * len(self.text)
        sec = lines["section_id"] if "section_id" in lines else pd.Series([None] * len(self.text))
        self.section = [str(v) for v in sec]

    def __len__(self) -> int:
        return len(self.text)


def record_id(doc_id: str, record_type: str, key: str) -> str:
    """A stable id from the document, the type and the key (the same inputs give the same id)."""
    return hashlib.sha256(f"{doc_id}\x1f{record_type}\x1f{key}".encode()).hexdigest()[:16]


def _clean(text: Any) -> str:
    return re.sub(r"\s+", " ", str(text or "")).strip()


def _squash(text: str) -> str:
    """Letters only, lower case, without "and": "Containment, Eradication, and Recovery" and
    "containment, eradication and recovery" compare equal."""
    return re.sub(r"[^a-z]", "", re.sub(r"\band\b", "", text.lower()))


def _display(name: str) -> str:
    """A printed name as a reader expects it: "MEDIA PROTECTION" -> "Media Protection"."""
    name = _clean(name)
    if name.isupper() or name.islower():
        name = re.sub(r"\b(And|Of|The|For|To|In)\b", lambda m: m[0].lower(), name.title())
    return name


def number_value(word: str) -> int | None:
    """``"seventeen"`` -> 17, ``"17"`` -> 17, anything else -> None."""
    word = word.lower()
    return int(word) if word.isdigit() else _NUMBER_WORDS.get(word)


def _body_end(c: _Cols, i: int, anchor: re.Pattern[str], indented: bool = True) -> int:
    """Index of the last line of the record starting at line ``i`` (see CONTINUATION_INDENT)."""
    end = i
    for j in range(i + 1, min(i + MAX_BODY_LINES, len(c))):
        if c.page[j] != c.page[i] or c.role[j] in _FURNITURE or c.role[j] == "heading":
            break
        if anchor.match(c.text[j]):
            break
        same_block = c.block[j] == c.block[i]
        if not same_block and not (indented and c.x0[j] >= c.x0[i] + CONTINUATION_INDENT):
            break
        end = j
    return end


def _row(rt: RecordType, doc_id: str, key: str, fields: dict, c: _Cols, i: int, j: int) -> dict:
    text = " ".join(c.text[i : j + 1])
    return {
        "record_id": record_id(doc_id, rt.name, key),
        "record_type": rt.name,
        "key": key,
        "fields": fields,
        "text": text,
        "doc_id": doc_id,
        "page": c.page[i],
        "line_start": c.line[i],
        "page_end": c.page[j],
        "line_end": c.line[j],
        "source": "extracted",
        "note": "",
    }


def _anchored(rt: RecordType, doc_id: str, c: _Cols, headings_only: bool) -> list[dict]:
    anchor = re.compile(rt.key_pattern)
    out = []
    for i, text in enumerate(c.text):
        role = c.role[i]
        if role in _FURNITURE or (headings_only and role != "heading"):
            continue
        if role == "toc_entry":
            continue  # a contents line points at an item, it is not one
        # Headings are not skipped: the parser promotes bold item anchors ("3.13.10", "ID.AM-3:")
        # to headings; types whose keys look like section numbers are gated by ``defined_by``.
        if rt.bold_only and not c.bold[i]:
            continue
        m = anchor.match(text)
        if not m:
            continue
        j = i if headings_only else _body_end(c, i, anchor, rt.body == "indented")
        body = " ".join(c.text[i + 1 : j + 1])
        fields = {k: _clean(v) for k, v in m.groupdict().items() if k != "key" and v}
        for name in rt.fields:
            if name in m.groupdict() and body:
                fields[name] = _clean(f"{fields.get(name, '')} {body}")
        out.append(_row(rt, doc_id, m["key"], fields, c, i, j))
    return out


def _announced(rt: RecordType, doc_id: str, c: _Cols, toc: pd.DataFrame) -> list[dict]:
    """Bullet items right after a paragraph that ends with ":" and matches ``intro_pattern``.

    The announcing context is that paragraph (the lines of its block) plus its section's title;
    page furniture and footnotes may sit between the items. One list per document: the longest.
    """
    intro = re.compile(rt.intro_pattern, re.IGNORECASE)
    item = re.compile(rt.key_pattern)
    titles = {str(r.toc_id): _clean(r.title) for r in toc.itertuples()} if len(toc) else {}
    texts, roles, blocks, pages = c.text, c.role, c.block, c.page
    runs: list[list[dict]] = []
    for i, text in enumerate(texts):
        if not text.endswith(":") or roles[i] in _FURNITURE or roles[i] == "list_item":
            continue
        k = i
        while (
            k > 0
            and blocks[k - 1] == blocks[i]
            and pages[k - 1] == pages[i]
            and roles[k - 1] not in _FURNITURE
        ):
            k -= 1
        paragraph = " ".join(texts[k : i + 1])
        section = titles.get(c.section[i], "")
        last = re.split(r"(?<=[.;])\s+(?=[A-Z])", paragraph)[-1]
        if not (intro.search(last) or intro.search(section)):
            continue  # the announcement is the sentence that opens the list, or its section title
        j, items = i + 1, []
        while j < len(c):
            if roles[j] in _FURNITURE:
                j += 1
                continue
            m = item.match(texts[j]) if roles[j] == "list_item" else None
            if not m:
                break  # the first line that is neither an item nor furniture ends the list
            end = _body_end(c, j, item)
            items.append(_row(rt, doc_id, m["key"].strip(), {"intro": paragraph}, c, j, end))
            j = end + 1
        if items:
            runs.append(items)
    return max(runs, key=len) if runs else []


def _children(rt: RecordType, doc_id: str, c: _Cols, toc: pd.DataFrame) -> list[dict]:
    """Child sections of every section whose heading or first lines match ``intro_pattern``."""
    intro = re.compile(rt.intro_pattern, re.IGNORECASE)
    title = re.compile(rt.key_pattern)
    out = []
    where: dict[str, list[int]] = {}
    for i, sec_id in enumerate(c.section):
        where.setdefault(sec_id, []).append(i)
    for sec in toc.itertuples():
        sec_rows = where.get(str(sec.toc_id), [])
        head = " ".join(c.text[i] for i in sec_rows[:20])
        if not intro.search(f"{_clean(sec.title)} {head}"):
            continue
        num = _clean(getattr(sec, "number", "") or "")
        if not num or num == "nan":
            first = c.text[sec_rows[0]] if sec_rows else ""
            num = m[1] if (m := re.match(r"^(\d+(?:\.\d+)*)\.?\s", first)) else ""
        is_child = toc["parent_id"].astype(str) == str(sec.toc_id)
        if num:  # the parser's toc may hang numbered children elsewhere; the numbers say whose
            is_child |= toc["toc_id"].astype(str).str.fullmatch(re.escape(num) + r"\.\d+")
        # The sentence of the section's opening that names the most children announces the set.
        kids = [_squash(_clean(c.title)) for c in toc[is_child].itertuples()]
        sentences = re.split(r"(?<=[.:])\s+", head)
        announce = max(sentences, key=lambda t: sum(k in _squash(t) for k in kids)) if sentences else ""
        for child in toc[is_child].itertuples():
            child_lines = where.get(str(child.toc_id), [])
            m = title.match(_clean(child.title))
            if m is None or not child_lines or _squash(m["key"]) not in _squash(head):
                continue  # only the children the announcing text names (not "Recommendations")
            i = int(child_lines[0])
            out.append(_row(rt, doc_id, m["key"], {"intro": announce}, c, i, i))
    return out


def _table_rows(rt: RecordType, doc_id: str, c: _Cols) -> list[dict]:
    """Rows whose first cell matches the key; cells go to the nearest header column by x."""
    anchor = re.compile(rt.key_pattern)
    header_x: dict[str, float] = {}
    out = []
    i = 0
    while i < len(c):
        text = c.text[i]
        for word in rt.columns:
            if text.upper().endswith(word) and len(text) <= len(word) + 10:
                header_x[word] = c.x0[i]
        m = anchor.match(text)
        if not m or len(header_x) < len(rt.columns) or c.x0[i] > min(header_x.values()):
            i += 1
            continue
        j = i + 1
        cells: dict[str, list[str]] = {c: [] for c in rt.columns}
        while j < len(c) and c.page[j] == c.page[i]:
            t = c.text[j]
            if anchor.match(t) and c.x0[j] <= c.x0[i] + 5:
                break
            if c.role[j] in _FURNITURE:
                break
            col = min(rt.columns, key=lambda name: abs(header_x[name] - c.x0[j]))
            cells[col].append(t)
            j += 1
        fields = {f: " ".join(cells[c]) for f, c in zip(rt.fields, rt.columns, strict=False)}
        if "baselines" in rt.fields:
            levels = {"low": "low", "moderate": "moderate", "high": "high"}
            fields["baselines"] = " ".join(
                v for f, v in levels.items() if fields.get(f) and "not selected" not in fields[f].lower()
            )
        out.append(_row(rt, doc_id, m["key"], fields, c, i, j - 1))
        i = j
    return out
