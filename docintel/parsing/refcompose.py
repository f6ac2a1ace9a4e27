"""Compositions of the matcher's mentions: what two matches, or a match and its surroundings, mean
together (:mod:`.refmatch` finds the matches).

- a run of outer-to-inner units ("Pt.4 Ch.1 Sec.2"): one reference to the innermost;
- a sub-unit "of" its container ("paragraph (b)(1) of \u00a7 164.312": the section, sub-selected;
  "line 5a of Schedule B": the schedule's line);
- a part of another document ("Article 8(1) of the Charter", "Article 263 TFEU", "Public Law
  104-106, Sec. 5125(b)", "E-Government Act of 2002, Section 208", "Rule 144 under the
  Securities Act"): external, with the part as sub-selector;
- a definition pointer ("defined in Section 1.5"), the points of a unit ("point (a) of Article 6(1)");
- a page locator inside a citation ("(OJ L 281, 23.11.1995, p. 31)", "In NIPS, pages 3104-3112"):
  a page of another publication, dropped; a record's volume ("1 App. 7-51"): external;
- the scope written after a sub-unit ("paragraph (c)(2) of this section").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from docintel.parsing.refrules import DEFINITION_PREFIX, LazyRegex, RefPattern

SECTIONISH = {"section", "article", "part", "chapter", "subpart", "paragraph", "subsection", "clause"}
_SUBUNITS = {"paragraph", "subsection", "clause", "subpart"}
#: Parts of a form or an instrument read inside the container named after them: "line 5a of
#: Schedule B", "Part II of Schedule D", "box 1 in Part III", "Item 7 of Part II".
_FORM_PARTS = {"line", "box", "step", "worksheet", "item", "part"}
_CONTAINERS = {"schedule", "worksheet", "exhibit", "attachment", "appendix", "annex", "part"}
#: Attachments numbered on their own: a provision "of" one is the attachment's.
_BACK = {"schedule", "exhibit", "attachment", "appendix", "annex"}
#: Units a form's line is read in after a comma: "Part II, line 5", "the ... Worksheet, line 22".
_LINED = {"part", "worksheet"}
#: Another volume named before a unit: "Volume II, Appendix C", "Vol. 2, Chapter 4".
_OTHER_VOLUME = LazyRegex(
    r"\b(?P<vol>(?:Volume|VOLUME|Vol\.)[\s\u00a0]+(?:[IVX]{1,4}|[0-9]{1,2}))[\s\u00a0]*,[\s\u00a0]*$"
)
#: "..., Appendix C of this report": this document's own unit, whatever volume it is in.
_THIS_DOC = LazyRegex(
    r"^[\s\u00a0]+(?:of|in)[\s\u00a0]+this[\s\u00a0]+(?:report|document|guide|publication|volume)\b"
)
_OF_IN = LazyRegex(r"^[\s\u00a0]+(?:of|in|on)[\s\u00a0]+(?:the[\s\u00a0]+)?$")
#: A class society's compound reference ("Pt.4 Ch.1 Sec.2", "Ch.3 Sec.2 [1.2.3]"): outer units then
#: inner ones, read as one reference to the innermost, the outer path as its scope.
_RANK = {"part": 0, "chapter": 1, "section": 2, "requirement": 3}
_CHAIN_GAP = LazyRegex(r"^,?[ \t\u00a0]+$")
_EXT_NAME = LazyRegex(
    r"^(?:[\s\u00a0]?\([A-Za-z0-9]{1,4}\))*[\s\u00a0]+(?:of|under)[\s\u00a0]+(?:the[\s\u00a0]+|that[\s\u00a0]+)?(?P<name>(?:(?:[A-Z][\w\u2019'\-]*|of|on|the|and|for|to)[\s\u00a0]+){0,8}?"
    r"(?:Act|Code|Charter|Treaty|Convention|Constitution|Protocol|Statute|Rules|Compact|Covenant)\b"
    r"|title[\s\u00a0]+[0-9]+(?:,[\s\u00a0]+United[\s\u00a0]+States[\s\u00a0]+Code)?"
    r"|Guide[\s\u00a0]+to[\s\u00a0]+(?:the[\s\u00a0]+)?[A-Z][\w\-]*(?:[\s\u00a0]+[A-Z][\w\-]*){0,6})"
)
#: A contract's disclosure schedule or letter: delivered apart from the agreement, numbered after its
#: sections ("Section 4.03 of the Seller Disclosure Schedule" is not Section 4.03), in any case
#: ("OF THE DISCLOSURE SCHEDULE", "the disclosure schedule"), after up to four capitalized words
#: ("the Amended and Restated Seller Disclosure Schedule") and a comma ("Section 4.03, of the ...").
_DISCLOSURE = LazyRegex(
    r"^(?:[\s\u00a0]?\([A-Za-z0-9]{1,4}\))*,?[\s\u00a0]+(?i:of|to|under)[\s\u00a0]+(?:(?i:the)[\s\u00a0]+)?"
    r"(?P<name>(?:(?!(?i:this|the|agreement)\b)[A-Z][\w\u2019'\-]*[\s\u00a0]+(?:and[\s\u00a0]+(?!(?i:this|the|agreement)\b)[A-Z][\w\u2019'\-]*[\s\u00a0]+)?){0,4}?"
    r"(?i:disclosure[\s\u00a0]+(?:schedules?|letter))\b)"
)
#: A section of an instrument named by its capitalized words ("Section 5.1 of the Security
#: Agreement", "Section 2.3 of the 2020 Equity Incentive Plan"): another instrument, unless the
#: resolver finds the name is this document's own (``refparts.names_this_document``). At least one
#: capitalized word before the noun: "of the Agreement", "of this Agreement", "of the Plan", "of the
#: Agreement and Plan of Merger" are this document's generic self-names and stay internal.
_NAMED_INSTRUMENT = LazyRegex(
    r"^(?:[\s\u00a0]?\([A-Za-z0-9]{1,4}\))*,?[\s\u00a0]+(?:of|to|under|in)[\s\u00a0]+the[\s\u00a0]+"
    r"(?P<name>(?!(?:This|Such|Said|Same|Each|Any|Other|Applicable|Relevant|Related|Existing|Agreements?|Plan|Lease|Notes?)\b)"
    r"[A-Z0-9][\w\u2019'\-]*[\s\u00a0]+(?:(?:[A-Z0-9][\w\u2019'\-]*|and|of|on)[\s\u00a0]+){0,5}?"
    r"(?:Agreements?|Indenture|Plan|Lease|Guaranty|Guarantee|Notes?|Contract|Deed)\b)"
)
_ACRONYM = LazyRegex(
    r"^[\s\u00a0]+(?P<name>(?!AND\b|OR\b|THE\b|OF\b|NOT\b|FOR\b|TO\b)[A-Z]{3,6})\b(?=\s*(?:[.,;:)]|$)|\s+[a-z(])"
)
#: "section 3(16)(B) of ERISA": a statute named by its acronym after "of" (with "the" it may be
#: this document's own short name: "Section 2 of the NDA").
_OF_ACRONYM = LazyRegex(
    r"^(?:[\s\u00a0]?\([A-Za-z0-9]{1,4}\))*[\s\u00a0]+of[\s\u00a0]+(?P<name>(?!AND\b|OR\b|THE\b|THIS\b)[A-Z]{3,6})\b"
    r"(?=\s*(?:[.,;:)]|$)|\s+[a-z(])"
)
#: Legislation a section is cited in after a comma ("sec. 264, Pub. L. 104-191"): the Act's section.
_LAW_KINDS = {"public_law", "stat", "eu_act", "exec_order"}
_SCOPE = LazyRegex(
    r"^[\s\u00a0]+(?:of|in|to|under)[\s\u00a0]+(?P<scope>(?:this|these|the[\s\u00a0]+present)[\s\u00a0]+[A-Za-z]+)"
)
#: "Okla. Stat., Tit. 82, §105.12", "Restatement (Second) of Contracts §203": a statute's section
#: "the Guide to OSCAL-based FedRAMP Content, Section 2.5.3": a section of another guide named first
_EXT_BEFORE = LazyRegex(
    r"(?:\bStat\.|\bTit\.\s*[0-9]+|\bCode|\bRestatement\b[^.;]{0,40}"
    # the United States Code or the CFR cited right before the section: "44 U.S.C., Sec 3502",
    # "U.S.C. \u00a7 552a(a)(5)", "44 U.S. Code 35 Section 3542", "Title 36 Code of Federal
    # Regulations Section 1236"
    r"|\bU\.[\s\u00a0]?S\.[\s\u00a0]?C(?:\.|ode)(?:[\s\u00a0]+[0-9]{1,3})?|\bC\.F\.R\.|\bFederal\s+Regulations"
    r"|\b(?P<guide>Guide\s+to\s+(?:the\s+)?[A-Z][^,.;()]{2,50}),"
    r"|(?<![\w\-])(?P<act>(?!(?:This|The|That|Such)\s+(?:Act|Compact|Treaty|Convention|Charter)\b)(?:[A-Z][\w\u2019'\-]*\s+(?:(?:of|on|the|and|for|to)\s+){0,2}){1,8}"
    r"(?:Act|Compact|Treaty|Convention|Charter)(?:\s+of\s+[0-9]{4})?),"
    r"|(?<![\w.\-])(?<!Table\s)(?<!Figure\s)(?<!Fig\.\s)(?<!Exhibit\s)(?P<docid>[A-Z]-[0-9]{2,4}),)\s*,?\s*$"
)
#: A lettered document id before a section-like unit names a document only in a circular's or a
#: bulletin's series ("OMB Circular A-123, Section 4"); "the U-235, Section 4", "Model F-16,
#: Section 3" are things this document's sections are about. Before an appendix it stands alone.
_DOCID_SERIES = LazyRegex(r"\b(?:Circulars?|Bulletins?|Memorand(?:um|a)|OMB)\b")
_OF = LazyRegex(r"^[\s\u00a0]+of[\s\u00a0]+(?:the[\s\u00a0]+)?$")
#: "Section 4.3.1 of Volume 1 (of this NISTIR)": a unit of another volume of a multi-volume work ("of
#: this volume" is the document's own: ``_THIS_DOC``).
_OF_VOLUME = LazyRegex(
    r"^(?:[\s\u00a0]?\([A-Za-z0-9]{1,4}\))*[\s\u00a0]+(?:of|in)[\s\u00a0]+(?P<name>(?:Volume|VOLUME|Vol\.)[\s\u00a0]+(?:[IVX]{1,4}|[0-9]{1,2}))\b"
)
#: Between a unit and the statute it is cited in: a comma, after the unit's own tags.
_LAW_GAP = LazyRegex(r"((?:\([A-Za-z0-9]{1,4}\))*),[ \t\u00a0]*")
#: A volume number right before an abbreviated appendix label: "1 App. 7–51" (a record's volume).
_VOLUME = LazyRegex(r"(?<![\w.,\-–])[0-9]{1,2}[\s\u00a0]+$")
#: "point (a) of Article 6(1)", "points (a) and (b) of paragraph 1": the points of the unit after "of"
_POINTS_OF = LazyRegex(
    r"(?<![\w(])(?i:points?)[\s\u00a0]+(?P<pts>\([a-z0-9]{1,4}\)(?:(?:,|,?[\s\u00a0]+(?:and|or))[\s\u00a0]*\([a-z0-9]{1,4}\))*)"
    r"[\s\u00a0]+(?i:of)[\s\u00a0]+(?:the[\s\u00a0]+)?$"
)
_LOCATOR_BEFORE = LazyRegex(r"(?:,|[0-9]{4}[a-z]?\)?[.:]|[0-9]+\([0-9]+\):)[\s\u00a0]*$")
#: After a run of pages: the year, publisher or venue of a citation ("pages 146-160. ACM ..., 1989.",
#: "pp. 58-67, 2015."): the pages of another publication.
_LOCATOR_AFTER = LazyRegex(
    r"^(?:,[\s\u00a0]*\(?|\.[\s\u00a0]+[^.;\n]{0,50}?,[\s\u00a0]*(?:[A-Z][a-z]+\.?[\s\u00a0]+)?(?:[0-9]{1,2},?[\s\u00a0]+)?)"
    r"(?:19|20)[0-9]{2}\b"
)


@dataclass
class Mention:
    """One reference as written, before it is split into one row per target."""

    start: int
    end: int
    rule: RefPattern
    m: re.Match | None
    ref_type: str
    kind: str
    label: str = ""
    ids: list[str] = field(default_factory=list)
    multi: str | None = None
    expanded: bool = True
    sub: str | None = None
    relative: bool = False
    direction: str | None = None
    scope: str | None = None
    family: str = "absolute"


def _chains(text: str, ms: list[Mention]) -> list[Mention]:
    """Merge each run of outer-to-inner units ("Pt.4 Ch.1 Sec.2") into its innermost unit."""
    out: list[Mention] = []
    for m in ms:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.family == m.family == "absolute"
            and _RANK.get(prev.kind, 9) < _RANK.get(m.kind, -1)
            and len(prev.ids) == len(m.ids) == 1
            and not str(m.ids[0]).startswith(f"{prev.ids[0]}.")  # "Part 236, Section 236.4": two
            and _CHAIN_GAP.match(text[prev.end : m.start])
        ):
            start = prev.start
            m = Mention(start, m.end, m.rule, m.m, m.ref_type, m.kind, m.label, m.ids, m.multi, m.expanded, m.sub,
                        scope=text[start : prev.end].strip(" ,"))  # fmt: skip
            out[-1] = m
            continue
        out.append(m)
    return out


def compose(text: str, ms: list[Mention]) -> list[Mention]:
    """The mentions of ``text`` (leftmost-longest, in order) composed as the module says."""
    out: list[Mention] = []
    ms = _chains(text, ms)
    k = 0
    while k < len(ms):
        m = ms[k]
        nxt = ms[k + 1] if k + 1 < len(ms) else None
        after = text[m.end : m.end + 120]
        gap = text[m.end : nxt.start] if nxt is not None else ""
        if m.family == "absolute" and nxt is not None and nxt.ref_type == "external" and _OF.match(gap):
            m = _external_part(m, nxt, text)  # "Appendix F of NIST SP 800-53"
            k += 1
        elif (
            m.family == "absolute"
            and nxt is not None
            and nxt.kind == "form"
            and re.fullmatch(r"[ \t\u00a0]*\(", gap)
            and text[nxt.end : nxt.end + 1] == ")"
        ):
            m = _external_part(m, nxt, text)  # "Schedule B (Form 1040)": a part of that form
            m.end += 1
            k += 1
        elif (
            m.family in ("absolute", "named")
            and m.kind in _LINED
            and len(m.ids) == 1
            and nxt is not None
            and nxt.family == "absolute"
            and nxt.kind in ("line", "box")
            and len(nxt.ids) == 1
            and re.fullmatch(r",[ \t\u00a0]*", gap)
        ):
            # "Part II, line 5", "the Credit Limit Worksheet, line 22": that part's or worksheet's line
            m = replace(m, end=nxt.end, sub=text[nxt.start : nxt.end].strip())
            k += 1
        elif (
            m.family == "absolute"
            and m.kind == "appendix"
            and len(m.ids) == 1
            and nxt is not None
            and nxt.family == "absolute"
            and nxt.kind in ("part", "subpart")
            and re.fullmatch(r"[ \t\u00a0]+to[ \t\u00a0]+", gap)
        ):
            # "Appendix A to Part 164": a regulation's appendix, one reference (the part is its scope)
            m = replace(m, end=nxt.end, scope=text[nxt.start : nxt.end].strip())
            k += 1
        elif (
            m.family == "absolute"
            and (m.kind in SECTIONISH or m.kind in ("appendix", "annex"))
            and (vol := _OTHER_VOLUME.search(text[max(0, m.start - 24) : m.start]))
            and not _THIS_DOC.match(after)
        ):
            # "Volume II, Appendix C": a part of another volume, a document of its own
            m = _named_external(m, m.end, vol.group("vol"), text[m.start : m.end].strip())
            m.start -= len(text[max(0, m.start - 24) : m.start]) - vol.start()
        elif (
            m.family in ("absolute", "named")
            and (m.kind in _FORM_PARTS or m.kind in SECTIONISH and nxt is not None and nxt.kind in _BACK)
            and len(m.ids) == 1
            and nxt is not None
            and (nxt.family == "absolute" or nxt.family == "named" and nxt.kind == "worksheet")
            and nxt.kind in _CONTAINERS
            and nxt.kind != m.kind
            and _OF_IN.match(gap)
        ):
            # "line 5a of Schedule B": Schedule B, its line 5a; "paragraph 2 of Schedule 3", "Section 4.2
            # of Exhibit B": the attachment's own numbering, not the body's paragraph 2 or Section 4.2
            m = _read_in(m, nxt, text)
            k += 1
        elif (
            m.family == "absolute"
            and (m.kind in SECTIONISH or m.kind in ("appendix", "annex"))
            and (before := _EXT_BEFORE.search(text[max(0, m.start - 60) : m.start]))
            and not (before.group("docid") and out and out[-1].end > max(0, m.start - 60) + before.start())
            and not (
                before.group("docid")
                and m.kind not in ("appendix", "annex")
                and not _DOCID_SERIES.search(text[max(0, m.start - 60) : m.start])
            )
            and not (before.group("act") and _EXT_NAME.match(after))  # "..., Section 208 of the X Act"
            and not _SCOPE.match(after)  # "the Code of Federal Regulations, Section 2 of this guide"
        ):
            # "OMB Circular A-130, Appendix III" broken after "Circular": "A-130, Appendix III" alone
            guide = before.group("guide") or before.group("act") or before.group("docid")
            part = text[m.start : m.end].strip()
            m = _named_external(m, m.end, guide or part, part if guide else None)
        elif m.family == "absolute" and m.kind in ("rule", "regulation") and (ext := _act_after(after)):
            # "Rule 144 under the Securities Act": a rule made under that Act (never "of the Local
            # Rules": a rule book names itself so)
            m = _named_external(m, m.end + ext.end(), ext.group("name"), text[m.start : m.end].strip())
        elif m.family == "absolute" and m.kind in SECTIONISH:
            ext = _EXT_NAME.match(after) or _DISCLOSURE.match(after) or _OF_VOLUME.match(after)
            ext = ext or _NAMED_INSTRUMENT.match(after)
            ext = ext or (_ACRONYM.match(after) if not m.label.isupper() else None)
            ext = ext or _OF_ACRONYM.match(after)
            if ext is not None:
                m = _named_external(m, m.end + ext.end(), ext.group("name"), text[m.start : m.end].strip())
            elif nxt is not None and nxt.kind in _LAW_KINDS and (tags := _LAW_GAP.fullmatch(gap)):
                m.end += len(tags.group(1))  # "Art. VII(A), 80 Stat. 1411": the article's (A) with it
                m = _external_part(m, nxt, text)  # "secs. 13400-13424, Pub. L. 111-5"
                k += 1
            elif (
                nxt is not None and nxt.ref_type == "bib" and nxt.kind == "bibliography" and _OF_IN.match(gap)
            ):
                # "defined in Section 2.1 of [SAMLCore]": a section of the cited work (a standard's
                # references are keyed so; "[XMLEnc] Section 6.3" is read below)
                m = _external_part(m, nxt, text)
                k += 1
            elif (
                nxt is not None
                and m.kind in _SUBUNITS
                and len(m.ids) == 1
                and nxt.family == "absolute"
                and nxt.kind in SECTIONISH
                and _OF.match(gap)
            ):
                m = _read_in(m, nxt, text)
                k += 1
        if (
            m.ref_type == "external"
            and nxt is not None
            and nxt.family == "absolute"
            and re.fullmatch(r",?[ \t\u00a0]*", gap)
            and (
                nxt.kind in SECTIONISH
                or nxt.kind in ("appendix", "annex", "control")
                or nxt.kind in _FORM_PARTS
            )
        ):
            m = _external_part(nxt, m, text)  # "Public Law 104-106, Sec. 5125(b)"
            k += 1
        elif (
            m.ref_type == "bib"
            and nxt is not None
            and nxt.family == "absolute"
            and nxt.kind in SECTIONISH
            and re.fullmatch(r"[ \t\u00a0]+", gap)  # "[3], Section 4 shows" may be a new clause
        ):
            m = _external_part(nxt, m, text)  # "[XMLEnc] Section 6.3": a section of the cited work
            m.ref_type = "external"
            k += 1
        if (
            m.kind == "page"
            and m.family == "absolute"
            and (
                _LOCATOR_BEFORE.search(text[max(0, m.start - 30) : m.start])
                or (m.multi is not None and _LOCATOR_AFTER.match(text[m.end : m.end + 60]))
            )
        ):
            k += 1
            continue  # a page of a cited publication, not of this document
        if m.family == "absolute" and m.kind in SECTIONISH:
            _points_of(text, m)
        if (
            m.family == "absolute"
            and m.kind == "appendix"
            and not m.label.lower().startswith("appendix")  # "48" / "Appendix 1: ...": a page, then its title
            and (vol := _VOLUME.search(text[max(0, m.start - 8) : m.start]))
        ):
            m = _volume_pages(m, vol, text, out)  # "1 App. 7-51": pages of a record's volume
        if m.family == "absolute":
            sc = _SCOPE.match(text[m.end : m.end + 60])
            if sc:
                m.scope = re.sub(r"\s+", " ", sc.group("scope"))
            pre = DEFINITION_PREFIX.search(text[max(0, m.start - 60) : m.start])
            if pre and m.ref_type == "section" and m.kind != "control":  # "defined in AU-2": the control
                m.ref_type = "definition"
                m.start = m.start - (len(text[max(0, m.start - 60) : m.start]) - pre.start())
        if m.direction == "self" and out and out[-1].scope and m.start < out[-1].end + 12:
            k += 1
            continue  # "paragraph (c) of this section": the scope of the reference before it
        out.append(m)
        k += 1
    return out


def _act_after(after: str) -> re.Match | None:
    """Another document's name after a rule ("under the Securities Act", "of the Code"), not a
    set of rules (the rule book the reference may be written in)."""
    ext = _EXT_NAME.match(after)
    return ext if ext is not None and not ext.group("name").endswith("Rules") else None


def _points_of(text: str, m: Mention) -> None:
    """ "point (a) of Article 6(1)": Article 6, paragraph (1)(a), the reference starting at "point"
    (so the point is no longer dropped); "points (a) and (b) of Article 6(1)": one target each."""
    pts = _POINTS_OF.search(text[max(0, m.start - 80) : m.start])
    if pts is None or len(m.ids) != 1 or not m.ids[0]:
        return
    tags = re.findall(r"\([a-z0-9]{1,4}\)", pts.group("pts"))
    para = re.fullmatch(
        r"paragraphs?[\s\u00a0]+\(?([0-9]{1,3}|[a-z])\)?((?:\([A-Za-z0-9]{1,4}\))*)", m.sub or ""
    )
    if m.sub is None:
        m.ids = [f"{m.ids[0]}{t}" for t in tags]
    elif para is not None and len(tags) == 1:  # "point (f) of paragraph 1 of Article 6"
        m.sub = f"paragraph ({para.group(1)}){para.group(2)}{tags[0]}"
    else:
        return
    m.start -= len(text[max(0, m.start - 80) : m.start]) - pts.start()


def _volume_pages(m: Mention, vol: re.Match, text: str, out: list[Mention]) -> Mention:
    """ "1 App. 7–51", "2 App. 336": a court cites the pages of a volume of the record (the
    joint appendix), a separate filing: external, the pages as its sub-selector. Only with
    numeric ids ("2 App. A" stays an appendix)."""
    if not m.ids or not all(re.fullmatch(r"[0-9]+", str(i or "")) for i in m.ids):
        return m
    start = m.start - (len(text[max(0, m.start - 8) : m.start]) - vol.start())
    prev = out[-1] if out else None
    if prev is not None and prev.end > start:
        if len(prev.ids) < 2 or str(prev.ids[-1]).strip() != text[start : m.start].strip():
            return m  # "Table 2 App. 4": the number is the table's
        prev.ids = prev.ids[:-1]  # "§5.05(a), 1 App. 24": the list ends before the volume
        prev.end = (
            len(re.sub(r"[\s\u00a0,;]*(?:and|or)?[\s\u00a0,;]*$", "", text[prev.start : start])) + prev.start
        )
    label = re.sub(r"\s+", " ", text[start : m.start] + m.label).strip()
    pages = re.sub(r"^\S+\s*", "", text[m.start : m.end].strip())
    return Mention(start, m.end, m.rule, m.m, "external", "record_volume", m.label, [label], sub=f"p. {pages}",
                   family="external")  # fmt: skip


def _read_in(m: Mention, container: Mention, text: str) -> Mention:
    """``m`` read inside the unit the next mention names ("line 5a of Schedule B", "paragraph 2 of
    Section 4"): the container's reference over both, ``m``'s text as its sub-selector (the
    container's relative / scope / family readings are not carried over)."""
    c = container
    return Mention(m.start, c.end, c.rule, c.m, c.ref_type, c.kind, c.label, c.ids, c.multi, c.expanded,
                   text[m.start : m.end].strip())  # fmt: skip


def _named_external(m: Mention, end: int, name: str, sub: str | None) -> Mention:
    """``m`` read as a part of another document named around it ("Rule 144 under the Securities
    Act", "E-Government Act of 2002, Section 208"): external, the name as its target."""
    return Mention(m.start, end, m.rule, m.m, "external", "external_part", m.label,
                   [re.sub(r"\s+", " ", name).strip()], sub=sub, family="external")  # fmt: skip


def _external_part(part: Mention, ext: Mention, text: str) -> Mention:
    start, end = min(part.start, ext.start), max(part.end, ext.end)
    return Mention(start, end, ext.rule, ext.m, "external", ext.kind, part.label, ext.ids,
                   sub=text[part.start : part.end].strip(), family="external")  # fmt: skip
