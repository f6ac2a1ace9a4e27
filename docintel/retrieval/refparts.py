"""Whether a provision a reference names belongs to this document, read from the document.

A guide cites a rule's provisions by the rule's own numbers ("§ 164.308(a)(1)" in a guide to the
HIPAA Security Rule, "§ 160.103" in part 164 of the rule, "Section 3542.3" of a code): a decimal
id whose first number (the part) is not one the document numbers its own units with. The
document's parts are the first numbers of its toc rows ("4.1", "§ 1308.11"; a whole-number
section "2" too: "2.9" is then a sub-section the parse missed, not another work's), of its provision
headings ("§ 164.502 Uses and ...", ``refunits``), of its numbered heading lines ("3.2 The
Method") and of its objects numbered per chapter ("Table 3.5", a caption "Abbildung 4.20:"). Nothing here reads a name: "of the HIPAA Security Rule" is not what makes 164.308
another document's, the guide's own numbering (1 to 6) is. The resolver asks this only after the
tables and the lines found no target.
"""

from __future__ import annotations

import re

from docintel.retrieval.bm25 import document_memo
from docintel.retrieval.owntitles import norm_name as _norm
from docintel.retrieval.owntitles import own_titles
from docintel.retrieval.refunits import provision_heads
from docintel.schema.document import DocTables
from docintel.schema.kinds import FURNITURE_ROLES

#: A provision id as the grammar gives it: part, a dot, the section ("164.308", "3542.3").
_PART_PATH = re.compile(r"^([0-9]+)\.[0-9]+[a-z]?$")
#: A toc id, number or title opening with a decimal id ("4.1", "§ 1308.11", "Sec. 2.3").
_DOTTED = re.compile(r"^\s*(?:\u00a7+\s*|(?i:sec(?:tion)?s?\.?)\s*)?([0-9]+)\.[0-9]")
#: A toc id or number that is a whole number ("2", "§ 7"): a part its decimal ids would open with.
_WHOLE = re.compile(r"^\s*(?:\u00a7+\s*|(?i:sec(?:tion)?s?\.?)\s*)?([0-9]+)\.?\s*$")
#: A numbered heading line: a decimal id, then a capitalized title ("3.2 The Method").
_NUMBERED = re.compile(r"^\s*([0-9]+)\.[0-9]+(?:\.[0-9]+)*\.?\s+[A-Z\u00c0-\u00de]")
_LEADERS = re.compile(r"(?:\.\s?){4,}")
#: A caption numbered within a chapter: "Abbildung 4.20:", "Table 3.5." (chapter 4, 3).
_CAPTION = re.compile(r"^\s*[^\W\d_]+\.?[\s\u00a0]+([0-9]+)\.[0-9]")


def own_parts(tables: DocTables) -> frozenset[str]:
    """The first numbers of the document's own decimal ids (toc rows, provision and numbered
    headings, objects numbered per chapter): a scan of every line (~0.5 s on 600 pages), so
    kept (and stored) with the retrieval index the first time a reference needs it."""
    return document_memo(tables, "own_parts", lambda: scan_parts(tables))


def scan_parts(tables: DocTables) -> frozenset[str]:
    """:func:`own_parts` computed from the tables."""
    toc, ldf = tables.toc_df, tables.line_df
    parts: set[str] = set()
    for col in ("toc_id", "number", "title"):
        if col in toc:
            # a whole-number section "2" the toc numbers owns "Section 2.9" (a missed sub-heading)
            rxs = (_DOTTED,) if col == "title" else (_DOTTED, _WHOLE)
            parts.update(
                m.group(1) for v in toc[col].dropna().astype(str) for rx in rxs if (m := rx.match(v))
            )
    heads, _ = provision_heads(tables)
    parts.update(m.group(1) for _, _, sid in heads if (m := _DOTTED.match(sid)))
    reg = tables.object_registry
    if "object_id" in reg:  # "Table 3.5" is numbered in chapter 3
        parts.update(m.group(1) for v in reg["object_id"].dropna().astype(str) if (m := _DOTTED.match(v)))
    lines = ldf[~ldf["role"].fillna("body").isin([*FURNITURE_ROLES, "toc_entry"])]
    for text, role in zip(lines["text"].astype(str), lines["role"].fillna("body"), strict=True):
        heading = len(text) < 100 and not _LEADERS.search(text) and _NUMBERED.match(text)
        if m := heading or (_CAPTION.match(text) if role == "caption" else None):
            parts.add(m.group(1))
    return frozenset(p.lstrip("0") or "0" for p in parts)


#: A toc row naming a part by its label ("PART 1308—SCHEDULES", "Part II"): its id.
_PART_ROW = re.compile(r"^\s*(?i:part)[\s\u00a0]+([0-9]+|[IVXLC]+)\b")


def foreign_part(tables: DocTables, target: str | None, kind: str | None = None) -> str | None:
    """The part number of a decimal provision id ("164" of "164.308") when the document numbers
    none of its own units with it: the id is another document's. A "Part 160" (grammar kind
    ``part``) likewise, when the document has decimal ids and neither they nor a toc row
    labelled "Part" use the number. None otherwise (the document's own part, or nothing to
    tell it by)."""
    target = str(target or "").strip()
    m = _PART_PATH.match(target)
    if m is None and kind == "part" and target.isdigit():
        own = own_parts(tables)
        toc = tables.toc_df
        labelled = {
            r.group(1).lstrip("0")
            for col in ("toc_id", "title")
            if col in toc
            for v in toc[col].dropna().astype(str)
            if (r := _PART_ROW.match(v))
        }
        part = target.lstrip("0") or "0"
        return part if own and part not in own and part not in labelled else None
    if m is None:
        return None
    part = m.group(1).lstrip("0") or "0"
    return None if part in own_parts(tables) else part


#: A word before the name that makes the title another instrument's ("Amendment No. 1 to Credit
#: Agreement", "Joinder under the Security Agreement").
_NOT_OWN_BEFORE = frozenset({"to", "of", "under", "the", "with", "for", "and"})
#: What may follow the name in its own title: a year, a version, a date, a parenthesis ("Credit
#: Agreement dated as of ...", "Open Source Agreement Version 1.3"); not "Amendments of 1990" (the
#: "Clean Air Act Amendments" are not the Clean Air Act).
_TITLE_TAIL = re.compile(
    r"\s*(?:(?:of\s+)?(?:19|20)[0-9]{2}\b.*|,?\s*dated\b.*|version\b.*|v?[0-9][0-9.]*|\(.*)?[.,;:]?\s*"
)


def names_this_document(tables: DocTables, name: str | None) -> bool:
    """Whether ``name`` ("Credit Agreement", "the 2020 Equity Plan") is the document's own name:
    one of :func:`own_titles` ends with it (but for a year, version or date), opening the title or after
    a word of its own ("Amended and Restated Credit Agreement"; not "Amendment No. 1 to Credit
    Agreement" nor "Credit Agreement Amendment", another instrument's)."""
    n = _norm(re.sub(r"^(?i:the|this)[\s\u00a0]+", "", str(name or "").strip()))
    if len(n) < 3:
        return False
    if _ACRONYM_NAME.fullmatch(str(name or "").strip()) and _acronym_is_own(tables, n):
        return True
    for t in own_titles(tables):
        if t == n:
            return True
        for m in re.finditer(r"(?<![\w])" + re.escape(n) + r"(?![\w])", t):
            before = t[: m.start()].split()
            if (not before or before[-1] not in _NOT_OWN_BEFORE) and _TITLE_TAIL.fullmatch(t[m.end() :]):
                return True
    return False


#: A name written in capitals ("the GNU GPL", "NDA"): an acronym, perhaps after a capitalised word.
_ACRONYM_NAME = re.compile(r"(?:(?i:the|this)[\s\u00a0]+)?(?:[A-Z]{2,6}[\s\u00a0]+)?[A-Z]{3,6}")


def _acronym_is_own(tables: DocTables, name: str) -> bool:
    """Whether every word of an acronym name ("gnu gpl") is a word of one of the document's own
    titles or that title's initials ("GNU General Public License": gnu, ggpl, gpl), the initials
    of a title that ends in a word of its kind included ("System Security Plan Template": ssp)."""
    from docintel.retrieval.ownname import _as_word, _initials

    words = name.split()
    return any(
        all(_as_word(w, t) or w in _initials(t) | _lead_initials(t) for w in words)
        for t in own_titles(tables)
    )


def _lead_initials(title: str) -> set[str]:
    """The initials of a title's name of four or more words less its last: the word a form, template
    or copy adds to the name ("Business Associate Agreement Form": baa; "System Security Plan
    Template": ssp), which the document's own acronym leaves out."""
    from docintel.retrieval.ownname import _EDITION, _SKIP

    core = _EDITION.split(title, maxsplit=1)[0]
    words = [w for w in re.findall(r"[^\W\d_]+", core) if w not in _SKIP]
    if len(words) < 4 or any(len(w) == 1 for w in words):
        return set()
    return {"".join(w[0] for w in words[:-1])}


#: "section 6 of the GNU GPL", "article 11 of the WIPO copyright treaty": a unit of a work named by
#: an acronym after "of the" (one or two capitalised words), read right after the reference (on its
#: line, and the next when the line ends first) and before a stop or a lower-case word. The grammar
#: keeps it internal, its span ending at "section 6" ("Section 2 of the NDA" may be this document's own
#: name); the resolver, which knows the document's titles, decides.
_OF_THE_ACRONYM = re.compile(
    r"^(?:[\s\u00a0]?\([A-Za-z0-9]{1,4}\))*[\s\u00a0]+of[\s\u00a0]+the[\s\u00a0]+"
    r"(?P<name>(?:[A-Z]{2,6}[\s\u00a0]+)?(?!AND\b|OR\b|THE\b|THIS\b)[A-Z]{3,6})\b(?=\s*(?:[.,;:)]|$)|\s+[a-z(])"
)


def foreign_acronym(tables: DocTables, raw_text: str | None, origin: tuple[int, int]) -> str | None:
    """The acronym name the reference written at ``origin`` is "of" ("GNU GPL" after "section 6")
    when it is not this document's own name (:func:`names_this_document`), else None."""
    from docintel.retrieval.evidence_slices import evidence_between

    raw = str(raw_text or "").strip()
    rows = evidence_between(tables, origin, (origin[0], origin[1] + 1))
    text = " ".join(str(t) for t in rows["text"].tolist()) if len(rows) else ""
    at = text.find(raw) if raw else -1
    inside = re.search(
        r"[\s\u00a0]of[\s\u00a0]+the[\s\u00a0]", raw
    )  # the span holds it ("section 6 of the GNU GPL")
    m = _OF_THE_ACRONYM.match(raw[inside.start() :]) if inside else None
    m = m or (_OF_THE_ACRONYM.match(text[at + len(raw) :]) if at >= 0 else None)
    if m is None or names_this_document(tables, m.group("name")):
        return None
    return m.group("name")
