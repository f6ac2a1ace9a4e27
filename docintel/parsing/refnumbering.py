"""Numbering forms, as data, and the expansion of lists and ranges of ids.

Each form is a regex fragment for one id. A list of ids ("4.1.3, 4.2.3, and 4.3.3") and a
range ("3.2 through 3.5", "(g) through (l)", "I-V") are split into their ids by
:func:`split_targets`, which expands a range when the numbering allows it (same prefix,
short span) and otherwise keeps its two ends.
"""

from __future__ import annotations

import re

from docintel.text import roman_value as _roman_any
from docintel.text import to_roman

#: Where an id ends: no letter or digit after it, nor "./" and one. (An ASCII range and a range
#: beyond U+00FF in one class cost the compiler twice what two classes do, for the same matches.)
_END = r"(?![A-Za-z0-9]|[\u00c0-\u024f]|[./][A-Za-z0-9])"
#: (the look-behind keeps a roman id from matching empty: "Part 4, Chapter 1" read "Part 4," before)
_ROMAN_UP = r"(?=[IVXLC])(?:C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})(?<=[IVXLC])"
_ROMAN_LOW = r"(?=[ivxlc])(?:c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})(?<=[ivxlc])"
#: Numbers spelled out as a label's id ("Chapter Three"), in value order; their value by word.
_WORDS = ("One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Eleven", "Twelve",
          "Thirteen", "Fourteen", "Fifteen", "Sixteen", "Seventeen", "Eighteen", "Nineteen", "Twenty")  # fmt: skip
WORD_VALUE = {w.lower(): str(i) for i, w in enumerate(_WORDS, 1)}
#: longest first, so "Seventeen" is not read "Seven"
NUMBER_WORDS = sorted(_WORDS, key=len, reverse=True)
PAREN = r"(?:\((?:[a-z]{1,4}|[0-9]{1,3}|[A-Z]{1,2})\))"
_SPACED_TAG = r"(?:[ \u00a0](?=\((?:[a-z]{1,2}|[ivxl]{1,5}|[0-9]{1,3})\)))"

#: Numbering forms: name -> regex of one id (longer forms first inside each kind).
FORMS: dict[str, str] = {
    # "2-1", "7-27", "D-1": an id numbered within a chapter or an appendix (one id, not a range)
    "chapter_hyphen": r"(?:[0-9]{1,3}|[A-Z])[\-\u2013][0-9]{1,3}[a-z]?" + _END,
    # "1-A": a number then a capital after a dash (Schedule 1-A of the 2025 Form 1040: "Additional
    # deductions from Schedule 1-A, line 38"); never a range, whose ends are both numbers
    "number_letter": r"[0-9]{1,3}[\-\u2013][A-Z]" + _END,
    # "3", "3.2.1", "4.02", "4a"
    "decimal": r"[0-9]{1,3}(?:\.[0-9]{1,3})*[a-z]?" + _END,
    # "1041" (a statistical abstract's tables run past 999; a year is never a table's number)
    "number4": r"(?!(?:1[89]|20)[0-9]{2})[0-9]{4}" + _END,
    # "4.02(c)", "25.1309(b)", "8(1)", "1308.11", "552a(b)(1)", "409A", "105.12A(B)(1)" (a capital
    # letter closing the number is part of it: a contract's "Section 2A", a statute's "§ 105.12A")
    # "Section 6.4 (d)": one space before the first tag, a lower-case letter pair, a roman numeral or a
    # number only ("Article 6 (1)"); a capital pair there is a word ("Regulation 2 (EU)")
    "decimal_paren": r"[0-9]{1,5}(?:\.[0-9]{1,4})*(?:[a-z]|[A-Z](?![a-z]))?"
    + "(?:"
    + _SPACED_TAG
    + "?"
    + PAREN
    + ")*"
    + _END,
    # "2.1(a)", "4(b)(ii)": an attachment named after the provision it lists for ("Schedule 2.1(a)"
    # lists the assets of Section 2.1(a)); the tags are part of its name, not its paragraphs
    "decimal_tagged": r"[0-9]{1,3}(?:\.[0-9]{1,3})*" + PAREN + "+" + _END,
    # "10b-5", "14a-8(i)(7)", "15c3-3": a rule numbered within its section (one id, not the range 10b to 5)
    "rule_hyphen": r"[0-9]{1,3}[a-z]{1,2}[0-9]{0,2}-[0-9]{1,3}" + PAREN + "*" + _END,
    # "5.F", "3.A" (contract numbering: a number then a letter)
    "num_letter": r"[0-9]{1,3}(?:\.[0-9]{1,3})*\.[A-Z]\b(?!\.?[A-Za-z0-9])",
    # "3.1.2" (a requirement or a bracketed section: at least one dot, or a plain number)
    "decimal_multi": r"[0-9]{1,3}(?:\.[0-9]{1,3})*" + _END,
    # "A.1", "C.2", "B-2"
    "letter_decimal": r"[A-Z](?:[.\-\u2013][0-9]{1,3})+" + _END,
    # "7", "1A", "9B" (a filing's items: a capital letter may follow the number)
    "item": r"[0-9]{1,2}[A-Z]?(?![\-\u2013][0-9])" + _END,  # not "22-10-01B" (a list's own code)
    # "Three", "THREE": a number spelled out ("Chapter Three", "Part Two", "Article Five"); capitalized,
    # as a label's number is printed ("in chapter one" is prose)
    "word": r"\b(?:" + "|".join(f"{w}|{w.upper()}" for w in NUMBER_WORDS) + r")\b(?![\-\u2013][A-Za-z])",
    # "V-A", "II.B", "II.B.3", "IV.A.1": a lettered subsection of a roman part (IEEE's "Section
    # IV-A", a program's "Part II-B"); never a roman range "I-V", "II-X" (a roman letter after a dash)
    "roman_letter": r"\b" + _ROMAN_UP + r"(?:\.[A-Z]|[\-\u2013](?![IVX]\b)[A-Z])(?:\.[0-9]{1,3})*" + _END,
    "roman": r"\b" + _ROMAN_UP + r"\b(?![\u2019'][a-z]|\.[A-Za-z0-9])",
    "letter": r"\b[A-Z](?![A-Za-z0-9']|\u2019|\.[A-Za-z0-9])",
    # "SE", "EIC", "LEP": a tax schedule's letters (read only after a label in title case: after
    # "SCHEDULE" capitals are the heading's words)
    "caps_id": r"\b[A-Z]{2,3}\b(?![\-\u2013'\u2019.]?[A-Za-z0-9])",
    # "(a)", "(q)(1)", "(a)(1)(i)(A)"
    "paren": PAREN + "+" + _END,
    # "(1)", "1", "(3.2)", "2a"
    "equation": r"\(?[0-9]{1,3}(?:\.[0-9]{1,2})?[a-z]?\)?(?![0-9])",
    # "31", "iv", "A-3", "2-15" (a printed page label)
    "page": r"(?:[A-Z][\-\u2013][0-9]{1,3}|[0-9]{1,4}(?:[\-\u2013][0-9]{1,4})?|\b"
    + _ROMAN_LOW
    + r"\b)"
    + _END,
}

#: Between two ids of a list or range.
LIST_WORDS = r"and|or|and/or|et|ou|und|oder|y|e|o|&"
RANGE_WORDS = r"to|through|thru|until|\u00e0|au|bis|at\u00e9|hasta|al"
SEP = (
    r"(?:\s*,\s*(?:(?:" + LIST_WORDS + r")\s+)?|\s+(?:" + LIST_WORDS + "|" + RANGE_WORDS + r")\s+"
    r"|\s*[\u2013\u2014]\s*|\s?-\s?)"
)
_RANGE_GAP = re.compile(r"^\s*(?:[\-\u2013\u2014]|(?:" + RANGE_WORDS + r"))\s*$", re.I)


def id_regex(forms: tuple[str, ...]) -> str:
    """One id in any of ``forms``, in their order. Neighbouring forms that end alike share one
    :data:`_END` ("(?:A|B)END" tries A then B with the same end test as "(?:A END|B END)", and
    compiles one lookahead instead of two)."""
    groups: list[list[str]] = []
    for f in forms:
        rx = FORMS[f]
        ends = rx.endswith(_END)
        body = rx[: -len(_END)] if ends else rx
        if ends and groups and groups[-1][0] == _END:
            groups[-1].append(body)
        else:
            groups.append([_END if ends else "", body])
    alts = [
        ("(?:" + "|".join(g[1:]) + ")" + g[0]) if g[0] and len(g) > 2 else "".join(g[1:]) + g[0]
        for g in groups
    ]
    return "(?:" + "|".join(alts) + ")"


def roman_value(s: str) -> int | None:
    """A roman id's value (i v x l c only: "D" and "M" are letters in a reference)."""
    return _roman_any(s, "ivxlc")


_CAPS_LETTERS = re.compile(r"[A-Z]{2,3}")


def caps_letters(s: str) -> bool:
    """An id of two or three capitals that is not a roman numeral: a schedule's letters ("SE",
    "EIC"), never "II" or "XIV" (the ``caps_id`` numbering form's ids)."""
    return bool(_CAPS_LETTERS.fullmatch(s)) and not roman_value(s.lower())


def shape(tok: str) -> str:
    """The shape class of an id: numeric, letter, roman, paren."""
    t = tok.strip("[]")
    if t.startswith("("):
        return "paren"
    if t[:1].isdigit():
        return "numeric"
    if re.fullmatch(r"[IVXLC]{2,}|[ivxlc]+", t):
        return "roman"
    return "letter"


def _range(a: str, b: str, max_span: int = 30) -> list[str] | None:
    """The ids from ``a`` to ``b`` when the numbering allows it, else None."""
    pa, pb = re.fullmatch(r"\((.+)\)", a), re.fullmatch(r"\((.+)\)", b)
    if pa and pb:
        inner = _range(pa.group(1), pb.group(1), max_span)
        return [f"({x})" for x in inner] if inner else None
    ma = re.fullmatch(r"(.*?)([0-9]+)", a)
    mb = re.fullmatch(r"(.*?)([0-9]+)", b)
    if ma and mb and ma.group(1) == mb.group(1) and (not ma.group(1) or ma.group(1)[-1] in ".-"):
        lo, hi = int(ma.group(2)), int(mb.group(2))
        if 0 < hi - lo <= max_span:
            width = len(ma.group(2)) if ma.group(2).startswith("0") else 0
            return [f"{ma.group(1)}{str(i).zfill(width)}" for i in range(lo, hi + 1)]
        return None
    ra, rb = roman_value(a), roman_value(b)
    romanish = ra and rb and (len(a) > 1 or len(b) > 1 or (a + b).upper() in ("IV", "IX", "VX", "IX", "XV"))
    if romanish and 0 < rb - ra <= max_span and a.isupper() == b.isupper():
        return [to_roman(i, a.isupper()) for i in range(ra, rb + 1)]
    if len(a) == len(b) == 1 and a.isalpha() and b.isalpha() and a.isupper() == b.isupper() and a < b:
        return [chr(c) for c in range(ord(a), ord(b) + 1)]
    return None


def split_targets(text: str, id_rx: re.Pattern, plural: bool) -> tuple[list[str], str | None, bool]:
    """(ids, multi, expanded) of a target list: ``multi`` is None, 'list' or 'range'; ``expanded``
    is False when a range could not be expanded (its two ends are returned)."""
    toks = [(m.group(0), m.start(), m.end()) for m in id_rx.finditer(text)]
    if not toks:
        return [], None, True
    ids: list[str] = []
    multi, expanded = None, True
    prev_end = None
    for k, (tok, s, e) in enumerate(toks):
        gap = text[prev_end:s] if prev_end is not None else ""
        if k and _RANGE_GAP.match(gap) and ids:
            got = _range(ids[-1], tok)
            multi = "range" if multi != "list" else multi
            if got:
                ids.extend(got[1:])
            else:
                expanded = False
                ids.append(tok)
        else:
            if k:
                multi = multi or "list"
            ids.append(tok)
        prev_end = e
    pairs = [i for i in ids if re.fullmatch(r"[0-9]+[\-\u2013][0-9]+", i)]
    chapter_ids = len({re.split(r"[\-\u2013]", i)[0] for i in pairs}) < len(pairs)  # "7-27 and 7-28"
    if plural and pairs and not chapter_ids:
        out = []
        for i in ids:
            got = _range(*re.split(r"[\-\u2013]", i), 20) if i in pairs else None
            out.extend(got or [i])
        if len(out) > len(ids):
            return out, ("range" if len(toks) == 1 else "list"), True
    if len(toks) == 1 and multi is None:
        return ids, None, True
    return ids, multi, expanded


#: A parenthesized id continuing a list after a full one: "Section 3(a) and (b)", "5.1(a), (b) or (c)",
#: "6(1)(a) through (c)" (the sub-paragraphs of the same unit).
#: A dash between two such ids is a range, its end repeating the levels it shares with the start:
#: "\u00a7 164.502(a)-(b)", "\u00a7\u00a72.12(a)\u2013(e)", "\u00a7 164.508(a)(2)-(a)(4)" (45 CFR 164.520).
_MORE_PAREN = re.compile(
    r"(?:[ \t\u00a0]*,[ \t\u00a0]*(?:(?:and|or)[ \t\u00a0]+)?|[ \t\u00a0]+(?P<word>and/or|and|or|through|to)[ \t\u00a0]+"
    r"|[ \t\u00a0]?(?P<dash>[\-\u2013])[ \t\u00a0]?(?P<chain>(?:\([A-Za-z0-9]{1,4}\))*))"
    r"\((?P<tag>[a-z]{1,4}|[0-9]{1,3}|[A-Z]{1,2})\)(?![\w(])"
)
#: A sentence's own enumeration item: a bare marker after a space or the text's start and before a
#: word ("shall (a) comply"), not glued to an id as "4(a)" is.
_OWN_ITEM = r"(?:^|(?<=[\s,;:]))\({}\)[ \t\u00a0]+[a-z]"


def _before(tag: str) -> list[str]:
    """The markers an enumeration puts before ``tag``: the letter or number before it, and the
    roman one before it when ``tag`` reads as a roman numeral ("ii" after "i", "v" after "iv")."""
    out = (
        [str(int(tag) - 1)]
        if tag.isdigit()
        else [chr(ord(tag) - 1)]
        if len(tag) == 1 and tag not in "aA"
        else []
    )
    value = roman_value(tag.lower())
    if value and value > 1:
        out.append(to_roman(value - 1).lower() if tag.islower() else to_roman(value - 1).upper())
    return out


def _sentence_item(text: str, pos: int, tag: str) -> bool:
    """Whether ``(tag)`` is the next item of the sentence's own enumeration: the marker before it
    stands alone in the text before ``pos``, where the reference opens ("The Contractor shall (a)
    comply with Section 4(a), and (b) pay": (b) follows the sentence's (a), not Section 4's).
    Without such a marker the tag continues the reference, verb or not ("Section 3(a) and (b)
    apply", "§ 164.514(a) and (b) is considered")."""
    head = text[:pos]
    return any(re.search(_OWN_ITEM.format(re.escape(p)), head) for p in _before(tag))


def _tag_class(tag: str) -> str:
    return "numeric" if tag.isdigit() else "upper" if tag.isupper() else "lower"


def more_parens(
    text: str, pos: int, last: str, plural: bool = False, start: int | None = None
) -> tuple[list[str], int]:
    """(ids, end) of the bare parenthesized ids that continue ``last`` ("3(a)") from ``pos``:
    "and (b)" gives "3(b)"; "through (d)" the run "3(b)", "3(c)", "3(d)". A tag of another
    shape ("(a) and (2)") ends the list, and so does, after a singular label, the next item of the
    sentence's own enumeration before the reference's ``start`` (:func:`_sentence_item`)."""
    head = re.fullmatch(r"(.*)\(([A-Za-z0-9]{1,4})\)", last or "")
    out: list[str] = []
    while head is not None:
        m = _MORE_PAREN.match(text, pos)
        if m is None or _tag_class(m.group("tag")) != _tag_class(head.group(2)):
            break
        if m.group("dash") and not head.group(1).endswith(m.group("chain")):
            break  # "(a)(2)-(b)(4)": a range across levels, not read
        if not plural and _sentence_item(text, pos if start is None else start, m.group("tag")):
            break
        tag = m.group("tag")
        ranged = m.group("word") in ("through", "to") or m.group("dash")
        run = _range(head.group(2), tag) if ranged else None
        if m.group("dash") and (run is None or len(run) > 20):
            break  # "5(c)-(a)", "3(a)-(ii)", "2(a)-(z)": no range this numbering reads, the tag not read
        out.extend(f"{head.group(1)}({t})" for t in (run[1:] if run else [tag]))
        pos, head = m.end(), re.fullmatch(r"(.*)\(([A-Za-z0-9]{1,4})\)", f"{head.group(1)}({tag})")
    return out, pos
