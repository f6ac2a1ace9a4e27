"""Targets the tables do not list, found by the line that names them.

The parser's toc_df and object_registry miss some targets (a Portuguese "Tabela 3.1" caption,
a German "Abbildung 2.8", a form's "SECTION 4 - SIGNATURE", the footnotes of a legal report):
the document still prints a line that opens with the target's label and id, as a caption or a
heading does. This module finds that line with the reference grammar itself (so every label form
and language the grammar reads counts) and gives the region it opens. Footnotes are found by
their marker ("72 LEWIS, supra ..." on a ``footnote`` line).
"""

from __future__ import annotations

import re
from collections import Counter

import pandas as pd

from docintel.parsing.refkinds import KINDS, Kind
from docintel.parsing.refnumbering import roman_value
from docintel.parsing.refpatterns import find_references
from docintel.parsing.refrules import control_heading, lone_control
from docintel.retrieval.bm25 import document_memo
from docintel.retrieval.framememo import per_frame
from docintel.retrieval.lookup import norm_id
from docintel.retrieval.targets import evidence_between, evidence_lines
from docintel.schema.document import DocTables

#: What may follow a label + id that names the line itself: a delimiter, a title, the line end.
_SELF = re.compile(r"[ \t\u00a0]*(?:[:.\u2013\u2014|]|\s-\s|$|\s+[A-Z\u00c0-\u00de(\[])")
_LEADERS = re.compile(r"(?:\.\s?){4,}|\s\.\s\.\s")
#: Roles a caption or heading line may have (not contents entries, not furniture).
_LABEL_ROLES = ("heading", "title", "caption", "body", "list_item", "table", "figure_text")
_STOP_ROLES = ("heading", "title", "caption")
#: Share of a page's lines that list targets (leaders, contents entries, labels): a listing page.
LIST_SHARE = 0.3


_OWN_LABEL = {k.name for k in KINDS if k.own_label}
#: Own-label kinds whose target is the labelled line nearest the reference ("step 2").
_NEAREST = {k.name for k in KINDS if k.own_label and k.nearest}
#: Kinds whose target may be a line opening with its id alone ("6. If ..." for "go to step 6").
MARKED_KINDS = ("step", "item", "recital", "line", "box")
#: Kinds whose marker may stand without a delimiter before a capitalized caption: a form prints
#: its line "11a Subtract line 10 from line 9" and its box "1 Wages, tips".
_BARE_MARKER = ("line", "box")
#: Pages either side of the reference searched for such a line.
MARKER_PAGES = 2

#: id(line_df) -> (line_df, {(ref_type, id): [(page, line), ...]}): one scan per document.
_LABELLED: dict[int, tuple[pd.DataFrame, dict]] = {}
_OPENS = re.compile(r"^\s*\S{1,14}[\s\u00a0]*[\[(]?[0-9A-Za-z]")


def labelled_index(tables: DocTables) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """Every line that opens with a label + id and names itself, by (ref_type, id); lines on
    listing pages (contents, a list of tables, a bill's table of sections: pages where at least
    :data:`LIST_SHARE` of the lines are contents entries, dot leaders or such labels) are left
    out: an entry that lists a target is not the target."""
    # a value of the document alone: kept (and stored) with its retrieval index when it has one
    return per_frame(
        _LABELLED, tables.line_df, lambda: document_memo(tables, "labelled", lambda: _scan_labelled(tables))
    )


def _scan_labelled(tables: DocTables) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """:func:`labelled_index` computed: the reference grammar over every evidence line."""
    every = evidence_lines(tables)
    texts = every["text"].astype(str).tolist()
    pages = every["page"].astype(int).tolist()
    listing: dict[int, int] = {}
    for k, (role, text) in enumerate(zip(every["role"].tolist(), texts, strict=True)):
        nxt = texts[k + 1] if k + 1 < len(texts) and pages[k + 1] == pages[k] else ""
        if role == "toc_entry" or _LEADERS.search(text) or _LEADERS.search(nxt):
            listing[pages[k]] = listing.get(pages[k], 0) + 1
    index: dict[tuple[str, str], list[tuple[int, int]]] = {}
    margin = line_numbered(tables)
    for k, (role, line) in enumerate(zip(every["role"].tolist(), every["line"].astype(int), strict=True)):
        text = _MARGIN.sub("", texts[k], count=1) if margin else texts[k]  # "3487 Appendix A. ..."
        if role not in _LABEL_ROLES or not _OPENS.match(text) or _LEADERS.search(text):
            continue
        lead = len(text) - len(text.lstrip())
        # a catalogue's control heading, printed alone ("AC-2" / "ACCOUNT MANAGEMENT") or before
        # its title ("AC-3 ACCESS ENFORCEMENT"): the grammar reads neither as a reference
        alone = lone_control(text) or control_heading(text)
        if alone:
            index.setdefault(("kind:control", norm_id(alone)), []).append(
                (0 if role in _STOP_ROLES else 1, pages[k], int(line))
            )
            continue
        for row in find_references(text[:120]):
            if row["start"] != lead:
                break
            if (
                row["multi"] is None
                and row["ref_target"]
                and not row["sub_selector"]
                and _SELF.match(text[row["end"] :])
            ):
                keys = [("kind:" + row["kind"], norm_id(row["ref_target"]))]
                if row["kind"] not in _OWN_LABEL and row["kind"] != "control":  # "Line 16." is no section 16
                    keys.append((row["ref_type"], norm_id(row["ref_target"])))
                for key in keys:
                    rank = 0 if role in _STOP_ROLES else 1 if not text[row["end"] :].strip(" .:") else 2
                    index.setdefault(key, []).append((rank, pages[k], int(line)))
                listing[pages[k]] = listing.get(pages[k], 0) + 1
    size = Counter(pages)
    lists = {p for p, n in listing.items() if n >= 4 and n >= LIST_SHARE * size[p]}
    for key, found in index.items():
        # a heading or caption first, then a line that is the label alone, then the rest (a
        # wrapped line of prose may open with "Article 55. The ..."), each in reading order
        index[key] = [(p, ln) for _r, p, ln in sorted(found, key=lambda x: x[0]) if p not in lists]
    return index


#: A margin line number opening a line ("2737 4 SAML Versioning").
_MARGIN = re.compile(r"^[ \t]*[0-9]{1,5}[ \t]+(?=\S)")
#: A line that opens with a margin number or is one ("6", "443 The NameIDType ...").
_NUMBERED_LINE = re.compile(r"^[ \t]*[0-9]{1,5}(?:[ \t]|$)")
#: Share of a document's evidence lines opening with a margin number: a line-numbered document.
MARGIN_SHARE = 0.5
#: id(line_df) -> (line_df, whether the document is line-numbered).
_NUMBERED: dict[int, tuple[pd.DataFrame, bool]] = {}


def line_numbered(tables: DocTables) -> bool:
    """Whether the document prints a margin number before its lines (a standard or a court
    filing numbered for citation): at least :data:`MARGIN_SHARE` of its evidence lines open with
    one (or is one: the number on its own line). Then "2737 4 SAML Versioning" is the heading of section 4, "3487 Appendix A." Appendix
    A's; elsewhere a number before a bare id may be a count or a year."""

    def numbered() -> bool:
        texts = evidence_lines(tables)["text"].astype(str)
        return (float(texts.str.match(_NUMBERED_LINE).mean()) if len(texts) else 0.0) >= MARGIN_SHARE

    return per_frame(_NUMBERED, tables.line_df, numbered)


#: Object types whose id may carry a panel letter ("Figure 3b", "Abbildung 4.20a"): the panel of
#: the object its number captions, when no caption carries the letter.
PANEL_TYPES = ("figure", "table")
_PANEL = re.compile(r"(.*[0-9])[a-z]")


def labelled_line(
    tables: DocTables, ref_type: str, target: str, origin: tuple[int, int], kind: str | None = None
) -> tuple[int, int] | None:
    """(page, line) of the first line that opens with a label of ``ref_type`` (of the grammar's
    ``kind`` when given: "Article", not any section label) and the id ``target`` and names
    itself (a caption, a heading), other than the reference's own line."""
    key = ("kind:" + kind if kind else ref_type, norm_id(target))
    found = [at for at in labelled_index(tables).get(key, []) if at != origin]
    panel = _PANEL.fullmatch(str(target)) if ref_type in PANEL_TYPES else None
    if not found and panel:  # "Abbildung 4.20b": panel (b) of the figure captioned 4.20
        found = [
            at for at in labelled_index(tables).get((key[0], norm_id(panel.group(1))), []) if at != origin
        ]
    if kind in _NEAREST and found:  # "step 2" is the nearest Step 2: a document has several lists
        return min(found, key=lambda at: abs(at[0] * 10**6 + at[1] - (origin[0] * 10**6 + origin[1])))
    if not found and ref_type == "section" and kind in (None, "section"):
        found = [at for at in _roman_part(tables, str(target)) if at != origin]
    return found[0] if found else None


def _roman_part(tables: DocTables, target: str) -> list[tuple[int, int]]:
    """The heading line of roman part ``target`` ("III") or of its lettered sub-section ("IV-A",
    "IV.A": the first short "A. Title" line between part IV's heading and part V's) when the
    parts are printed as body lines (:func:`roman_headings`)."""
    m = re.fullmatch(r"([IVXL]{1,6})(?:[-.\u2013]([A-Z]))?", target)
    value = roman_value(m.group(1).lower()) if m else None
    heads = roman_headings(tables) if value else {}
    if not heads.get(value):
        return []
    if m.group(2) is None:
        return heads[value]
    start = heads[value][0]
    end = next((at for at in heads.get(value + 1, []) if at > start), (start[0] + 3, 0))
    rows = evidence_between(tables, start, end)
    sub = re.compile(rf"^\s*{m.group(2)}\.\s+[A-Z\u0370-\u03ff][^\n]{{1,65}}$")
    hits = rows[rows["text"].astype(str).str.match(sub)]
    return list(zip(hits["page"].astype(int), hits["line"].astype(int), strict=True))[:1]


#: A paper's roman part heading printed in the text's own size and weight (IEEE sets "II.
#: Background on Differential Privacy" in small caps): the numeral, a dot, a short capitalized
#: title (opening with a capital or a Greek letter: "V. \u03f5-iDP for Numerical Queries") with no
#: sentence or list punctuation or leaders at its end.
_ROMAN_HEAD = re.compile(r"^\s*([IVXL]{1,6})\.\s+[A-Z\u00c0-\u00de\u0370-\u03ff][^\n]{1,55}$")
#: id(line_df) -> (line_df, {roman value: [(page, line), ...]}).
_ROMANS: dict[int, tuple[pd.DataFrame, dict]] = {}


def roman_headings(tables: DocTables) -> dict[int, list[tuple[int, int]]]:
    """The lines that open a roman-numbered part ("III. Related Work") by the numeral's value, kept
    only when they run as a sequence: the part before opens such a line earlier or the part
    after opens one later ("X. Xiao, ..." in a reference list has no IX nor XI), and not on the
    very next line (an outline list "I. Review ... / II. Approve ..."). For the papers
    whose part headings the parser reads as body lines (no bold, no larger size) and the toc misses."""

    def scan() -> dict[int, list[tuple[int, int]]]:
        lines = evidence_lines(tables)
        lines = lines[lines["role"].isin(("heading", "title", "body"))]
        texts = lines["text"].astype(str)
        hit = lines[
            texts.str.match(_ROMAN_HEAD) & ~texts.str.contains(r"[,;:.\-]\s*$|(?:\.\s?){4}", regex=True)
        ]
        seen: list[tuple[int, int, int]] = []
        for page, line, text in zip(
            hit["page"].astype(int), hit["line"].astype(int), hit["text"], strict=True
        ):
            value = roman_value(str(text).split(".", 1)[0].strip().lower())
            if value:
                seen.append((value, page, line))
        keep: dict[int, list[tuple[int, int]]] = {}
        for value, page, line in seen:
            at = page * 10**6 + line
            if any(abs(v - value) == 1 and p == page and abs(ln - line) == 1 for v, p, ln in seen):
                continue  # "I. Review ..." then "II. Approve ..." on the next line: an outline list
            if any(
                (v == value - 1 and p * 10**6 + ln < at) or (v == value + 1 and p * 10**6 + ln > at)
                for v, p, ln in seen
            ):
                keep.setdefault(value, []).append((page, line))
        return keep

    return per_frame(_ROMANS, tables.line_df, scan)


def region_from(tables: DocTables, page: int, line: int, max_lines: int) -> pd.DataFrame:
    """The labelled line and what follows it on its page, up to the next heading or caption."""
    # the rows ``lines[(lines.page == page) & (lines.line >= line)]`` selects, as a slice found by
    # binary search (a 600-page document's ~60,000 lines were masked twice per labelled line)
    after = evidence_between(tables, (int(page), int(line)), (int(page), 10**6 - 1)).head(max_lines)
    roles = after["role"].tolist()
    stop = next((k for k in range(1, len(roles)) if roles[k] in _STOP_ROLES), len(roles))
    return after.iloc[:stop]


def footnote_lines(tables: DocTables, target: str, origin_page: int) -> pd.DataFrame:
    """The footnote numbered ``target``: its marker line and its continuation lines (the
    footnote on or after the reference's page first, else the first one in the document)."""
    if not str(target).isdigit():
        return tables.line_df.iloc[0:0]
    lines = evidence_lines(tables)
    notes = lines[lines["role"] == "footnote"]
    marker = re.compile(rf"^\s*{re.escape(str(target))}(?:[.)]?\s+|\s*$)")
    hits = notes[notes["text"].astype(str).str.match(marker)]
    if hits.empty:
        small = _small_print(tables, lines, notes)
        hits = _with_neighbour(small, notes, int(target))
        notes = small
    if hits.empty:
        return hits
    after = hits[hits["page"] >= origin_page]
    first = (after if len(after) else hits).iloc[0]
    same = notes[(notes["page"] == first["page"]) & (notes["line"] >= first["line"])]
    out = [same.iloc[0]]
    for _, r in same.iloc[1:].iterrows():
        if re.match(r"^\s*[0-9]{1,3}\s+\S", str(r["text"])) or int(r["line"]) != int(out[-1]["line"]) + 1:
            break
        out.append(r)
    return pd.DataFrame(out)


def _with_neighbour(small: pd.DataFrame, notes: pd.DataFrame, n: int) -> pd.DataFrame:
    """The small-print lines opening with note number ``n`` whose note n-1 or n+1 is printed too,
    as a footnote line or in small print, on the same page or the one before or after: a run of
    notes, not an address ("100 Bureau Drive"), a citation ("44 FR 40888") or a note's
    continuation line that opens with a number."""
    texts = small["text"].astype(str)
    hits = small[texts.str.match(rf"^\s*{n}\s+\S")]
    if hits.empty:
        return hits
    near = pd.concat(
        [
            small[texts.str.match(rf"^\s*(?:{n - 1}|{n + 1})\s+\S")],
            notes[notes["text"].astype(str).str.match(rf"^\s*(?:{n - 1}|{n + 1})(?:[.)]?\s+|\s*$)")],
        ]
    )["page"].astype(int)
    pages = set(near) | {p + 1 for p in near} | {p - 1 for p in near}
    return hits[hits["page"].astype(int).isin(pages)]


def _small_print(tables: DocTables, lines: pd.DataFrame, notes: pd.DataFrame) -> pd.DataFrame:
    """Body lines printed like the document's footnotes: no larger than its footnote lines, smaller
    than its body text, in the lower half of their page. A page whose fonts the parser could not
    read leaves its footnotes in role ``body`` (the Law Library report's "57 Sabah Al Mukhtar, ..."
    under the text of its page 12). A document with no footnote line has none to go by (a
    financial statement's "Note 21" is its heading, found by the heading rules)."""
    body = lines[lines["role"] == "body"]
    if notes.empty or body.empty or "size" not in body or "y0" not in body or "height" not in tables.page_df:
        return body.iloc[0:0]
    small = body[(body["size"] < body["size"].median() - 0.5) & (body["size"] <= notes["size"].max())]
    height = tables.page_df.drop_duplicates("page").set_index("page")["height"]
    return small[small["y0"].to_numpy() > 0.5 * small["page"].map(height).fillna(0).to_numpy()]


def numbered_heading(tables: DocTables, target: str, origin: tuple[int, int]) -> tuple[int, int] | None:
    """(page, line) of a heading the toc missed that opens with the number ``target`` ("21.
    CONTINGENT LIABILITIES" for "Note 21", "4.02 Payment" for "Section 4.02"): a line in heading
    role or bold, the number followed by a title."""
    # a line-numbered document prints its margin number first ("257 1.2 Schema Organization"):
    # allowed before a decimal id only, which no count or year is mistaken for
    margin = r"(?:[0-9]{1,5}[ \t]+)?" if "." in str(target) or line_numbered(tables) else ""
    # "2.0 Framework Basics" is section 2 where a document numbers its top level "N.0"
    zero = r"(?:\.0)?" if str(target).isdigit() else ""
    rx = re.compile(rf"^\s*{margin}{re.escape(str(target))}(?:{zero}[.)]?)\s+[A-Z\u00c0-\u00de]")
    rows, opening = _heading_memo(tables)
    t = str(target)
    if t and not any(c.isspace() for c in t):  # only the lines whose first word (or the one after a
        # margin number) is the id, "id." or "id)" can match: 600 pages have ~2,900 heading lines
        at = sorted({i for k in (t, f"{t}.", f"{t})", f"{t}.0") for i in opening.get(k, ())})
        rows = [rows[i] for i in at]
    for page, line, text in rows:
        if (page, line) != origin and rx.match(text) and not _LEADERS.search(text):
            return page, line
    return None


#: id(line_df) -> (line_df, ([(page, line, text) of the heading, title or bold lines], their
#: positions by opening word: the first, and the second after a number (a margin number))).
_HEADS: dict[int, tuple[pd.DataFrame, tuple[list, dict[str, list[int]]]]] = {}


def _heading_memo(tables: DocTables) -> tuple[list[tuple[int, int, str]], dict[str, list[int]]]:
    """(page, line, text) of the evidence lines in heading or title role or bold, not contents
    entries, in reading order (as plain lists), and their positions by opening word (once per
    line_df object)."""
    return per_frame(_HEADS, tables.line_df, lambda: _build_heading_memo(tables))


def _build_heading_memo(tables: DocTables) -> tuple[list[tuple[int, int, str]], dict[str, list[int]]]:
    lines = evidence_lines(tables)
    bold = lines["bold"].fillna(False).astype(bool) if "bold" in lines else False
    heads = lines[(lines["role"].isin(("heading", "title")) | bold) & (lines["role"] != "toc_entry")]
    rows = list(
        zip(
            heads["page"].astype(int).tolist(),
            heads["line"].astype(int).tolist(),
            [str(t) for t in heads["text"].tolist()],
            strict=True,
        )
    )
    opening: dict[str, list[int]] = {}
    for i, (_p, _ln, text) in enumerate(rows):
        first = text.split(None, 2)
        for k in first[:2] if len(first) > 1 and first[0].isdigit() else first[:1]:
            opening.setdefault(k, []).append(i)
    return rows, opening


def marker_line(
    tables: DocTables, kind: Kind, target: str, origin: tuple[int, int]
) -> tuple[int, int] | None:
    """(page, line) of the line nearest the reference (within :data:`MARKER_PAGES` pages; a
    recital: any page before it) that opens with the id as a list marker ("6.", "(6)", "6)",
    "C.", with or without the label: "Step 6:"), other than the reference's own line."""
    words = "|".join(w for _, w in kind.words)
    t = re.escape(str(target))
    # "6.", "(6)", "Step 6:", or the label and id opening the paragraph on it ("Step 5 focuses on ...")
    rx = re.compile(
        rf"^\s*(?:(?:(?i:{words})\s+)?(?:\({t}\)|{t}[.):](?:\s|$))|(?i:{words})\s+{t}\s+(?=[a-z]))"
    )
    # a form's line without a delimiter ("11a Subtract ..."), never a heading ("3 Overview")
    bare = re.compile(rf"^\s*{t}\s+(?=[A-Z])") if kind.name in _BARE_MARKER else None
    lines = evidence_lines(tables)
    page, line = origin
    if kind.name == "recital":
        near = lines[lines["page"] <= page]
    else:
        near = lines[lines["page"].between(page - MARKER_PAGES, page + MARKER_PAGES)]
    # a list item or a form's row, never a heading ("3. Trace Trees"), a caption or a footnote ("1 Arrays ...")
    near = near[~near["role"].isin(("toc_entry", "heading", "title", "caption", "footnote"))]
    # a form prints a line's number alone and its caption on the next line ("10" / "Adjustments
    # to income ..."); the same number alone before another number is the amount column's copy
    alone = re.compile(rf"^\s*{t}\s*$") if kind.name in _BARE_MARKER else None
    texts, pages, roles = near["text"].astype(str).tolist(), near["page"].tolist(), near["role"].tolist()
    key = page * 10**6 + line
    best = None
    for k, r in enumerate(near.itertuples(index=False)):
        at = (int(r.page), int(r.line))
        text = texts[k]
        plain = bare is not None and roles[k] not in _STOP_ROLES and bare.match(text)
        captioned = (
            alone is not None
            and roles[k] not in _STOP_ROLES
            and alone.match(text)
            and k + 1 < len(texts)
            and pages[k + 1] == pages[k]
            and re.match(r"\s*[A-Z]\S*(?:\s+\S+){2}", texts[k + 1])  # a caption, not "Payments" / "Refund"
        )
        # a form's amount box: its id alone after the caption whose dot leaders run to it
        # ("e Standard deduction ... . . . ." / "12e"): the row is the caption's line
        boxed = (
            alone is not None
            and alone.match(text)
            and k > 0
            and pages[k - 1] == pages[k]
            and roles[k - 1] not in _STOP_ROLES
            and _LEADERS.search(texts[k - 1])
        )
        if boxed:
            j = k - 1  # a caption wrapped before its leaders (". . . . ." alone): the caption's line
            if not re.search(r"[A-Za-z]{3}", texts[j]) and j > 0 and pages[j - 1] == pages[k]:
                j -= 1
            boxed = bool(re.search(r"[A-Za-z]{3}", texts[j]))
            at = (int(near.iloc[j]["page"]), int(near.iloc[j]["line"])) if boxed else at
        # a form row's caption runs to its box in dot leaders: no contents entry there
        leaders = _LEADERS.search(text) and not (plain and kind.name in _BARE_MARKER)
        if at == origin or not (rx.match(text) or plain or captioned or boxed) or (leaders and not boxed):
            continue
        dist = abs(at[0] * 10**6 + at[1] - key)
        if best is None or dist < best[0]:
            best = (dist, at)
    return best[1] if best else None
