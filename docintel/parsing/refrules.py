"""The compiled rules: one regex per reference kind built from the kind table, plus the
rules that are not "label + number" (bracketed ids, bibliography keys, external publication
ids, relative phrasings, sections named by title).

Every rule is a :class:`RefPattern`: a name, the coarse ``ref_type``, a regex with named
groups (``label``, ``targets``, ``sub``, ``pre``, ``dir``) and a description.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from docintel.parsing.refkinds import CONTROL_FAMILIES, KINDS, SELECTOR_WORDS, STATEMENT_KINDS, Kind
from docintel.parsing.refnumbering import PAREN, SEP, id_regex


class LazyRegex:
    """A regex compiled on first use: the grammar's rules cost nothing at import, and a process
    compiles only the rules the prefilter lets it try (``.pattern`` needs no compilation)."""

    __slots__ = ("_src", "flags", "_rx")

    def __init__(self, pattern: str | Callable[[], str], flags: int = 0) -> None:
        self._src = pattern  # the source, or a function that builds it (a kind's rule)
        self.flags = flags
        self._rx: re.Pattern | None = None

    @property
    def pattern(self) -> str:
        if callable(self._src):
            self._src = self._src()
        return self._src

    @property
    def compiled(self) -> re.Pattern:
        if self._rx is None:
            self._rx = re.compile(self.pattern, self.flags)
        return self._rx

    def __getattr__(self, name: str):
        return getattr(self.compiled, name)

    def __repr__(self) -> str:
        return f"LazyRegex({self.pattern[:40]!r}...)"


@dataclass(frozen=True)
class RefPattern:
    """One rule of the reference grammar."""

    name: str
    ref_type: str
    regex: LazyRegex
    description: str
    kind: str = ""
    #: "absolute" (label + id), "external", "bib", "relative", "vague", "named"
    family: str = "absolute"


_SP = r"[\s\u00a0]"


def label_regex(kind: Kind) -> str:
    """The label of ``kind``: full words, abbreviations (period optional or required), symbols."""
    alts = []
    words = "|".join(w for _, w in kind.words)
    alts.append(r"(?i:\b(?:" + words + r"))(?=" + _SP + r"|\[)")
    if kind.abbrevs:
        alts.append(r"(?i:\b(?:" + "|".join(kind.abbrevs) + r"))(?:\.|(?=" + _SP + r"))")
    if kind.dotted:
        alts.append(r"(?<![\w.])(?i:(?:" + "|".join(kind.dotted) + r"))\.")
    alts.extend(re.escape(s) for s in kind.symbols)
    return "(?:" + "|".join(alts) + ")"


_SEL_ID = r"(?:\([A-Za-z0-9]{1,4}\)|[0-9]{1,3}[a-z]?\b|\b[ivx]{1,5}\b|\b[A-Z]\b)"
#: "row (E)", ", item ii", " rows (A) and (B)", " column 3"
SELECTOR = (
    r"(?P<sub>,?" + _SP + r"+(?i:" + SELECTOR_WORDS + r")" + _SP + r"+" + _SEL_ID
    + r"(?:" + SEP + _SEL_ID + r")*)"
)  # fmt: skip
#: "the bottom line of Table 3"
PRESELECTOR = (
    r"(?:(?i:the" + _SP + r"+)(?P<pre>(?i:(?:bottom|top|last|first|final|middle)" + _SP
    + r"+(?:line|row|rows|column|part|panel)))" + _SP + r"+(?i:of|in)" + _SP + r"+)"
)  # fmt: skip
#: "Figure 10 to paragraph (i)" (a figure attached to a paragraph of a rule)
TO_PARAGRAPH = r"(?:" + _SP + r"+to" + _SP + r"+(?P<sub2>(?i:paragraph)" + _SP + r"+" + PAREN + r"+))"


def kind_rule(kind: Kind) -> RefPattern:
    """The rule of one kind (its regex built and compiled on first use)."""
    return RefPattern(
        kind.name, kind.ref_type, LazyRegex(partial(_kind_source, kind)), kind.example, kind.name
    )


def _kind_source(kind: Kind) -> str:
    label = label_regex(kind)
    ident = id_regex(kind.numbering)
    lead = r"(?<![\w\u00a7\u00b6])"
    body = (
        r"(?P<label>" + label + r")" + _SP + r"*"
        r"(?P<targets>" + ident + r"(?:" + SEP + r"(?:" + label + _SP + r"*)?" + ident + r")*)"
    )
    tail = ""
    if kind.selectors:
        tail = TO_PARAGRAPH + "?" + SELECTOR + "?"
        lead += PRESELECTOR + "?"
    return lead + body + tail


def _rule(name, ref_type, rx, desc, kind="", family="absolute") -> RefPattern:
    return RefPattern(name, ref_type, LazyRegex(rx), desc, kind or name, family)


#: Capitals that are words, never a schedule's letters ("Schedules A, B, AND C", "the Schedule OR
#: the Exhibit", "Statement on Schedule TO" is an SEC form, "Schedule TBD"): :func:`refpatterns`
#: drops a ``caps_id`` target spelled so, and the unnumbered "the Schedule" reading stays before them.
CAPS_WORDS = (
    "AND|OR|NOR|BUT|TO|OF|THE|AN|AS|AT|BY|IN|ON|FOR|IF|IS|BE|NO|NOT|SO|UP|ALL|ANY|PER|VIA|ARE|WAS|HAS"
    "|ITS|TBD|TBA"
)
_ALL_WORDS = "|".join(
    w for k in KINDS if k.name != "page" and k.name not in STATEMENT_KINDS for _, w in k.words
)
_DIRS = r"previous|preceding|prior|foregoing|above|aforementioned|last|following|next|subsequent|below"
_SELF = r"this|these|the\s+present|cette|ce|cet|la\s+pr[ée]sente|le\s+pr[ée]sent|dieser|dieses|diesem|este|esta|presente"

#: External publication ids (another document: named, never fetched).
EXTERNAL_RULES: list[RefPattern] = [
    _rule("cfr", "external",
          r"\b(?P<targets>[0-9]{1,2}\s+C\.?F\.?R\.?,?\s+(?:(?i:ch\.|chapter)\s*[IVXLC]+\b|(?:(?:[Pp]arts?|\u00a7{1,2}|(?i:sec\.|section))\s*)?[0-9]+(?:\.[0-9]+)?(?:\([a-z0-9]+\))*))",
          "14 CFR 25.1707, 45 CFR part 164, 45 C.F.R. Sec. 164.501, 21 CFR Ch. II (a chapter of a title)"),
    _rule("usc", "external",
          r"\b(?P<targets>[0-9]{1,2}\s+U\.\s?S\.\s?C\.?,?\s+(?:(?:(?i:sec\.|section|chapter|ch\.)|\u00a7{1,2})\s*)?[0-9]+[a-z]{0,2}(?:[\u2013\-][0-9]+)?(?:\([a-z0-9]+\))*)",
          "44 U.S.C. 3542, 44 U.S.C., Sec. 3542, 5 U.S.C. \u00a7 552a"),
    _rule("fr", "external", r"\b(?P<targets>[0-9]{1,3}\s+(?:FR|Fed\.\s?Reg\.)\s+[0-9]{3,6})\b",
          "83 FR 63561, 66 Fed. Reg. 753 (Federal Register)"),
    _rule("stat", "external", r"\b(?P<targets>[0-9]{1,3}\s+Stat\.\s+[0-9]{2,5})\b", "94 Stat. 3305"),
    _rule("nist_sp", "external",
          r"\b(?P<targets>(?:NIST\s+)?(?:SP|Special\s+Publication)\s*[0-9]{3}-[0-9]{1,3}(?:-[0-9]{1,2})?[A-Z]?"
          r"(?:\s*(?:Rev(?:ision)?\.?|r)\s*[0-9]+)?(?:,?\s+(?:Vol(?:ume)?\.?|Part)\s+[0-9]+)?)",
          "SP 800-161, NIST SP 800-53 Rev. 5, SP 800-57 Part 1"),
    _rule("nistir", "external", r"\b(?P<targets>(?:NISTIR|NIST\s+IR|NIST\s+Interagency\s+Report)\s*[0-9]{4}(?:\s*(?:Rev\.?\s*)?r?[0-9])?)\b",
          "NISTIR 7298 Rev. 2, NIST IR 8011"),
    _rule("fips", "external", r"\b(?P<targets>FIPS(?:\s+(?:PUB|Publication))?\s*[0-9]{2,3}(?:-[0-9]{1,2})?)",
          "FIPS 180-4, FIPS Publication 199"),
    _rule("iso", "external",
          r"\b(?P<targets>(?:ISO/IEC/IEEE|ISO/IEC|ISO|IEC|IEEE(?:\s+Std\.?)?|ANSI(?:/[A-Z]+)?|EN|BS|DIN)\s+[0-9]{3,5}(?:[.\-][0-9]+)*(?::[0-9]{4})?)",
          "ISO 27001, ISO/IEC 27001:2013, IEEE Std 802.11, IEC 62443-3-3"),
    _rule("rfc", "external", r"\b(?P<targets>RFC\s*[0-9]{3,5})\b", "RFC 2119"),
    _rule("faa_ac", "external",
          r"\b(?P<targets>(?:AC|AD|TSO|SFAR)\s+[0-9]{2,4}(?:\.[0-9]{1,4})?[\u2013\-][0-9]{1,3}(?:[\u2013\-][0-9]{1,3})?[A-Z]?)\b",
          "AC 25-7D, AC 25.1701-1, AD 2018-23-51"),
    _rule("public_law", "external", r"\b(?P<targets>(?:Public\s+Law|Pub\.\s*L\.)\s+(?:No\.\s*)?[0-9]{2,3}[\u2013\-][0-9]{1,4})",
          "Public Law 107-347, Pub. L. 104-191, Pub. L. 115\u201397 (a printed en dash)"),
    _rule("omb", "external",
          r"\b(?P<targets>(?:OMB\s+)?Circular\s+(?:No\.\s*)?A-[0-9]{2,3}|OMB\s+(?:Memorandum\s+)?M-[0-9]{2}-[0-9]{2})",
          "OMB Circular A-130, OMB Memorandum M-17-12"),
    _rule("exec_order", "external", r"\b(?P<targets>(?:Executive\s+Order|E\.O\.)\s+(?:No\.\s*)?[0-9]{5})\b", "Executive Order 13636"),
    _rule("hspd", "external", r"\b(?P<targets>(?:HSPD|PPD|PDD)-[0-9]{1,2})\b", "HSPD-12, PPD-21"),
    _rule("eu_act", "external",
          r"\b(?P<targets>(?:Directive|Regulation|Decision|Framework\s+Decision)\s+(?:\((?:EU|EC|EEC|Euratom)\)\s+)?(?:No\s+)?[0-9]{1,4}/[0-9]{1,4}(?:/(?:EU|EC|EEC|JHA|CFSP))?)",
          "Directive 95/46/EC, Regulation (EU) 2016/679, Regulation (EC) No 45/2001"),
    _rule("form", "external",
          r"\b(?P<targets>[Ff]orms?(?:\(s\))?\s+(?:[0-9]{3,5}[A-Z]{0,3}(?:-[A-Z0-9]{1,4})*|[A-Z]{1,2}-[0-9]{1,2}[A-Z]{0,3}"
          r"|[0-9]{1,2}-[A-Z]{1,2}))(?![\w\-])",
          "Form 8949, Form 1099-DIV, Form W-2, Form 10-K, Form I-9: another form (internal only where the"
          " document prints it: the resolver checks)"),
    _rule("publication", "external", r"(?<!Standards\s)(?<!Standard\s)(?<!\)\s)\b(?P<targets>(?:Pub\.|Publication)\s+[0-9]{1,4}[A-Z]?)(?![\w\-]|\.[0-9])",
          "Pub. 550, Publication 17 (a numbered publication of the issuer, not this document)"),
    _rule("court_rules", "external",
          r"\b(?P<targets>Fed\.\s?R\.\s?(?:Civ|Crim|App|Evid|Bankr)\.\s?(?:P\.\s?)?[0-9]{1,4}(?:\([a-z0-9]{1,4}\))*"
          r"|FRCP\s+[0-9]{1,3}(?:\([a-z0-9]{1,4}\))*)",
          "Fed. R. Civ. P. 12(b)(6), Fed. R. Evid. 702, FRCP 56: the federal rules, not a rule of this document"),
    _rule("bracket_report", "external",
          r"\[(?!(?i:page|section|table|figure|chapter|appendix|note|step|item|line)\b)"
          r"(?P<targets>[A-Z][A-Za-z]{1,12}(?:\s+[A-Z][A-Za-z]{0,12})?\s*[0-9]{2,5}(?:[\-.][0-9A-Za-z]{1,5})*)\]",
          "[SP 800-90], [FIPS 180-3]: a bracketed report id"),
]  # fmt: skip

#: Bracketed ids: a citation [12] versus a numbered requirement [3.1.2], decided by shape.
BRACKET_RULES: list[RefPattern] = [
    _rule("bracket_requirement", "section",
          r"\[(?P<targets>[0-9]{1,3}(?:\.[0-9]{1,3})+(?:\s*,\s*[0-9]{1,3}(?:\.[0-9]{1,3})+)*)\]" + SELECTOR + "?",
          "[3.1.2], as required in [5.2.3], item ii: a bracketed decimal is a numbered requirement/section",
          kind="requirement"),
    _rule("bib_numeric", "bib", r"\[(?P<targets>[0-9]{1,4}(?:\s*[,\u2013\-]\s*[0-9]{1,4})*)\]",
          "[18], [3, 7], [2-5]", kind="bibliography"),
    # a standard's keys: "[XMLSig]", "[Schema2]" (a numbered part), "[W3C.REC-html401]" (IETF style);
    # a run of digits is one chunk (split every way, "[Abc" + 40 digits took 2.5 s to fail)
    # ("[Step3]", "[Phase2]" are steps; "[Id.at-5]" no key: a dotted key opens with capitals or a digit)
    _rule("bib_key", "bib", r"\[(?!(?i:step|stage|phase)\s?[0-9])(?P<targets>[A-Z][A-Za-z]+(?:\s?(?:et al\.|\+|[0-9]{2,8}(?![0-9])[a-z]?))*|[A-Z][A-Za-z]+[0-9][a-z]?"
          r"|(?:[A-Z][A-Z0-9]+|[A-Z][A-Za-z]*[0-9][A-Za-z0-9]*)\.[A-Za-z][A-Za-z0-9.\-]{2,40})\]",
          "[Randomizing], [Smith2019]", kind="bibliography"),
]  # fmt: skip

#: A provision path written without its label ("164.308(a)(1)" in a rule's matrix, "under 164.502(a)"):
#: a decimal section id and one or more parenthesized paragraphs, no label before it.
PATH_RULES: list[RefPattern] = [
    _rule("provision_path", "section",
          r"(?<![\w.,/\-\u00a7\u00b6])(?<!\u00a7\s)(?P<targets>[1-9][0-9]{0,2}\.[0-9]{2,4}\([a-z]{1,2}\)"
          r"(?:\((?:[a-z]{1,4}|[0-9]{1,2}|[A-Z])\))*)(?![\w(%])",
          "164.308(a)(1), 2.05(b): a provision path without a label (the section, its lettered paragraph"
          " first: never '1.5(2)' or '0.25(a)', arithmetic)",
          kind="section"),
]  # fmt: skip

#: The acronym of a body whose rules a document cites ("FINRA Rule 2111", "MSRB Rule G-17"), not a
#: word of an upper-case heading ("LEGISLATION, EXECUTIVE ORDERS, AND REGULATIONS").
BODY_ACRONYM = r"(?!(?:AND|OR|NOR|THE|OF|FOR|TO|IN|ON|BY|AT|AS|IS|NOT|ALL|ANY|NEW)\b)[A-Z]{2,6}"

#: One control id of a security control catalogue: a family's two letters, its number, its
#: enhancements ("AC-2", "AC-2(3)", "AC-2 (1) (2)", "SI-3(2)").
CONTROL_ID = (
    r"(?:" + "|".join(CONTROL_FAMILIES) + r")-[\s\u00a0]?[0-9]{1,2}(?![0-9]|\.[0-9])"
    r"(?:[\s\u00a0]?\([0-9]{1,2}\))*"
)
#: A control id, or a list of them ("Related controls: AC-3, AC-18, PM-9."): the label is the
#: id's own family prefix, so the rule has no label word; ``refprecision`` keeps it only where
#: the text says it is a control (see ``drop``).
CONTROL_RULES: list[RefPattern] = [
    _rule("control", "section",
          r"(?<![A-Za-z0-9.\-/])(?P<targets>" + CONTROL_ID + r"(?:" + SEP + CONTROL_ID + r")*)(?![\w\-]|\.[0-9])",
          "AC-2, AC-2(3), Related controls: AC-3, PM-9 (a control of a catalogue: the document's own where it"
          " prints the control's heading, else the catalogue's)", kind="control"),
]  # fmt: skip

_LONE_CONTROL = LazyRegex(r"[\s\u00a0]*(?P<id>" + CONTROL_ID + r")[\s\u00a0.,;]*")


#: A line opening with a control id before its title ("AC-3 ACCESS ENFORCEMENT", "AC-3 Access
#: Enforcement"): the shape of a catalogue's control heading, read only by the labelled index (whose
#: caller keeps it only on a heading or bold line); the grammar does not read it as a reference.
_CONTROL_HEADING = LazyRegex(r"[\s\u00a0]*(?P<id>" + CONTROL_ID + r")[ \t\u00a0]+[A-Z][A-Za-z]")


def control_heading(text: str) -> str | None:
    """The control id a line opens with before a capitalised title, else None."""
    m = _CONTROL_HEADING.match(text or "")
    if m is None or "(" in m.group("id"):  # "AC-2 (1) AUTOMATED ...": an enhancement, as before
        return None
    return re.sub(r"[\s\u00a0]", "", m.group("id"))


def lone_control(text: str) -> str | None:
    """The control id a text is made of alone ("AC-3": a catalogue's heading line, or a reference's
    own text read again), which the grammar leaves unread without a word saying it is a control
    ("PM-10" alone may be a measure): only callers that know the text is a heading or a reference ask."""
    m = _LONE_CONTROL.fullmatch(text or "")
    return re.sub(r"[\s\u00a0]", "", m.group("id")) if m else None


#: Pointers without a number: relative to where they are written, or named by title.
RELATIVE_RULES: list[RefPattern] = [
    _rule("relative_direction", "section",
          r"(?i:\b(?:(?:the|that|these|those)\s+|(?<=\bsee\s))(?P<dir>" + _DIRS + r")\s+(?P<label>" + _ALL_WORDS + r"))\b(?![\s\u00a0]*[0-9(])",
          "the previous section, the preceding paragraph, the following table, (see next section)",
          family="relative"),
    _rule("relative_postfix", "section",
          r"(?i:\b(?:the|this)\s+(?P<label>" + _ALL_WORDS + r")\s+(?P<dir>above|below))\b(?![\s\u00a0]*[0-9])",
          "the table below, the section above", family="relative"),
    _rule("relative_self", "section",
          r"(?i:\b(?P<dir>" + _SELF + r")\s+(?P<label>" + _ALL_WORDS + r"))\b(?![\s\u00a0]*[0-9(\[])",
          "this Section, this paragraph, la présente section: the unit the reference is written in",
          family="relative"),
    _rule("vague", "section",
          r"(?i:\b(?:see|cf\.|as\s+(?:noted|described|discussed|mentioned|stated|shown|explained|defined|"
          r"indicated|listed|specified|set\s+(?:out|forth)|outlined|illustrated|detailed))\s+(?P<dir>above|below|supra|infra)\b"
          r"|\((?:see\s+)?(?P<dir2>above|below|supra|infra)\)|\b(?P<dir3>ci-dessus|ci-dessous)\b"
          r"|\b(?:siehe|vgl\.)\s+(?P<dir4>oben|unten)\b)",
          "see above, as described below, (above), ci-dessus, siehe oben: no kind and no id",
          family="vague"),
    _rule("named_section", "section",
          r"\b(?i:see|in)\s+(?i:the\s+)?(?P<targets>(?:[A-Z][\w\u2019'-]*\s+){1,5})(?i:section)\b",
          "See Flightcrew Training section: a section named, not numbered (resolved by title)",
          family="named"),
    _rule("named_worksheet", "section",
          r"(?<![\w\u2019'\-])(?:The\s+|the\s+)?(?P<targets>(?:(?!Worksheet\b|The\b)"
          r"[A-Z][\w\u2019'\-]*\s+(?:(?:and|of|for|to|on|or|\([A-Z0-9]{2,6}\))\s+){0,2}){2,9}Worksheet)\b"
          r"(?![\s\u00a0]*(?:[A-Z0-9][\w.\-]{0,4}\b(?![\s\u00a0]*[a-z])|\([A-Za-z0-9]))",
          "the Qualified Dividends and Capital Gain Tax Worksheet, the Credit Limit Worksheet: a worksheet named"
          " by its title (tax instructions), resolved by title; 'Worksheet A' is a numbered one",
          kind="worksheet", family="named"),
    _rule("appendix_unnumbered", "appendix",
          r"\b(?i:the|this|see|in)\s+(?P<label>[Aa]ppendix|Annex|Schedule)\b"
          r"(?![\s\u00a0]+(?:(?!(?:" + CAPS_WORDS + r")\b)[A-Z]{1,3}|[0-9]{1,2}|[IVX]{1,4})\b)",
          "the Appendix / the appendix / the Annex / the Schedule (no id: the unnumbered one; 'the annex"
          " building', 'the schedule of works' are prose)", kind="appendix", family="named"),
]  # fmt: skip

#: "defined in Section 1.5", "has the meaning given in Article 4(1)": a pointer to a definition.
DEFINITION_PREFIX = LazyRegex(
    r"(?i:\b(?:as\s+)?(?:defined|described\s+and\s+defined)\s+(?:in|at|under|by)|has\s+the\s+meaning\s+(?:given|set\s+out|assigned)\s+(?:to\s+it\s+)?in"
    r"|within\s+the\s+meaning\s+of)\s+$"
)
