"""Pending reference -> target region, from the tables alone; externals flagged.

``resolve_in_tables`` turns one :class:`PendingReference` into a :class:`Resolution`
that names the target (a toc section, a registry object, a printed page, a
bibliography entry) and carries the :class:`Passage` objects pass 2 adds,
narrowed by the reference's sub-selector (``row (E)`` of Table 3 keeps the
table's header so the numbers keep their meaning). When the tables cannot tell ("the
previous section"), ``model_brief`` / ``section_resolution`` (:mod:`.resolve_model`) are what
the composer (``decide.resolve_pending``) gives a backend and makes of its pick: this brick never
calls one. :mod:`.resolve_build` builds a located target's passages.
"""

from __future__ import annotations

import re
from functools import lru_cache

import pandas as pd

from docintel import refscan
from docintel.parsing.refmatch import KIND_BY_NAME, kind_of_label
from docintel.parsing.refpatterns import find_references
from docintel.parsing.refrules import BODY_ACRONYM, lone_control
from docintel.retrieval import reflines, refparas
from docintel.retrieval.lookup import (
    appendix_sections,
    find_labelled,
    find_objects,
    find_page,
    find_sections,
    find_titled,
)
from docintel.retrieval.narrow import PAREN_LABEL, descend, nearest
from docintel.retrieval.refcontrols import control_lines
from docintel.retrieval.refitems import LETTERED, list_item_of
from docintel.retrieval.refparts import foreign_acronym, foreign_part, names_this_document
from docintel.retrieval.refrelative import relative_sections
from docintel.retrieval.refunits import enclosing_paragraph, tagged_region, unlisted_provision_paragraph
from docintel.retrieval.resolve_build import check_near, cut_note, n_lines, section_at, sections_found
from docintel.retrieval.resolve_build import found as _found
from docintel.retrieval.resolve_model import model_brief, model_may_help, section_resolution
from docintel.retrieval.targets import (
    object_passages_counted,
    page_passages,
    section_passages,
    to_passages,
)
from docintel.schema.answer import PendingReference
from docintel.schema.document import DocTables
from docintel.schema.evidence import ParsedQuestion
from docintel.schema.kinds import OBJECT_REF_TYPES
from docintel.schema.loop import Resolution

#: Targets of one list or range ("Sections 4.1.3, 4.2.3, and 4.3.3") followed in one pass;
#: the rest are named as cut. Six covers the lists and ranges of the dev set's documents
#: ("paragraphs (g) through (l)") while a run such as "clauses 1 to 40" stays bounded.
MAX_TARGETS = 6
#: Lines each target of a list gets at least, whatever the list's length: a section heading
#: plus its first sentences.
MIN_TARGET_LINES = 12
#: External kinds a document may print itself (a form inside its instructions, a publication's own title).
_PRINTED_HERE = re.compile(r"(?:Forms?|Pub\.|Publication)\s", re.I)
_PARA_RANGE = re.compile(r"\(([a-z]{1,2}|\d{1,3})\)\s*(?:through|to|-|–)\s*\(([a-z]{1,2}|\d{1,3})\)", re.I)


def classify(raw_text: str, fallback_type: str = "unknown") -> list[tuple[str, str | None, str | None]]:
    """Every (ref_type, target, sub_selector) reading of ``raw_text``, best first.

    Uses the reference grammar; a raw text such as "Figure 10 to paragraph (i)" yields both
    the figure and the paragraph, so resolution can fall back from one to the other.
    """
    readings: list[tuple[str, str | None, str | None]] = []
    got = refscan.classify(raw_text)
    if got and got[0] not in (None, "unknown"):
        readings.append(tuple(got))
    for ref_type, target, sub in refscan.readings(raw_text):
        reading = (ref_type, _str_or_none(target), _str_or_none(sub))
        if reading not in readings:
            readings.append(reading)
    if not readings:
        readings.append((fallback_type, None, None))
    return readings


def _str_or_none(value) -> str | None:
    return value if isinstance(value, str) and value else None


def _paragraph_range(raw_text: str) -> list[str]:
    m = _PARA_RANGE.search(raw_text)
    if not m:
        return []
    a, b = m.group(1).lower(), m.group(2).lower()
    if a.isdigit() and b.isdigit():
        return [f"({i})" for i in range(int(a), int(b) + 1)][:26]
    if len(a) == 1 and len(b) == 1 and a <= b:
        return [f"({chr(c)})" for c in range(ord(a), ord(b) + 1)]
    return [f"({a})", f"({b})"]


def resolve_in_tables(
    ref: PendingReference,
    tables: DocTables,
    *,
    question: ParsedQuestion,
    max_lines: int = 40,
) -> Resolution:
    """Resolve one pending reference against the tables alone (deterministic): a condition is
    stated, an external document named, a section / object / page found, or unresolved with
    the reason. ``decide.resolve_pending`` may then ask a model (:func:`model_may_help`)."""
    if ref.ref_type == "condition":
        return Resolution(
            ref,
            "condition",
            "condition",
            "condition",
            reason="conditions are stated in the answer, not resolved",
        )
    ctx = {"ref": ref, "question": question, "max_lines": max_lines}
    readings = classify(ref.raw_text, ref.ref_type)
    if readings[0][1] is None and (alone := lone_control(ref.raw_text)):  # "AC-3": the control
        readings = [("section", alone, None)]
    readings = _own_named_parts(tables, readings)
    if readings[0][0] in ("section", "clause") and (
        name := foreign_acronym(tables, ref.raw_text, (ref.origin_page, ref.origin_line))
    ):
        why = f"a unit of {name}, a work this document is not: named, not fetched"
        return Resolution(ref, "external", "external", "external", target=name, reason=why)
    group = [r for r in readings if r[0] == readings[0][0] and r[1]]
    if len(group) > 1 and group[0][0] != "external":  # a list or range: every target, in one pass
        res = _resolve_many(tables, group, ctx)
        if res is not None:
            return res
    for ref_type, target, sub in readings:
        if ref_type == "external" and ref.ref_type == "bib" and target:
            # a bracketed report id the caller reads as a citation ("[SP 800-90]" for a question
            # asking which publication): the document's own reference list entry, when it has one
            res = _resolve_one(tables, "bib", target, sub, ctx)
            if res is not None:
                return res
        if ref_type == "external" and target and _PRINTED_HERE.match(target):
            # "Form 8949", "Pub. 550": another document, unless this one prints it (a heading)
            at = reflines.labelled_line(tables, "external", target, (ref.origin_page, ref.origin_line))
            res = _from_lines(tables, "section", target, ctx, at=at, how="heading line") if at else None
            if res is not None:
                return res
        if ref_type == "external":
            return Resolution(
                ref,
                "external",
                "external",
                "external",
                target=target or ref.raw_text,
                reason="points outside this document: named, not fetched",
            )
        res = _resolve_one(tables, ref_type, target, sub, ctx)
        if res is not None:
            return res
    ref_type = readings[0][0]
    part = (
        foreign_part(tables, readings[0][1], grammar_kind(ref.raw_text))
        if ref_type in ("section", "definition")
        else None
    )
    if ref_type == "section" and readings[0][1] and grammar_kind(ref.raw_text) == "control":
        why = f"control {readings[0][1]} is not printed in this document: the control catalogue's (SP 800-53)"
        return Resolution(ref, "external", "external", "external", target=readings[0][1], reason=why)
    if ref_type == "section" and _BODY_RULE.match(ref.raw_text or ""):
        why = "a rule of the body named before it, not printed in this document: that body's rule set"
        return Resolution(ref, "external", "external", "external", target=readings[0][1], reason=why)
    if part is not None:  # "§ 164.308(a)(1)" in a guide numbered 1 to 6: the rule's, not the guide's
        why = f"part {part} is not one this document numbers its units with: another document's"
        return Resolution(ref, "external", "external", "external", target=readings[0][1], reason=why)
    why = "no matching section, object or page in this document"
    if readings[0][1] is None and ref_type not in ("appendix", "annex"):
        why = "the reference names no number the tables can match"
    return Resolution(ref, "unresolved", "none", ref_type, target=readings[0][1], reason=why)


def _own_named_parts(tables: DocTables, readings: list) -> list:
    """An external reading whose name is this document's own ("Section 5.1 of the Credit
    Agreement" in the Credit Agreement): its sub-selector's readings in its place."""
    out = []
    for ref_type, target, sub in readings:
        if ref_type == "external" and sub and target and names_this_document(tables, target):
            out += [r for r in classify(sub) if r[0] != "external" and r not in out]
        elif (ref_type, target, sub) not in out:
            out.append((ref_type, target, sub))
    return out or readings


def _resolve_many(tables: DocTables, group: list, ctx: dict) -> Resolution | None:
    """Each target of a list or range ("Sections 3.2 through 3.5"), with a budget sized to the
    targets (``max_lines`` shared, at least :data:`MIN_TARGET_LINES` each); targets beyond
    :data:`MAX_TARGETS` and targets the tables lack are named in ``cut`` / the reason."""
    ref: PendingReference = ctx["ref"]
    followed, cut = group[:MAX_TARGETS], [t for _, t, _ in group[MAX_TARGETS:]]
    each = max(ctx["max_lines"] * 2 // len(followed), MIN_TARGET_LINES)
    found: list[Resolution] = []
    missing: list[str] = []
    for ref_type, target, sub in followed:
        res = _resolve_one(tables, ref_type, target, sub, {**ctx, "max_lines": each, "single": True})
        (found.append(res) if res is not None and res.passages else missing.append(str(target)))
    if not found:
        return None
    passages = [p for r in found for p in r.passages]
    reason = f"{len(found)} of {len(group)} targets: " + "; ".join(r.reason for r in found)
    if missing:
        reason += "; not in this document: " + ", ".join(missing)
    res = _found(ref, found[0].method, found[0].ref_type, ",".join(str(r.target) for r in found),
                 found[0].sub_selector, passages, reason)  # fmt: skip
    res.cut = [c for r in found for c in r.cut] + [
        f"{group[0][0]} {t} (list longer than {MAX_TARGETS})" for t in cut
    ]
    return res


def _resolve_one(
    tables: DocTables, ref_type: str, target: str | None, sub: str | None, ctx
) -> Resolution | None:
    """One target: from the tables, else from the line that names it (:mod:`.reflines`)."""
    res = _from_tables(tables, ref_type, target, sub, ctx)
    if res is None and target and ref_type not in ("external", "bib", "page"):
        res = _from_lines(tables, ref_type, str(target), {**ctx, "sub": sub})
    if res is None and ref_type == "section" and not sub and (item := list_item_of(target)):
        # "§4.2.1" where 4.2 numbers its paragraphs "1.", "2.": the item of the section
        res = _resolve_one(tables, ref_type, item[0], f"paragraph ({item[1]})", ctx)
    if res is None and not target and ref_type in ("appendix", "annex"):
        # "the appendix" of a document that prints one "Appendix" line the toc missed
        ref: PendingReference = ctx["ref"]
        at = refparas.lone_backmatter_line(tables, ref.raw_text, (ref.origin_page, ref.origin_line))
        if at is not None:
            res = _from_lines(
                tables, ref_type, "", {**ctx, "sub": None, "region": (at, None)}, at=at, how="label line"
            )
    return res


#: Kinds that name a unit by its label ("Article 12", "Chapter IV", "Part 2"): their number alone
#: ("12.") is often a paragraph of some other unit in the toc.
NAMED_UNITS = ("article", "chapter", "part", "subpart", "rule", "regulation")


@lru_cache(maxsize=1024)
def grammar_kind(raw_text: str) -> str | None:
    """The grammar's kind of the first reference in ``raw_text`` ("line 5a of Schedule B": schedule)."""
    # a pure function of the text, asked up to six times per reading: memoised
    rows = find_references(raw_text or "")
    return rows[0]["kind"] if rows else ("control" if lone_control(raw_text) else None)


#: a reference's opening label word, with its abbreviation dot (group 1) and without (group 2)
_LABEL_WORD = re.compile(r"\s*(?:[A-Z]{2,6}\s+(?=[A-Z][a-z]))?(([^\W\d_]+)\.?)")  # ("FINRA Rule": Rule)
#: A rule of a body named by its acronym ("FINRA Rule 2111", "SEC Rule 10b-5"): the body's rule set.
_BODY_RULE = re.compile(r"\s*" + BODY_ACRONYM + r"\s+(?:Rules?|Regulations?)\b")


def _named_unit(raw_text: str) -> str | None:
    word = _LABEL_WORD.match(raw_text or "")
    kind = kind_of_label(word.group(1)) if word else None
    if kind is None or kind.name not in NAMED_UNITS or grammar_kind(raw_text) != kind.name:
        return None  # "Pt.4 Ch.1 Sec.2" names Sec.2, not Part 2
    return kind.name


def _own_label(raw_text: str) -> str | None:
    """The kind when its id means something only with its label ("line 16", "Step 2", "Item 7A")."""
    kind = KIND_BY_NAME.get(grammar_kind(raw_text) or "")
    return kind.name if kind is not None and kind.own_label else None


def control_resolution(tables: DocTables, ref, target: str, sub, ctx) -> Resolution | None:
    """A control id ("AC-2", "AC-2(3)"): the control's own entry where the document prints it
    (:func:`refcontrols.control_lines`), else None (named as the catalogue's by the caller)."""
    origin = (ref.origin_page, ref.origin_line)
    rows, how = control_lines(tables, target, sub, origin, ctx["max_lines"], ctx["question"])
    if rows is None:
        return None
    note = f"pulled in because of '{ref.raw_text}' on page {ref.origin_page}, line {ref.origin_line}"
    passages = to_passages(rows, tables.doc_id, ref=ref, note=note)
    return _found(ref, "offline_rules", "section", target, sub, passages, how)


def _by_own_label(tables: DocTables, ref_type: str, kind: str, target: str, sub, ctx) -> Resolution | None:
    """A form's line, a filing's item, an instruction's step: the line or toc title that opens with
    the label and the id ("Line 16.", "Item 7. Management's ...", "Step 2: ..."), else the nearest
    list item or form row opening with the id ("6. If ...", "10 / Adjustments to income") around
    the reference (:func:`reflines.marker_line`); never a bare toc number (line 16 is not section 16)."""
    ref: PendingReference = ctx["ref"]
    origin = (ref.origin_page, ref.origin_line)
    at = reflines.labelled_line(tables, ref_type, target, origin, kind)
    if at is not None:
        return _from_lines(tables, ref_type, target, ctx, at=at, how=f"{kind} heading line")
    secs = find_titled(tables, KIND_BY_NAME[kind], target)
    if not secs.empty:
        note = f"pulled in because of '{ref.raw_text}' on page {ref.origin_page}, line {ref.origin_line}"
        common = {"ref": ref, "note": note, "retrieved_via": "reference"}
        return sections_found(tables, secs.head(1), ref_type, target, sub, ctx, common)
    if kind in reflines.MARKED_KINDS:
        at = reflines.marker_line(tables, KIND_BY_NAME[kind], target, origin)
        if at is not None:
            return _from_lines(tables, ref_type, target, ctx, at=at, how=f"line opening {kind} {target}")
    return None


def _from_lines(tables: DocTables, ref_type: str, target: str, ctx, at=None, how=None) -> Resolution | None:
    """A target the toc and the registry miss, found by its caption or heading line, or a
    footnote by its marker; the region it opens is the evidence."""
    ref: PendingReference = ctx["ref"]
    origin = (ref.origin_page, ref.origin_line)
    note = f"pulled in because of '{ref.raw_text}' on page {ref.origin_page}, line {ref.origin_line}"
    if ref_type == "footnote":
        rows = reflines.footnote_lines(tables, target, ref.origin_page)
        if len(rows):
            why = f"footnote {target} on page {int(rows.iloc[0]['page'])} (its marker line)"
            passages = to_passages(rows, tables.doc_id, ref=ref, note=note)
            return _found(ref, "offline_rules", "footnote", target, None, passages, why)
    if at is None and _own_label(ref.raw_text):
        return None  # "line 16" is found by its own label only (_by_own_label)
    at = at or reflines.labelled_line(tables, ref_type, target, origin)
    how = how or "caption or heading line"
    if (
        at is None
        and ref_type in ("section", "clause", "footnote", "definition")
        and (re.fullmatch(r"[0-9]+(?:\.[0-9]+)*", target) or LETTERED.fullmatch(target))
    ):
        at, how = reflines.numbered_heading(tables, target, origin), "numbered heading"
    region = ctx.get("region")
    if (
        at is None
        and ref_type in ("section", "clause")
        and re.fullmatch(r"[0-9]+(?:\.[0-9]+)*", target)
        and grammar_kind(ref.raw_text) not in ("chapter", "part", "subpart")  # never a paragraph
        and not refparas.names_itself(tables, ref.raw_text, origin)
    ):
        # a word-processed contract's article in the body font ("2.Scope of the rights ...")
        region = refparas.numbered_paragraph(tables, target, origin)
        at, how = (region[0], "numbered paragraph in the body font") if region else (None, how)
    if at is None:
        return None
    if region is not None:  # runs to its next sibling, over page breaks
        rows = refparas.paragraph_region(tables, at, region[1], ctx["max_lines"])
    elif ref_type in ("appendix", "annex"):  # back matter: to the next heading or label line
        rows = refparas.appendix_region(tables, at, ctx["max_lines"])
    else:
        rows = reflines.region_from(tables, at[0], at[1], ctx["max_lines"])
    sub = ctx.get("sub")
    # "CHAPTER TWO" alone on its line: its title is the next toc row (a one-line "1. ..." is not)
    if len(rows) <= 2 and not sub and ref_type == "section" and _label_alone(rows):
        secs = _section_after(tables, at)
        if not secs.empty:
            common = {"ref": ref, "note": note, "retrieved_via": "reference"}
            return sections_found(tables, secs, ref_type, target, None, ctx, common)
    tagged = tagged_region(tables, at, sub, ctx["max_lines"])
    if tagged is not None:  # "§ 164.514(e)" under a heading the toc misses: its (e)
        rows, how = tagged, f"{how} and its {sub}"
    passages = to_passages(rows, tables.doc_id, ref=ref, note=note)
    why = f"{how} on page {at[0]}, line {at[1]} (not in toc_df or object_registry)"
    return _found(ref, "offline_rules", ref_type, target, sub if tagged is not None else None, passages, why)


def _label_alone(rows: pd.DataFrame) -> bool:
    """The labelled line holds the label and little else ("CHAPTER TWO", "ARTICLE 5"), not a
    one-line numbered paragraph whose next line opens the next paragraph."""
    return not rows.empty and len(str(rows.iloc[0]["text"]).split()) <= LABEL_ALONE_WORDS


#: Words a label printed alone on its line has at most ("CHAPTER TWENTY ONE").
LABEL_ALONE_WORDS = 3


def _section_after(tables: DocTables, at: tuple[int, int]) -> pd.DataFrame:
    """The toc row starting on the labelled line or on one of the two lines after it (a chapter's
    label printed alone above its title), not a contents entry."""
    toc = tables.toc_df
    if toc.empty:
        return toc.iloc[0:0]
    hit = toc[(toc["page_start"] == at[0]) & toc["line_start"].between(at[1], at[1] + 2)]
    if len(hit) < 2:
        return hit
    # the row that holds the chapter (the label's own row may be one line, the title's first section smaller)
    ends = hit["page_end"].fillna(hit["page_start"]) * 10**6 + hit["line_end"].fillna(10**5)
    return hit.loc[[ends.idxmax()]]


def _from_tables(
    tables: DocTables, ref_type: str, target: str | None, sub: str | None, ctx
) -> Resolution | None:
    ref: PendingReference = ctx["ref"]
    q, max_lines = ctx["question"], ctx["max_lines"]
    note = f"pulled in because of '{ref.raw_text}' on page {ref.origin_page}, line {ref.origin_line}"
    via = "definition" if ref_type == "definition" else "reference"
    common = {"ref": ref, "note": note, "retrieved_via": via}

    if ref_type in ("section", "clause", "definition"):
        if not target:  # "The following sections define ...": the toc around the reference
            secs = relative_sections(tables, ref.raw_text, (ref.origin_page, ref.origin_line))
            if secs is not None:
                ids = ",".join(secs["toc_id"].astype(str).head(MAX_TARGETS))
                return sections_found(tables, secs.head(MAX_TARGETS), ref_type, ids, sub, ctx, common)
        if target and grammar_kind(ref.raw_text) == "control":
            return control_resolution(tables, ref, str(target), sub, ctx)
        own = _own_label(ref.raw_text)
        if own and target:
            return _by_own_label(tables, ref_type, own, str(target), sub, ctx)
        named = _named_unit(ref.raw_text)
        if named and target:  # "Article 12": the heading "Article 12", not the toc's paragraph "12."
            word = _LABEL_WORD.match(ref.raw_text or "")
            labelled = find_labelled(tables, word.group(2) if word else "", str(target))
            if not labelled.empty:  # the toc holds the provision by its label: all of it, paragraphs too
                secs, left = descend(tables, labelled, sub)
                return sections_found(tables, secs, ref_type, target, sub, {**ctx, "select": left}, common)
            at = reflines.labelled_line(
                tables, ref_type, str(target), (ref.origin_page, ref.origin_line), named
            )
            if at is not None:  # "Rule 7.1(b)" by its heading line keeps its (b)
                return _from_lines(tables, ref_type, str(target), {**ctx, "sub": sub}, at=at)
        if target and grammar_kind(ref.raw_text) in ("paragraph", "subsection"):
            # "paragraph 1 of this Article": the "1." of the provision it is written in
            origin = (ref.origin_page, ref.origin_line)
            at = enclosing_paragraph(tables, str(target), origin) or unlisted_provision_paragraph(
                tables, str(target), sub, origin
            )
            if at is not None:
                return _from_lines(
                    tables, ref_type, str(target), ctx, at=at, how="paragraph of its provision"
                )
        # a range of bare tags ("paragraphs (g) through (l)") only: "§§2.12(a)–(e)" is section 2.12
        bare = str(target or "").startswith("(") and not ctx.get("single")
        ids = (_paragraph_range(ref.raw_text) if bare else [target]) or [target]
        paren = bool(PAREN_LABEL.match(ref.raw_text))
        found = [nearest(tables, find_sections(tables, t, paren=paren), ref, str(t)) for t in ids if t]
        secs = pd.concat(found) if found else None
        if secs is None or secs.empty:
            return None
        if len(secs) == 1:
            secs, left = descend(tables, secs, sub)
            ctx = {**ctx, "select": left}
        return sections_found(tables, secs, ref_type, ",".join(str(t) for t in ids), sub, ctx, common)

    if ref_type in OBJECT_REF_TYPES:
        objs = find_objects(tables, ref_type, target)
        if not objs.empty:
            obj = objs.iloc[0]
            secs = section_at(tables, obj) if ref_type in ("appendix", "annex") else None
            if secs is not None and not secs.empty:  # an appendix is the section it opens, whole
                return sections_found(tables, secs, ref_type, str(obj["object_key"]), sub, ctx, common)
            passages, region = object_passages_counted(
                tables, obj, q, sub_selector=sub, max_lines=max_lines, **common
            )
            why = f"object_registry: {obj['label']} on page {obj['page']}"
            res = _found(ref, "object_registry", ref_type, obj["object_key"], sub, passages, why)
            res.cut = cut_note(str(obj["label"]), region, n_lines(passages))
            return res
        if ref_type in ("appendix", "annex") and target and "." in str(target):
            # "Appendix C.2" is section C.2 of the appendix; else the appendix it belongs to
            secs = find_sections(tables, target)
            if not secs.empty:
                return sections_found(tables, secs, ref_type, str(target), sub, ctx, common)
            return _from_tables(tables, ref_type, str(target).split(".")[0], sub, ctx)
        if ref_type in ("appendix", "annex"):
            secs = appendix_sections(tables)
            if target:
                secs = secs[
                    secs["title"].str.contains(rf"\b{re.escape(str(target))}\b", case=False, na=False)
                ]
            if not secs.empty:
                check_near(tables, secs)
                passages = section_passages(tables, secs, q, sub_selector=sub, max_lines=max_lines, **common)
                why = "toc_df: appendix section(s) " + ", ".join(secs["title"].head(3))
                return _found(ref, "toc_df", ref_type, str(secs.iloc[0]["toc_id"]), sub, passages, why)
        return None

    if ref_type == "page" and target:
        page, method = find_page(tables, str(target), ref.origin_page)
        if page is None:
            return None
        passages = page_passages(tables, page, q, max_lines=max_lines, **common)
        return _found(
            ref, method, "page", str(target), None, passages, f"printed page {target} is physical page {page}"
        )
    return None


__all__ = ["classify", "model_brief", "model_may_help", "resolve_in_tables", "section_resolution"]
