"""Records: items with a fixed shape, copied out of a document's structure at ingestion.

A record type is declared as DATA (:class:`RecordType`): where its items come from in the parsed
tables, the pattern of its key, its named fields (and which of them no document states, i.e. are
derived by our code), and how the completeness report counts it a second way. Adding a type is a
deliberate small edit to :data:`RECORD_TYPES` plus routing test cases, never code per document.

:func:`extract_records` reads one document's ``line_df`` / ``toc_df`` and returns one row per
record with the page and line span of its source lines, so a list answer cites each item where the
document states it. Nothing here knows a file name or a question.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import pandas as pd

Source = Literal["line_pattern", "heading_pattern", "announced_list", "child_headings", "table_rows"]
SecondCount = Literal["identifiers", "stated_total", "anchor_lines", "none"]

#: Columns of the records table (the store's ``records`` table adds block_id and access groups).
RECORD_COLUMNS = [
    "record_id",
    "record_type",
    "key",
    "fields",
    "text",
    "doc_id",
    "page",
    "line_start",
    "page_end",
    "line_end",
    "source",
    "note",
]
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


@dataclass(frozen=True)
class GroupNames:
    """How a record's group (category, family) gets its printed name.

    ``mode``: ``inline`` finds ``pattern`` (groups ``name`` and ``group``) in the document's joined
    text; ``next_key`` takes the name from a line matching ``pattern`` (group ``name``) and the
    group from the next record key after it; ``section`` uses the title of the record's section.
    """

    mode: Literal["inline", "next_key", "section"]
    pattern: str = ""


@dataclass(frozen=True)
class RecordType:
    """One kind of record, declared as data (see the module docstring)."""

    name: str
    label: str  # plural noun phrase for answers: "framework subcategories"
    source: Source
    key_pattern: str  # regex on a stripped line; group ``key`` (+ optional named field groups)
    fields: tuple[str, ...] = ()
    derived: Mapping[str, str] = field(default_factory=dict)  # field -> how our code derives it
    group_of_key: str = ""  # regex with group ``group`` applied to the key ("ID.SC" of "ID.SC-1")
    group_names: GroupNames | None = None
    second_count: SecondCount = "none"
    mention_pattern: str = ""  # identifiers: group ``key``; stated_total: group ``n``
    mention_scope: Literal["corpus", "document"] = "document"
    intro_pattern: str = ""  # announced_list / child_headings: the announcing text
    columns: tuple[str, ...] = ()  # table_rows: header words, left to right, one per field
    defined_by: str = ""  # regex a document's text must contain for the type to be read there
    bold_only: bool = False  # anchors must be bold (a bare "IR-1" cell is not a catalog entry)
    body: Literal["block", "indented"] = "indented"  # continuation: same block, or also indented
    min_per_doc: int = 1  # fewer anchors than this in a document are mentions, not a definition
    # Router vocabulary: plural nouns naming the type, and context that must also be present.
    nouns: str = ""
    context: str = ""
    filter_words: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if "(?P<key>" not in self.key_pattern:
            raise ValueError(f"record type {self.name}: key_pattern needs a (?P<key>...) group")


_CSF_ID = r"(?:ID|PR|DE|RS|RC)\.[A-Z]{2}-\d{1,2}"
_CONTROL_ID = r"[A-Z]{2}-\d{1,2}"

RECORD_TYPES: dict[str, RecordType] = {
    t.name: t
    for t in (
        RecordType(
            "csf_subcategory",
            "framework subcategories",
            "line_pattern",
            rf"^(?P<key>{_CSF_ID}):\s*(?P<outcome>.*)$",
            fields=("outcome", "category", "category_name", "function"),
            derived={"category": "key before '-'", "function": "key before '.'"},
            group_of_key=r"^(?P<group>[A-Z]{2}\.[A-Z]{2})-",
            group_names=GroupNames(
                "inline", r"(?m)^(?P<name>[A-Z][A-Za-z ,\n]+?)[ \n]\((?P<group>[A-Z]{2}\.[A-Z]{2})\):"
            ),
            second_count="identifiers",
            mention_pattern=rf"(?<![\w.])(?P<key>{_CSF_ID})(?![\d\w])",
            mention_scope="corpus",
            min_per_doc=5,
            nouns=r"subcategor(?:y|ies)|framework outcomes",
        ),
        RecordType(
            "security_requirement",
            "security requirements",
            "line_pattern",
            r"^(?P<key>3\.\d{1,2}\.\d{1,2})(?:\s+(?P<requirement>[A-Z].*))?$",
            fields=("requirement", "family", "family_name"),
            derived={"family": "key before the last '.'"},
            group_of_key=r"^(?P<group>3\.\d{1,2})\.",
            group_names=GroupNames("section"),
            second_count="identifiers",
            mention_pattern=r"(?<![\d.])(?P<key>3\.\d{1,2}\.\d{1,2})(?![\d.])",
            min_per_doc=20,
            nouns=r"(?:security )?requirements",
            context=r"\bCUI\b|controlled unclassified|800-171|nonfederal",
        ),
        RecordType(
            "control",
            "security controls",
            "line_pattern",
            rf"^(?P<key>{_CONTROL_ID})(?:\s+(?P<title>[A-Z][A-Z ,/&()\-]{{3,}}))?$",
            fields=("title", "family", "family_name"),
            bold_only=True,
            body="block",
            derived={"family": "key before '-'"},
            group_of_key=r"^(?P<group>[A-Z]{2})-",
            group_names=GroupNames("next_key", r"^FAMILY:\s*(?P<name>[A-Z][A-Z ,]+?)(?:\s+CLASS:.*)?$"),
            second_count="anchor_lines",
            mention_pattern=rf"^(?P<key>{_CONTROL_ID})(?:\s+[A-Z][A-Z ,/&()\-]{{3,}})?$",
            min_per_doc=20,
            nouns=r"controls",
            context=r"800-53|control catalog|catalog",
        ),
        RecordType(
            "control_baseline",
            "security controls in the baselines",
            "table_rows",
            rf"^(?P<key>{_CONTROL_ID})$",
            fields=("title", "priority", "low", "moderate", "high", "baselines", "family", "family_name"),
            derived={"baselines": "columns whose cell is not 'Not Selected'", "family": "key before '-'"},
            group_of_key=r"^(?P<group>[A-Z]{2})-",
            group_names=GroupNames("next_key", r"^FAMILY:\s*(?P<name>[A-Z][A-Z ,]+?)(?:\s+CLASS:.*)?$"),
            columns=("NAME", "PRIORITY", "LOW", "MOD", "HIGH"),
            second_count="anchor_lines",
            mention_pattern=rf"^(?P<key>{_CONTROL_ID})$",
            min_per_doc=20,
            nouns=r"controls|control enhancements",
            context=r"baseline",
            filter_words={
                "baselines": {
                    "low": r"\blow(?:-impact)?\b",
                    "moderate": r"\bmoderate\b",
                    "high": r"\bhigh(?:-impact)?\b",
                }
            },
        ),
        RecordType(
            "security_area",
            "security-related areas",
            "line_pattern",
            r"^(?P<name>[A-Z][A-Za-z]+(?:,? (?:and |[A-Z])[A-Za-z]*)*) \((?P<key>[A-Z]{2})\): Organizations must",
            fields=("name",),
            second_count="stated_total",
            mention_pattern=r"\bcover (?P<n>\w+) security-related areas",
            min_per_doc=3,
            nouns=r"(?:security[- ]related )?areas|families",
            context=r"minimum security requirements|FIPS 200",
        ),
        RecordType(
            "implementation_tier",
            "Implementation Tiers",
            "heading_pattern",
            r"^(?P<key>Tier \d):\s*(?P<name>[A-Z][A-Za-z ]+)$",
            fields=("name",),
            second_count="anchor_lines",
            mention_pattern=r"^Tier \d:",
            min_per_doc=2,
            nouns=r"(?:implementation )?tiers",
        ),
        RecordType(
            "assurance_level",
            "assurance levels",
            "line_pattern",
            r"^(?P<key>(?P<kind>IAL|AAL|FAL)\d):\s+(?P<summary>.+)$",
            fields=("kind", "summary"),
            derived={"kind": "key prefix"},
            second_count="identifiers",
            mention_pattern=r"\b(?P<key>(?:IAL|AAL|FAL)[1-3])\b",
            min_per_doc=2,
            nouns=r"assurance levels|IALs|AALs|FALs",
            filter_words={
                "kind": {
                    "IAL": r"identity assurance|\bIAL",
                    "AAL": r"authenticator assurance|\bAAL",
                    "FAL": r"federation assurance|\bFAL",
                }
            },
        ),
        RecordType(
            "process_step",
            "steps of the Risk Management Framework",
            "announced_list",
            r"^[•\-–]\s*(?P<key>[A-Z][a-z]+)\b(?P<summary>.*)$",
            fields=("summary",),
            intro_pattern=r"\b(?:RMF|Risk Management Framework) steps\b|\bsteps (?:of|in) the (?:RMF|Risk Management Framework)\b",
            second_count="stated_total",
            mention_pattern=r"\b(?P<n>\w+) steps in the (?:RMF|Risk Management Framework)\b",
            min_per_doc=3,
            nouns=r"steps",
            context=r"\bRMF\b|risk management framework",
        ),
        RecordType(
            "lifecycle_phase",
            "phases of the incident response life cycle",
            "child_headings",
            r"^(?:\d+(?:\.\d+)*\.?\s+)?(?P<key>[A-Z].+)$",
            intro_pattern=r"incident response process has several phases|phases of the incident response",
            second_count="none",
            min_per_doc=2,
            nouns=r"phases",
            context=r"incident response|incident handling",
        ),
        RecordType(
            "resiliency_technique",
            "cyber resiliency techniques",
            "announced_list",
            r"^[•\-–]\s*(?P<key>[A-Z][A-Za-z\- ]+?)[;.,]?(?: and)?$",
            intro_pattern=r"\b(?P<n>\w+) techniques are part of the\s+cyber resiliency",
            second_count="stated_total",
            mention_pattern=r"\b(?P<n>\w+) techniques are part of the\s+cyber resiliency",
            min_per_doc=3,
            nouns=r"techniques",
            context=r"cyber resiliency",
        ),
        RecordType(
            "glossary_term",
            "glossary terms",
            "line_pattern",
            r"^(?P<key>[A-Z][A-Za-z0-9()/'\- ]{1,80}?)\s?–\s*(?P<definition>.*)$",
            fields=("definition",),
            second_count="anchor_lines",
            mention_pattern=r"^[A-Z][^–]{0,80}\s–(?:\s|$)",
            min_per_doc=50,
            nouns=r"terms|definitions",
            context=r"glossary|defined",
        ),
        RecordType(
            "defined_term",
            "defined terms",
            "line_pattern",
            r"^[“\"](?P<key>[A-Z][^”\"]{1,60})[”\"]\s+(?:means|shall mean|has the meaning)\b(?P<definition>.*)$",
            fields=("definition",),
            second_count="anchor_lines",
            mention_pattern=r"[“\"](?P<key>[A-Z][^”\"]{1,60})[”\"]\s+(?:means|shall mean|has the meaning)\b",
            nouns=r"defined terms|definitions",
            context=r"contract|agreement|defined",
        ),
        RecordType(
            "ad_paragraph",
            "AD paragraphs",
            "line_pattern",
            r"^\((?P<key>[a-z])\)\s+(?P<title>[A-Z][A-Za-z ,/\-]{2,60})$",
            fields=("title",),
            second_count="identifiers",
            mention_pattern=r"\bparagraph \((?P<key>[a-z])\)",
            defined_by=r"\bAirworthiness Directive\b|\bAD \d{4}-\d{2}-\d{2}\b",
            min_per_doc=3,
            nouns=r"paragraphs",
            context=r"\bAD\b|airworthiness directive",
        ),
    )
}


def record_id(doc_id: str, record_type: str, key: str) -> str:
    """A stable id from the document, the type and the key (the same inputs give the same id)."""
    return hashlib.sha256(f"{doc_id}\x1f{record_type}\x1f{key}".encode()).hexdigest()[:16]


def _frames(tables: Any) -> tuple[str, pd.DataFrame, pd.DataFrame]:
    get = tables.get if isinstance(tables, Mapping) else lambda n, d=None: getattr(tables, n, d)
    lines = get("line_df")
    if lines is None:
        raise ValueError("extract_records needs a line_df table")
    toc = get("toc_df")
    toc = toc if toc is not None else pd.DataFrame(columns=["toc_id", "title", "parent_id"])
    doc_id = get("doc_id") or (str(lines["doc_id"].iloc[0]) if len(lines) else "")
    lines = lines.sort_values(["page", "line"]).reset_index(drop=True)
    return doc_id, lines, toc


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
        if not headings_only and role in ("heading", "toc_entry"):
            continue  # a heading is a section, not an item; a contents line points at one
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


def _group_names(rt: RecordType, lines: pd.DataFrame, toc: pd.DataFrame) -> dict[str, str]:
    """Map group (``ID.SC``, ``IR``, ``3.8``) -> the name the document prints for it."""
    gn = rt.group_names
    if gn is None or not rt.group_of_key:
        return {}
    names: dict[str, str] = {}
    if gn.mode == "inline":
        # A name sits in one text block (a table cell); joining across blocks would glue the
        # previous cell or page ("Informative References") onto it.
        blocks = [
            "\n".join(_clean(t) for t in g["text"]) for _, g in lines.groupby(["page", "block"], sort=False)
        ]
        for m in (m for b in blocks for m in re.finditer(gn.pattern, b)):
            parts = m["name"].split("\n")
            # Leading one-word or all-caps lines are column headers ("Function", "Category",
            # "IDENTIFY") that reading order put before the name; the name's own lines follow.
            while len(parts) > 1 and (len(parts[0].split()) == 1 or parts[0].isupper()):
                parts.pop(0)
            names.setdefault(m["group"], _display(" ".join(parts)))
    elif gn.mode == "next_key":
        pending, head, key = None, re.compile(gn.pattern), re.compile(rt.group_of_key)
        for text in lines["text"]:
            text = _clean(text)
            if m := head.match(text):
                pending = m["name"]
            elif pending and (k := key.match(text)):
                names.setdefault(k["group"], _display(pending))
                pending = None
    else:
        for row in toc.itertuples():
            names.setdefault(
                str(row.toc_id), _display(re.sub(r"^\d+(?:\.\d+)*\.?\s+", "", _clean(row.title)))
            )
    return names


def _add_groups(rt: RecordType, recs: list[dict], names: dict[str, str]) -> None:
    if not rt.group_of_key:
        return
    pat = re.compile(rt.group_of_key)
    group_field = next((f for f in rt.fields if f in ("category", "family")), "group")
    for r in recs:
        if m := pat.match(r["key"]):
            r["fields"][group_field] = m["group"]
            if m["group"] in names:
                r["fields"][f"{group_field}_name"] = names[m["group"]]
        if rt.name.endswith("subcategory") and "." in r["key"]:
            r["fields"]["function"] = r["key"].split(".")[0]


def extract_records(tables: Any, types: Iterable[RecordType] | None = None) -> pd.DataFrame:
    """Every record of ``types`` (default: all) in one document's tables.

    ``tables`` is a DocTables or a mapping with ``line_df`` (and optionally ``toc_df``,
    ``doc_id``). A key seen twice in one document (the 800-171 requirements repeat in Appendix D)
    is one record at its first occurrence. A type with fewer than ``min_per_doc`` anchors in the
    document gives no records there: a few stray matches are mentions, not a definition.
    """
    doc_id, lines, toc = _frames(tables)
    rows: list[dict] = []
    cols = _Cols(lines)
    joined = "\n".join(cols.text)
    for rt in types if types is not None else RECORD_TYPES.values():
        if rt.defined_by and not re.search(rt.defined_by, joined):
            continue
        if rt.source in ("line_pattern", "heading_pattern"):
            recs = _anchored(rt, doc_id, cols, headings_only=rt.source == "heading_pattern")
        elif rt.source == "announced_list":
            recs = _announced(rt, doc_id, cols, toc)
        elif rt.source == "child_headings":
            recs = _children(rt, doc_id, cols, toc)
        else:
            recs = _table_rows(rt, doc_id, cols)
        seen: dict[str, dict] = {}
        for r in recs:
            seen.setdefault(r["key"], r)
        if len(seen) < rt.min_per_doc:
            continue
        recs = list(seen.values())
        _add_groups(rt, recs, _group_names(rt, lines, toc))
        rows.extend(recs)
    for r in rows:
        r["fields"] = json.dumps(r["fields"], sort_keys=True, ensure_ascii=False)
    return pd.DataFrame(rows, columns=RECORD_COLUMNS)


def record_fields(row: Mapping[str, Any]) -> dict[str, Any]:
    """The parsed ``fields`` of one record row (JSON text or a dict)."""
    f = row.get("fields") if isinstance(row, Mapping) else row["fields"]
    return json.loads(f) if isinstance(f, str) and f else dict(f or {})
