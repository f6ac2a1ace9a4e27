"""The matcher: apply the grammar's rules to a text and return one row per target.

Rules are tried together; where matches overlap the leftmost-longest wins (equal spans: rule
order). A match becomes a :class:`~docintel.parsing.refcompose.Mention` (its label, kind and
ids: "Sections 3.2 through 3.5" gives four, "Section 3(a) and (b)" two); then
:func:`~docintel.parsing.refcompose.compose` reads what neighbouring matches mean together
(a sub-unit of its container, a part of another document, a definition pointer, a page of a
cited publication, a scope).
"""

from __future__ import annotations

import functools
import re

from docintel.parsing.refcompose import SECTIONISH, Mention, compose
from docintel.parsing.refkinds import DIRECTION_WORDS, KINDS, SELECTOR_WORDS, Kind
from docintel.parsing.refnumbering import (
    WORD_VALUE,
    caps_letters,
    id_regex,
    more_parens,
    shape,
    split_targets,
)
from docintel.parsing.refprecision import AUTHOR_YEAR, drop
from docintel.parsing.refprefilter import applicable
from docintel.parsing.refrules import (
    BODY_ACRONYM,
    BRACKET_RULES,
    CONTROL_ID,
    CONTROL_RULES,
    EXTERNAL_RULES,
    PATH_RULES,
    RELATIVE_RULES,
    LazyRegex,
    RefPattern,
    kind_rule,
)

KIND_BY_NAME: dict[str, Kind] = {k.name: k for k in KINDS}
KIND_RULES: list[RefPattern] = [kind_rule(k) for k in KINDS]
_SELECTOR_ONLY = RefPattern(
    "selector_only",
    "unknown",
    LazyRegex(
        r"(?<![\w,])(?P<sub>(?i:"
        + SELECTOR_WORDS
        + r")[\s\u00a0]+(?:\([A-Za-z0-9]{1,4}\)|[0-9]{1,3}[a-z]?\b|\b[ivx]{1,5}\b))"
    ),
    "row (E), item ii, line 12 written alone: a selector inside the object the text is about",
    "selector",
    "relative",
)
#: The whole grammar, in priority order.
RULES: list[RefPattern] = [
    *EXTERNAL_RULES,
    *BRACKET_RULES,
    *KIND_RULES,
    *PATH_RULES,
    *CONTROL_RULES,
    *RELATIVE_RULES,
    _SELECTOR_ONLY,
]
_PRIO = {r.name: i for i, r in enumerate(RULES)}
_ID_RX = {k.name: LazyRegex(id_regex(k.numbering)) for k in KINDS}

#: The acronym of the body whose rule follows ("FINRA Rule 2111", "SEC Rule 10b-5").
_BODY = LazyRegex(r"(?<![\w.])(" + BODY_ACRONYM + r")[ \t\u00a0]+$")


@functools.lru_cache(maxsize=4096)  # one label string, one answer: every mention and row asks
def kind_of_label(label: str) -> Kind | None:
    low = label.lower().rstrip(".")
    for k in KINDS:
        # a word read capitalized only ("Definition", not "definition") matches as printed
        if any(re.fullmatch(w, low) or re.fullmatch(w, label.rstrip(".")) for _, w in k.words):
            return k
        if low in k.abbrevs or low in k.dotted or label.strip() in k.symbols:
            return k
    return None


def language(kind: Kind, label: str) -> str | None:
    low = label.lower()
    for lang, w in kind.words:
        if re.fullmatch(w, low) or re.fullmatch(w, label):
            return lang
    return None


def label_form(label: str, kind: Kind | None) -> str:
    if not label:
        return "none"
    if label[0] in "\u00a7\u00b6":
        return "symbol"
    if kind is not None and language(kind, label):
        return "full"
    return "abbrev"


def _plural(label: str, kind: Kind) -> bool:
    low = label.lower().rstrip(".")
    if low in ("pp", "p") or label in ("\u00a7\u00a7", "\u00b6\u00b6"):
        return True
    return low.endswith(("s", "es", "en", "x")) and not low.endswith(("us", "ss", "annex", "appendix"))


def _cut_list(kind: Kind, targets: str) -> str:
    """Keep the ids of one shape ("Table 3, 2019 figures" keeps "3")."""
    toks = list(_ID_RX[kind.name].finditer(targets))
    if len(toks) < 2:
        return targets

    def cls(t: str) -> str:
        c = shape(t.strip("()") if kind.name == "equation" else t)
        return "alpha" if c in ("letter", "roman") else c

    first = toks[0].group(0)
    for t in toks[1:]:
        tok = t.group(0)
        year = re.fullmatch(r"(?:19|20)[0-9]{2}", tok) and not re.fullmatch(r"[0-9]{4}", first)
        if cls(tok) != cls(first) or year:
            return targets[: toks[toks.index(t) - 1].end()]
    return targets


def _kind_mention(rule: RefPattern, m: re.Match, text: str) -> Mention | None:
    kind = KIND_BY_NAME[rule.kind]
    targets = m.group("targets")
    kept = _cut_list(kind, targets)
    end = m.end()
    sub = None
    if kept != targets:
        end = m.start("targets") + len(kept)
    else:
        g = m.groupdict()
        sub = g.get("pre") or g.get("sub2") or (g.get("sub") or "").strip(" ,\u00a0") or None
    label = m.group("label")
    ids, multi, expanded = split_targets(kept, _ID_RX[kind.name], _plural(label, kind))
    if "caps_id" in kind.numbering and not label.istitle() and any(caps_letters(i) for i in ids):
        # "SCHEDULE OF FEES": capitals after a label in capitals are its heading's words; after
        # "schedule" in lower case the verb's object ("to schedule GC")
        return None
    if not ids:
        return None
    ids = [WORD_VALUE.get(i.lower(), i) for i in ids]  # "Chapter Three" is chapter 3
    start, scope = m.start(), None
    body = (
        _BODY.search(text[max(0, start - 8) : start])
        if kind.name in ("rule", "regulation") and not label.isupper()
        else None
    )
    if body is not None:  # "FINRA Rule 2111": the reference opens at the body that makes the rule
        start, scope = start - (len(text[max(0, start - 8) : start]) - body.start()), body.group(1)
    if kind.name in SECTIONISH | {"rule", "regulation"} and sub is None and "(" in ids[-1]:
        # "Section 3(a) and (b)": 3(a) and 3(b)
        more, end2 = more_parens(text, end, ids[-1], _plural(label, kind), start=m.start())
        if more:
            ids, end, multi = [*ids, *more], end2, multi or "list"
    return Mention(
        start, end, rule, m, kind.ref_type, kind.name, label, ids, multi, expanded, sub, scope=scope
    )


def _mention(rule: RefPattern, m: re.Match, text: str) -> Mention | None:
    if drop(rule, m, text):
        return None
    if rule.name in _ID_RX and rule.family == "absolute":
        return _kind_mention(rule, m, text)
    g = m.groupdict()
    if rule.family in ("relative", "vague"):
        label = g.get("label") or ""
        kind = kind_of_label(label) if label else None
        d = next((g[k] for k in ("dir", "dir2", "dir3", "dir4") if g.get(k)), None)
        direction = "self" if rule.name == "relative_self" else DIRECTION_WORDS.get((d or "").lower(), d)
        if rule.name == "selector_only":
            word = g["sub"].split()[0].lower().rstrip("s")
            return Mention(m.start(), m.end(), rule, m, "unknown", word, "", [], sub=g["sub"], relative=True,
                           direction="self", family="relative")  # fmt: skip
        return Mention(m.start(), m.end(), rule, m, kind.ref_type if kind else "section",
                       kind.name if kind else "unknown", label, [], relative=True, direction=direction,
                       family=rule.family)  # fmt: skip
    raw = g.get("targets")
    if rule.name == "bracket_report" and AUTHOR_YEAR.fullmatch(raw):
        return Mention(m.start(), m.end(), rule, m, "bib", "bibliography", "[]", [raw], family="bib")
    if rule.ref_type == "external":
        ids = [re.sub(r"\s+", " ", raw.replace("\u2013", "-").replace("\u2014", "-")).strip()]
        label = "[]" if m.group(0).startswith("[") else ""
        return Mention(m.start(), m.end(), rule, m, "external", rule.name, label, ids, family="external")
    if rule.name == "bracket_requirement":
        ids, multi, _ = split_targets(raw, re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,3})+"), False)
        sub = (g.get("sub") or "").strip(" ,") or None
        return Mention(m.start(), m.end(), rule, m, "section", "requirement", "[]", ids, multi, sub=sub)
    if rule.name == "bib_numeric":
        ids, multi, expanded = split_targets(raw, re.compile(r"[0-9]{1,4}"), True)
        return Mention(
            m.start(), m.end(), rule, m, "bib", "bibliography", "[]", ids, multi, expanded, family="bib"
        )
    if rule.name == "control":
        ids = []  # "AC-2 (1) (2)": AC-2(1) and AC-2(2); "AC- 3" as "AC-3"
        for one in re.finditer(CONTROL_ID, raw):
            base = re.sub(r"[\s\u00a0]", "", re.match(r"[A-Z]{2}-[\s\u00a0]?[0-9]+", one.group(0)).group(0))
            enh = re.findall(r"\(([0-9]{1,2})\)", one.group(0))
            ids.extend([f"{base}({e})" for e in enh] or [base])
        multi = "list" if len(ids) > 1 else None
        return Mention(m.start(), m.end(), rule, m, "section", "control", "", ids, multi)
    if rule.name == "named_worksheet":
        name = re.sub(r"\s+", " ", raw).strip()
        return Mention(m.start(), m.end(), rule, m, "section", "worksheet", "", [name], family="named")
    if rule.name == "appendix_unnumbered":
        kind = kind_of_label(g["label"]) or KIND_BY_NAME["appendix"]
        return Mention(
            m.start(), m.end(), rule, m, kind.ref_type, kind.name, g["label"], [None], family="named"
        )
    label = "[]" if m.group(0).startswith("[") else ""
    return Mention(
        m.start(), m.end(), rule, m, rule.ref_type, rule.kind, label, [raw.strip()], family=rule.family
    )


#: Literals every match of a rule holds (case as printed): each inner tuple is "one of these", all
#: must hold. A cheap ``in`` test, after the prefilter's, that skips the external ids' and the named
#: worksheet's regexes on the many texts with a digit but no such word (issue 18: most of the link
#: windows' scan time was those ~20 regexes finding nothing). Only where the pattern spells the
#: literal outright (no case-insensitive group, no ``\s`` inside it): a skipped rule finds nothing.
_HOLDS: dict[str, tuple[tuple[str, ...], ...]] = {
    "cfr": (("CFR", "C.FR", "CF.R", "C.F.R"),),
    "usc": (("U.",),),
    "fr": (("FR", "Fed."),),
    "stat": (("Stat.",),),
    "nist_sp": (("SP", "Special"),),
    "nistir": (("NIST",),),
    "fips": (("FIPS",),),
    "iso": (("ISO", "IEC", "IEEE", "ANSI", "EN", "BS", "DIN"),),
    "rfc": (("RFC",),),
    "faa_ac": (("AC", "AD", "TSO", "SFAR"),),
    "public_law": (("Pub",),),
    "omb": (("Circular", "OMB"),),
    "exec_order": (("Executive", "E.O."),),
    "hspd": (("HSPD", "PPD", "PDD"),),
    "eu_act": (("Directive", "Regulation", "Decision"), ("/",)),
    "form": (("Form", "form"),),
    "publication": (("Pub",),),
    "court_rules": (("Fed.", "FRCP"),),
    "named_worksheet": (("Worksheet",),),
}


def _holds(rule: RefPattern, text: str) -> bool:
    """False when ``text`` lacks a literal every match of ``rule`` holds (:data:`_HOLDS`)."""
    need = _HOLDS.get(rule.name)
    if need is not None:
        for one in need:  # (loops, not all() / any() over generators: this runs per rule per text)
            for w in one:
                if w in text:
                    break
            else:
                return False
    return True


def _candidates(text: str) -> list[Mention]:
    hits = []
    for rule in applicable(text, RULES):
        if not _holds(rule, text):
            continue
        for m in rule.regex.compiled.finditer(text):
            mt = _mention(rule, m, text)
            if mt is not None and mt.end > mt.start:
                hits.append(mt)
    hits.sort(key=lambda h: (h.start, -(h.end - h.start), _PRIO[h.rule.name]))
    taken: list[Mention] = []
    for h in hits:
        if taken and any(h.start < t.end and h.end > t.start for t in taken[-8:]):
            continue
        taken.append(h)
    return taken


def scan(text: str) -> list[Mention]:
    """Every reference mention in ``text`` (all families), composed."""
    return compose(text, _candidates(text))
