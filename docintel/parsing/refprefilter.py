"""A cheap prefilter for the reference grammar: the label stems a text holds say which rules are
worth trying on it (one pass over the text instead of ~45 regex scans)."""

from __future__ import annotations

import re

from docintel.parsing.refkinds import DIRECTION_WORDS, KINDS, Kind
from docintel.parsing.refrules import RefPattern


def _stems(alt: str) -> set[str]:
    """Literal prefixes one of which a match of the regex alternative starts with
    ("[ée]quations?" -> {"équation", "equation"}; "tables?" -> {"table"})."""
    variants = [""]
    i = 0
    while i < len(alt):
        c = alt[i]
        if c == "[":
            j = alt.index("]", i)
            variants = [v + x for v in variants for x in alt[i + 1 : j]][:16]
            i = j + 1
        elif c in "(|)*+{\\.^$":
            break
        else:
            variants = [v + c for v in variants]
            i += 1
        if i < len(alt) and alt[i] == "?":
            variants = [v[:-1] for v in variants]
            break
    return set(variants)


def _top_level(rx: str) -> list[str]:
    """The alternatives of a regex, split at its top-level bars only."""
    out, depth, cur = [], 0, ""
    for c in rx:
        depth += (c in "([") - (c in ")]")
        if c == "|" and depth == 0:
            out, cur = [*out, cur], ""
        else:
            cur += c
    return [*out, cur]


def _needs(kind: Kind) -> tuple[str, ...]:
    alts = [a for _, w in kind.words for a in _top_level(w)]
    stems = (
        {x for a in alts for x in _stems(a)}
        | set(kind.abbrevs)
        | {d + "." for d in kind.dotted}
        | set(kind.symbols)
    )
    return tuple(sorted(stems))


#: Substrings (lowercase) one of which a text must hold for a rule to be tried: a cheap test
#: that skips most rules on most lines.
_NEEDS: dict[str, tuple[str, ...]] = {k.name: _needs(k) for k in KINDS}
_NEEDS.update(
    relative_direction=tuple(DIRECTION_WORDS),
    relative_postfix=("above", "below"),
    relative_self=("this", "these", "present", "cet", "ce ", "dies", "est", "pr\u00e9sent"),
    vague=("above", "below", "supra", "infra", "ci-d", "oben", "unten"),
    named_section=("section",),
    appendix_unnumbered=("appendix",),
    selector_only=("row", "col", "line", "item", "entr", "step", "cell"),
)


_STEM_RULES: dict[str, set[str]] = {}
for _name, _stems_of in _NEEDS.items():
    for _s in _stems_of:
        _STEM_RULES.setdefault(_s, set()).add(_name)
for _s in list(_STEM_RULES):  # a stem found stands for every stem it contains ("ci-dessus" holds "ci-d")
    _STEM_RULES[_s] = set().union(*(r for t, r in _STEM_RULES.items() if t in _s))
_ANY_STEM = re.compile("|".join(re.escape(x) for x in sorted(_STEM_RULES, key=len, reverse=True)))
_DIGIT = re.compile(r"[0-9]")


def applicable(text: str, rules: list[RefPattern]) -> list[RefPattern]:
    """The rules worth trying on ``text``: one pass over it finds the label stems it holds."""
    wanted: set[str] = set()
    for m in _ANY_STEM.finditer(text.lower()):
        wanted |= _STEM_RULES[m.group(0)]
    digit, bracket = bool(_DIGIT.search(text)), "[" in text
    out = []
    for rule in rules:
        if rule.ref_type == "external" and rule.name != "bracket_report":
            ok = digit
        elif rule.name in ("bib_numeric", "bib_key", "bracket_requirement", "bracket_report"):
            ok = bracket
        else:
            ok = rule.name not in _NEEDS or rule.name in wanted
        if ok:
            out.append(rule)
    return out
