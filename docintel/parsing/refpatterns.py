"""The in-prose reference patterns, as data, and the matcher that applies them.

Each :class:`RefPattern` names the reference type it produces and a regex with
named groups: ``targets`` (one id or a list such as "3 and 4", "(g) through
(l)", "3, 7"), optional ``sub`` (a sub-selector such as "row (E)") and
optional ``pre`` (a sub-selector written before the target: "the bottom line
of Table 3"). Patterns are tried in order; where matches overlap, the longest
one wins, so "Table 3 row (E)" is one table reference and not also a
paragraph reference.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: An object id: "3", "3.2", "2-1", "4a", "II", "A", "A.1"
_ID = r"(?:[0-9]{1,3}(?:[.\-][0-9]{1,3})*[a-z]?|[IVXLC]{1,6}\b|[A-Z](?:\.[0-9]{1,3})*\b)"
_SEC = r"(?:[0-9]{1,3}(?:\.[0-9]{1,3})*[a-z]?|[A-Z](?:\.[0-9]{1,3})+)"
_LIST_SEP = r"\s*(?:,\s*(?:and\s+|or\s+)?|\s(?:and|or|to|through)\s|\s*[\u2013\-&]\s*)\s*"
_PARA = r"(?:\([a-z0-9]{1,4}\))+"
_ROWSEL = (
    r"(?P<sub>,?\s+(?:rows?|columns?|lines?)\s+(?:\([A-Za-z0-9]{1,4}\)|[0-9]{1,3}|[A-Z]\b)"
    r"(?:" + _LIST_SEP + r"(?:\([A-Za-z0-9]{1,4}\)|[0-9]{1,3}))*)?"
)
_PRESEL = r"(?:(?i:the\s+)(?P<pre>(?i:(?:bottom|top|last|first|final|middle)\s+(?:line|row|rows|column|part|panel)))\s+(?i:of|in)\s+)?"


@dataclass(frozen=True)
class RefPattern:
    """One kind of in-prose reference."""

    name: str
    ref_type: str
    regex: re.Pattern
    description: str
    external_prefix: str = ""  # for external ids: how the normalised name starts


def _p(rx: str) -> re.Pattern:
    return re.compile(rx)


#: The pattern table (order = priority on equal spans).
PATTERNS: list[RefPattern] = [
    RefPattern(
        "table",
        "table",
        _p(
            _PRESEL
            + r"\b(?i:tables?|tab\.)\s*(?P<targets>"
            + _ID
            + r"(?:"
            + _LIST_SEP
            + _ID
            + r")*)"
            + _ROWSEL
        ),
        "Table 3, Tables 1 and 2, Table 3 row (E), the bottom line of Table 3",
    ),
    RefPattern(
        "figure",
        "figure",
        _p(
            _PRESEL + r"\b(?i:figures?|figs?\.)\s*(?P<targets>" + _ID + r"(?:" + _LIST_SEP + _ID + r")*)"
            r"(?:\s+to\s+(?P<sub>paragraph\s+" + _PARA + r"))?"
        ),
        "Figure 2, Fig. 3, figure 10 to paragraph (i)",
    ),
    RefPattern(
        "equation",
        "equation",
        _p(
            r"\b(?i:equations?|eqs?\.|eqn\.?)\s*\(?(?P<targets>[0-9]{1,3}[a-z]?)\)?"
            r"(?:" + _LIST_SEP + r"\(?(?P<t2>[0-9]{1,3}[a-z]?)\)?)?"
        ),
        "Eq. (1), equation (3), Equations 2 and 3",
    ),
    RefPattern(
        "appendix",
        "appendix",
        _p(
            r"\b(?i:appendix|appendices)\s+(?P<targets>(?:[A-Z]|[0-9]{1,2}|[IVX]{1,4})\b(?:\.[0-9]{1,2})*"
            r"(?:" + _LIST_SEP + r"(?:[A-Z]|[0-9]{1,2})\b)*)"
        ),
        "Appendix A, Appendices A and B",
    ),
    RefPattern(
        "appendix_unnumbered",
        "appendix",
        _p(r"\b(?i:the|this|see|in)\s+(?P<kw>[Aa]ppendix)\b(?!\s+(?:[A-Z]|[0-9]{1,2}|[IVX]{1,4})\b)"),
        "the Appendix / the appendix (no id: the unnumbered appendix)",
    ),
    RefPattern(
        "annex",
        "annex",
        _p(
            r"\b(?i:annex(?:es)?)\s+(?P<targets>(?:[A-Z]|[0-9]{1,2})\b(?:"
            + _LIST_SEP
            + r"(?:[A-Z]|[0-9]{1,2})\b)*)"
        ),
        "Annex B",
    ),
    RefPattern(
        "clause",
        "clause",
        _p(r"\b(?i:clauses?)\s+(?P<targets>" + _SEC + r"(?:" + _LIST_SEP + _SEC + r")*)"),
        "Clause 8.6",
    ),
    RefPattern(
        "definition",
        "definition",
        _p(r"\b(?i:(?:as\s+)?defined\s+in\s+(?:sections?|sec\.)\s+)(?P<targets>" + _SEC + r")\b"),
        "the operation defined in Section 1.5: a pointer to a definition (target: the section id)",
    ),
    RefPattern(
        "section_sign",
        "section",
        _p(
            r"\u00a7\u00a7?\s*(?P<targets>[0-9]+\.[0-9]+[a-z]?(?:" + _LIST_SEP + r"[0-9]+\.[0-9]+[a-z]?)*)"
            r"(?P<sub>(?:\([a-z0-9]{1,4}\))+)?"
        ),
        "\u00a7 39.13, \u00a7 39.13(a)",
    ),
    RefPattern(
        "section",
        "section",
        _p(
            r"\b(?i:sections?|sec\.|secs\.|chapters?)\s+(?P<targets>"
            + _SEC
            + r"(?:"
            + _LIST_SEP
            + _SEC
            + r")*)\b"
        ),
        "see Section 4.2, section 3.2, Sections 3 and 4",
    ),
    RefPattern(
        "paragraph",
        "section",
        _p(r"\b(?i:paragraphs?)\s+(?P<targets>" + _PARA + r"(?:" + _LIST_SEP + _PARA + r")*)"),
        "paragraph (q)(1), paragraphs (g) through (l): regulation paragraphs are toc sections '(q)'",
    ),
    RefPattern(
        "cfr",
        "external",
        _p(r"\b(?P<targets>[0-9]{1,2}\s+CFR\s+(?:[Pp]arts?\s+)?[0-9]+(?:\.[0-9]+)?(?:\([a-z0-9]+\))*)"),
        "14 CFR 25.1707",
    ),
    RefPattern(
        "fr",
        "external",
        _p(r"\b(?P<targets>[0-9]{1,3}\s+FR\s+[0-9]{3,6})\b"),
        "83 FR 63561 (Federal Register)",
    ),
    RefPattern(
        "nist_sp",
        "external",
        _p(
            r"\b(?P<targets>(?:NIST\s+)?(?:SP|Special\s+Publication)\s*[0-9]{3}-[0-9]{1,3}[A-Z]?(?:\s*Rev\.?\s*[0-9]+)?)"
        ),
        "SP 800-161, NIST SP 800-53 Rev. 5",
    ),
    RefPattern(
        "fips", "external", _p(r"\b(?P<targets>FIPS(?:\s+PUB)?\s*[0-9]{2,3}(?:-[0-9]{1,2})?)"), "FIPS 180-4"
    ),
    RefPattern(
        "iso",
        "external",
        _p(
            r"\b(?P<targets>(?:ISO|IEC|ISO/IEC|IEEE(?:\s+Std)?|ANSI|EN)\s+[0-9]{3,5}(?:[.\-][0-9]+)*(?::[0-9]{4})?)"
        ),
        "ISO 27001, IEEE Std 802.11",
    ),
    RefPattern("rfc", "external", _p(r"\b(?P<targets>RFC\s*[0-9]{3,5})\b"), "RFC 2119"),
    RefPattern(
        "faa_ac",
        "external",
        _p(
            r"\b(?P<targets>(?:AC|AD|TSO|SFAR)\s+[0-9]{2,4}(?:\.[0-9]{1,4})?[\u2013\-][0-9]{1,3}(?:[\u2013\-][0-9]{1,3})?[A-Z]?)\b"
        ),
        "AC 25-7D, AC 25.1701-1, AD 2018-23-51",
    ),
    RefPattern(
        "public_law",
        "external",
        _p(r"\b(?P<targets>(?:Public\s+Law|Pub\.\s*L\.)\s+[0-9]{2,3}-[0-9]{1,4})"),
        "Public Law 107-347",
    ),
    RefPattern(
        "bracket_report",
        "external",
        _p(
            r"\[(?P<targets>[A-Z][A-Za-z]{1,12}(?:\s+[A-Z][A-Za-z]{0,12})?\s*[0-9]{2,5}(?:[\-.][0-9A-Za-z]{1,5})*)\]"
        ),
        "[SP 800-90], [FIPS 180-3]: a bracketed report id",
    ),
    RefPattern(
        "bib_numeric",
        "bib",
        _p(r"\[(?P<targets>[0-9]{1,4}(?:\s*[,\u2013\-]\s*[0-9]{1,4})*)\]"),
        "[18], [3, 7], [2-5]",
    ),
    RefPattern(
        "bib_key",
        "bib",
        _p(r"\[(?P<targets>[A-Z][A-Za-z]+(?:\s?(?:et al\.|\+|[0-9]{2,4}[a-z]?))*)\]"),
        "[Randomizing], [Smith2019]",
    ),
    RefPattern(
        "named_section",
        "section",
        _p(r"\b(?i:see|in)\s+(?i:the\s+)?(?P<targets>(?:[A-Z][\w\u2019'-]*\s+){1,5})(?i:section)\b"),
        "See Flightcrew Training section: a section named, not numbered (resolved by title)",
    ),
    RefPattern(
        "relative_section",
        "section",
        _p(r"\b(?i:the)\s+(?i:previous|preceding|following|next|foregoing|above)\s+(?i:section)\b"),
        "the previous section: no id, left to the LLM resolver with the origin context",
    ),
    RefPattern(
        "page",
        "page",
        _p(r"\b(?:(?i:pages?)|pp?\.)\s*(?P<targets>[0-9]{1,4}(?:\s*[\u2013\-]\s*[0-9]{1,4})?)\b"),
        "page 8, p. 8",
    ),
]


def _norm_space(s: str) -> str:
    return re.sub(r"\s+", " ", s.replace("\u2013", "-").replace("\u2014", "-")).strip()


_NAMED_OBJECTS = ("figure", "table", "equation", "section", "appendix", "annex")


def _singular_hyphen_id(anchor: str, targets: str) -> bool:
    """'Figure 7-27' / 'Table 2-1' name one object (chapter-numbered), while 'Figures 3-5' or
    'pages 4-6' are ranges: a hyphenated pair after a singular keyword is one id."""
    first = anchor.split()[0].lower().strip("([") if anchor.split() else ""
    plural = first.endswith("s") and first not in ("see", "as", "is", "was") or first in ("pp.",)
    return bool(re.fullmatch(r"\s*[0-9]+\s*[\u2013\-]\s*[0-9]+\s*", targets)) and not plural


def _expand(targets: str, pattern: RefPattern) -> list[str]:
    """Split a target list and expand ranges ("3-5", "(g) through (l)")."""
    if pattern.ref_type == "external":
        return [_norm_space(targets)]
    if pattern.name in ("bib_key", "named_section"):
        return [targets.strip()]
    if pattern.name == "page":
        return [re.split(r"\s*[\u2013\-]\s*", targets)[0]]
    if pattern.name == "paragraph":
        parts = re.split(_LIST_SEP, targets)
        if len(parts) > 1 and all(re.match(r"\([0-9ivx]", p) for p in parts[1:]) and parts[0].count("(") > 1:
            # "(h)(2) through (10)": one section, a range of its sub-paragraphs
            return [targets]
        ranged = re.search(r"\s(?:through|to)\s|[\u2013\-]", targets)
        if ranged and len(parts) == 2:
            a, b = (re.match(r"\(([a-z0-9]+)\)", p).group(1) for p in parts)
            if len(a) == len(b) == 1 and a.isalpha() and b.isalpha() and a < b:
                return [f"({chr(c)})" for c in range(ord(a), ord(b) + 1)]
        return [p for p in parts if p]
    if re.fullmatch(r"[0-9]+(?:\s*[\u2013\-]\s*[0-9]+){2,}", targets.strip()):
        return [re.sub(r"\s*[\u2013\-]\s*", "-", targets.strip())]  # "22-11-33": one code, not a list
    out = [p for p in re.split(_LIST_SEP, targets) if p]
    # numeric ranges "[2-5]" / "Sections 3 to 5" (only short ranges of plain integers)
    m = re.fullmatch(r"\s*([0-9]+)\s*(?:[\u2013\-]|\sto\s|\sthrough\s)\s*([0-9]+)\s*", targets)
    if m and 0 < int(m.group(2)) - int(m.group(1)) <= 20:
        return [str(i) for i in range(int(m.group(1)), int(m.group(2)) + 1)]
    return out


def find_references(text: str) -> list[dict]:
    """All references in ``text``: dicts with start, end, anchor_text, ref_type, ref_target, sub_selector."""
    hits = []
    for prio, pat in enumerate(PATTERNS):
        for m in pat.regex.finditer(text):
            hits.append((m.start(), -(m.end() - m.start()), prio, m, pat))
    hits.sort(key=lambda h: (h[0], h[1], h[2]))
    taken: list[tuple[int, int]] = []
    out: list[dict] = []
    for start, neg_len, _, m, pat in hits:
        end = start - neg_len
        if any(start < b and end > a for a, b in taken):
            continue
        taken.append((start, end))
        g = m.groupdict()
        sub = g.get("pre") or (g.get("sub") or "").strip(" ,") or None
        if sub and pat.name == "paragraph":
            sub = None
        raw_targets = g.get("targets")
        targets = _expand(raw_targets, pat) if raw_targets else [None]
        if raw_targets and pat.ref_type in _NAMED_OBJECTS and _singular_hyphen_id(m.group(0), raw_targets):
            targets = [raw_targets.strip()]  # "Figure 7-27": chapter 7, figure 27 - one id
        if g.get("t2"):
            targets.append(g["t2"])
        for t in targets:
            target, s = t, sub
            if pat.name == "paragraph" and t:
                # "(q)(1)": the section is "(q)", the rest selects inside it
                first = re.match(r"\([a-z0-9]{1,4}\)", t).group(0)
                target, s = first, (f"paragraph {t[len(first) :]}" if len(t) > len(first) else None)
            if pat.name == "section_sign" and g.get("sub"):
                s = f"paragraph {g['sub']}"
            if target is not None and pat.ref_type not in ("external", "bib"):
                target = target.strip().rstrip(".")
            out.append(
                {
                    "start": start,
                    "end": end,
                    "anchor_text": m.group(0).strip(),
                    "ref_type": pat.ref_type,
                    "ref_target": target,
                    "sub_selector": s,
                    "pattern": pat.name,
                }
            )
    return out


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
