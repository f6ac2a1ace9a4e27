"""In-prose references: the import point of the reference grammar.

The grammar is one table of reference kinds x label forms x numbering forms, in flat modules
(so the parse cache's code fingerprint, which hashes ``docintel/parsing/*.py``, covers them):

- :mod:`.refkinds`: the kinds (section, article, table, exhibit, page, ...) and their labels in
  the main European languages;
- :mod:`.refnumbering`: numbering forms (decimal, 4.02, roman, letters, bracketed,
  parenthesized chains) and the expansion of lists and ranges;
- :mod:`.refrules`: the compiled rules (one per kind, plus external ids, bracketed ids,
  relative and named pointers);
- :mod:`.refmatch`: the matcher and the compositions ("paragraph (b)(1) of § 164.312");
- :mod:`.refprecision`: shapes that are not references (citation locators, editorial brackets);
- :mod:`.refprefilter`: which rules are worth trying on a text (one pass over its label stems);
- :mod:`.refrows`: one row per target.

``find_references(text)`` returns one dict per target with the keys callers read (start, end,
anchor_text, ref_type, ref_target, sub_selector, pattern) and the grammar's own fields:
kind (article, exhibit, requirement, ... finer than ref_type), label, label_form (full, abbrev,
symbol, bracket, id, none), language, relative, direction (previous, next, self), scope
("this section"), multi (None, 'list', 'range'), expanded (False when a range's ends could not be
expanded), targets (every target of the mention) and family (absolute, external, bib, named,
relative, vague).

By default the rows are the pointers the resolver can follow today: absolute references,
external ids, citations, named sections, and "the previous/following section". Pass
``relative=True`` for every relative form too ("this Section", "the preceding paragraph",
"the table below", "see above", "item ii" written alone).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from docintel.parsing.refmatch import RULES, scan
from docintel.parsing.refnumbering import caps_letters
from docintel.parsing.refrows import rows
from docintel.parsing.refrules import CAPS_WORDS, RefPattern

#: The rule table (order = priority on equal spans).
PATTERNS: list[RefPattern] = RULES

__all__ = [
    "PATTERNS",
    "TAIL_CHARS",
    "RefPattern",
    "classify_reference",
    "find_references",
    "references_on_lines",
]

#: Characters of the next line read to finish a reference broken over a line end.
TAIL_CHARS = 40
#: A next line that is a number alone of three digits or more is a line-numbered document's
#: margin number ("... as described in Section" / "1553"), not the rest of a reference.
_LINE_NUMBER = re.compile(r"\s*[0-9]{3,5}\s*$")
#: A word hyphenated over the line end ("para-" / "graph (e)", "Sec-" / "tion 4.2"): the next
#: line's head continues it in lower case, so the two halves are read as one word.
_BROKEN_WORD = re.compile(r"(?<![\w-])[A-Za-z]{2,}-\s*$")
_LOWER_START = re.compile(r"\s*[a-z]")
#: A next line opening with a list item's "1)" starts an item, never the rest of a reference
#: ("3 Requirements" / "1) Specified in a FIPS ...": not requirement 1), unless this line holds
#: an open parenthesis the "1)" closes ("the results (Table" / "2) show").
_ITEM_START = re.compile(r"\s*[0-9]{1,2}\)[ \t\u00a0]+\S")
#: A next line opening with a tag ("(b) the rights ...", "(1) The controller ...", "(2)" alone)
#: after a line ending in a number or its tags ("(a) the duties in Section 4" / "(b) the rights
#: ...", "(i) ... Section 3(a)" / "(ii) ...", a code's page head "§ 1308.13" / "(2)") opens a
#: list member: the tag is not that number's paragraph. The two are joined by a line break, which a spaced tag ("Section 6.4 (d)") does not
#: cross. A tag going on as a reference does ("subsections 201" / "(a) and (b) of the Act"): one
#: followed by "and", "or", "through", "of", a comma or another tag.
_TAG_START = re.compile(
    r"\s*\((?:[a-z]{1,2}|[ivxl]{1,5}|[0-9]{1,3})\)(?![ \t\u00a0]*(?:(?:and|or|through|of)\b|[,(]))"
)
_NUMBER_END = re.compile(r"[0-9][A-Za-z]?(?:\((?:[a-z]{1,2}|[ivxl]{1,5}|[0-9]{1,3})\))*\s*$")
#: A line ending in a spaced dash goes on with a title ("Chapter 35 –" / "Coordination of
#: ..."), not with the other end of a range: the next line's number is its own. Only after a
#: singular label's number: a plural's ("Sections 3.1 –" / "3.4", "pages 10 -" / "12") is a range.
_SPACED_DASH_END = re.compile(r"(?<![A-Za-z]s)(?<!\bpp)(?<!\bpp\.)\s+[0-9][0-9.]*\s[\u2013\u2014-]\s*$")
#: Characters of the line before read for the earlier items of a sentence's enumeration.
HEAD_CHARS = 120
#: A parenthesized item marker in running text ("shall (a) comply"), and one opening its line.
_OWN_MARKER = re.compile(r"(?:^|(?<=[\s,;:]))\([A-Za-z0-9]{1,4}\)[ \t\u00a0]+[a-z]")
_LEAD_MARKER = re.compile(r"^\s*\([A-Za-z0-9]{1,4}\)\s*")


def _default(row: dict) -> bool:
    if row["family"] == "vague":
        return False
    if row["relative"]:
        return row["kind"] == "section" and row["direction"] in ("previous", "next")
    return True


def find_references(text: str, *, relative: bool = False) -> list[dict]:
    """All references in ``text``, one dict per target (see the module docstring)."""
    out: list[dict] = []
    for mt in scan(text or ""):
        for row in rows(mt, text):
            if (relative or _default(row)) and not _caps_word(row, text):
                out.append(row)
    return out


_CAPS_WORD = re.compile(r"(?:" + CAPS_WORDS + r")")
#: A lower-case word after "Schedule XX" opening a sentence that is no verb or joint of the
#: sentence: "Schedule IT maintenance windows", "Schedule AM and PM shifts" (the verb, its object
#: in capitals); "Schedule SE is filed", "Schedule EIC for ..." name the schedule.
_AFTER_NAME = re.compile(
    r"[\s\u00a0]+(?!(?:is|are|was|were|has|have|had|must|may|can|cannot|will|would|should|shall|does|do"
    r"|did|and|or|for|to|of|in|on|if|with|as|at|by|from|lists|shows|line|lines|instead|only|also|"
    r"applies|asks|reports|includes|uses)\b)[a-z]"
)


def _caps_word(row: dict, text: str) -> bool:
    """A schedule's capitals that are not its letters: a word ("Schedules A, B, AND C"), the end of
    a hyphenated name ("Schedule C-EZ" is not schedules C and EZ), or the object of the verb
    opening a sentence ("Schedule IT maintenance windows on weekends.")."""
    target = str(row["ref_target"] or "")
    if row["kind"] != "schedule" or not caps_letters(target):
        return False
    if _CAPS_WORD.fullmatch(target):
        return True
    span = text[row["start"] : row["end"]]
    at = re.search(r"(?<![A-Za-z])" + target + r"(?![A-Za-z])", span)
    if at is not None and span[: at.start()].endswith(("-", "\u2013")):
        return True
    before = text[: row["start"]].rstrip()
    opens = not before or before.endswith((".", "!", "?", ":", ";"))
    return opens and row["label"] == "Schedule" and bool(_AFTER_NAME.match(text, row["end"]))


def references_on_lines(
    lines: Sequence[tuple[int, int, str]], only: Sequence[int] | None = None
) -> Iterator[tuple[int, list[dict]]]:
    """(position, rows) for each of ``lines`` ((page, line, text) in reading order; positions
    ``only``, default all). A reference broken over a line end ("Sections 3 and" / "4") is found
    by reading :data:`TAIL_CHARS` of the next line of the same page, and is reported once, on
    the line where it starts. The one line walker of the parser's ``extract_references`` and
    the ask-time :mod:`docintel.refscan`."""
    # how far the references the line before ran into this one, and what they read there
    spill, spilled, last = 0, [], -2
    for k in range(len(lines)) if only is None else only:
        page, line, text = lines[k]
        covered, before = (spill, spilled) if last == k - 1 else (0, [])
        head = _head(lines[k - 1], page, line) if k > 0 else ""
        tail = ""
        if (
            k + 1 < len(lines)
            and lines[k + 1][0] == page
            and lines[k + 1][1] == line + 1
            and not _LINE_NUMBER.match(str(lines[k + 1][2]))
            and not (_ITEM_START.match(str(lines[k + 1][2])) and text.count("(") <= text.count(")"))
            and not _SPACED_DASH_END.search(text)
        ):
            nxt = str(lines[k + 1][2])
            tail = ("\n" if _TAG_START.match(nxt) and _NUMBER_END.search(text) else " ") + nxt[:TAIL_CHARS]
            if _BROKEN_WORD.search(text) and _LOWER_START.match(tail):
                text, tail = text.rstrip()[:-1], tail.lstrip()  # "para-" / "graph (e)": one word
        found = []
        for r in find_references(head + text + tail):
            if len(head) <= r["start"] < len(head) + len(text):
                found.append({**r, "start": r["start"] - len(head), "end": r["end"] - len(head)})
        found = [r for r in found if not _plural_over_end(r, text, tail) and not _letters_over_end(r, text)]
        if tail.startswith("\n"):  # the line break only stops the spaced tag: what a row reads is one line
            found = [
                {k: v.replace("\n", " ") if isinstance(v, str) else v for k, v in r.items()} for r in found
            ]
        spilled = [r for r in found if r["end"] > len(text) + 1]
        spill, last = max((r["end"] - len(text) - 1 for r in spilled), default=0), k
        # a reference the line before already read over the line end ("OMB Circular" / "A-130,
        # Appendix III") is not read again from here, alone ("Appendix III", an internal one);
        # a part of it read alone that names another target ("figure 10 to" / "paragraph (i)")
        # stays, the line before's reading may not resolve
        yield (
            k,
            [
                r
                for r in found
                if r["end"] > covered or not _read_before(r, before, (text + tail)[r["start"] : r["end"]])
            ]
            if covered > 0
            else found,
        )


def _read_before(r: dict, before: list[dict], own: str) -> bool:
    """Whether the line before's references that ran into this line already read ``r`` (its text
    ``own``): the same target; or, after another document's reference, another external, a bare
    id that reference read ("45 C.F.R. §" / "164.308(a)(8)", "Rev. 4 AU-12," / "CM-8, PE-3"), a
    unit its name holds ("31 U.S.C., Chapter" / "91"), or the labelled part it named (its sub:
    "OMB Circular" / "A-130, Appendix III"). Another
    labelled unit after that part ("III, and Appendix B of this guide") is this document's."""
    own = own.strip()
    for b in before:
        if b["ref_target"] == r["ref_target"]:
            return True
        if b["ref_type"] not in ("external", "bib"):
            continue
        sub = str(b.get("sub_selector") or "").strip()
        if r["ref_type"] in ("external", "bib") or own == sub:
            return True
        target, label = str(b["ref_target"]), str(r.get("label") or "")
        if own and own in (target if label else f"{target} {sub}") or label and label in target:
            return True  # "31 U.S.C., Chapter" / "91", "42" / "CFR part 2", "See 2" / "App. 362"
    return False


def _plural_over_end(r: dict, text: str, tail: str = "") -> bool:
    """A plural label ending the line with one id on the next ("Derived Security Requirements" /
    "3.14.4 ..."): a heading's or a sentence's last word over the next line's own number; a
    pointer to one unit is singular ("Sections 3 and" / "4" is a list). Only a heading's: after a
    lower-case word, with the sentence going on after a lettered id, the label is a pointer ("see
    Appendices" / "C for the forms"; "Indices and tables" / "7" is a heading, "... functionality
    requirements" / "50 large metro locations" a number of the next sentence)."""
    own = text[r["start"] :].strip()
    word = text[: r["start"]].split()[-1:]
    goes_on = re.match(r"[\s\u00a0]*[,;]?[\s\u00a0]*[a-z]", (text + tail)[r["end"] :])
    return (
        r["end"] > len(text)
        and not (word and word[0][:1].islower() and goes_on and not str(r["ref_target"])[:1].isdigit())
        and r["multi"] is None
        and own.lower() == str(r.get("label") or "").lower()
        and own[-1:] in "sS"
        and not own.lower().endswith(("ss", "us", "is"))
    )


def _letters_over_end(r: dict, text: str) -> bool:
    """A schedule's letters read from the next line ("General Records Schedule" / "HEW ..."): the
    next line's capitals are its own words; a tax schedule's letters stay by their label
    ("Schedule SE")."""
    target = str(r["ref_target"] or "")
    own = (
        re.search(r"(?<![A-Za-z])" + re.escape(target) + r"(?![A-Za-z])", text[r["start"] :])
        if target
        else None
    )
    return (
        r["kind"] == "schedule"
        and r["end"] > len(text)
        and own is None  # only the ids past the line end: "Schedules SE and" / "EIC" keeps SE
        and caps_letters(target)  # "listed in Schedule" / "II of the Act" is schedule II
    )


def _head(prev: tuple[int, int, str], page: int, line: int) -> str:
    """The end of the line before (same page, the line just above) when it holds an item marker
    of a sentence's own enumeration: "shall (a) comply with the covenants of" / "Section 4(a),
    and (b) pay" lists (b) after the sentence's (a), not Section 4's. A reference opening on the
    line before and running into this one is reported there, never here. A marker opening the
    line before is that line's own label, not an item of its sentence, and is left out."""
    if prev[0] != page or prev[1] != line - 1:
        return ""
    before = _LEAD_MARKER.sub("", str(prev[2]))[-HEAD_CHARS:]
    return before + " " if _OWN_MARKER.search(before) else ""


def classify_reference(raw_text: str) -> tuple[str, str | None, str | None]:
    """(ref_type, ref_target, sub_selector) of one reference's raw text.

    ``classify_reference("Table 3 row (E)") == ("table", "3", "row (E)")``;
    text with no recognisable reference gives ``("unknown", None, None)``.
    """
    refs = find_references(raw_text or "")
    if not refs:
        return "unknown", None, None
    r = refs[0]
    return r["ref_type"], r["ref_target"], r["sub_selector"]
